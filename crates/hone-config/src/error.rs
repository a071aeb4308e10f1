//! Errors reported while loading configuration or resolving a provider.

use std::fmt;
use std::path::PathBuf;

use hone_protocol::HoneError;

use crate::source::Source;

/// A configuration problem, phrased so the user knows what to change.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A configuration file exists but could not be read.
    #[error("cannot read config file {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// `HONE_CONFIG` names a file that does not exist.
    #[error("HONE_CONFIG points to {}, which does not exist", .path.display())]
    MissingUserFile {
        /// The missing file.
        path: PathBuf,
    },
    /// A configuration file is not valid TOML or does not match the schema (e.g. an unknown key).
    #[error("invalid config file {}{}: {message}", .path.display(), location(*.line, *.column))]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem, when known.
        line: Option<usize>,
        /// 1-based column of the problem, when known.
        column: Option<usize>,
        /// What is wrong, naming the offending key when there is one.
        message: String,
    },
    /// The selected or requested provider is neither a preset nor a configured instance.
    #[error(
        "unknown provider `{name}`{}; built-in providers: {}{}{}",
        from(.origin), preset_list(), configured_list(.configured), did_you_mean(.suggestion)
    )]
    UnknownProvider {
        /// The name asked for.
        name: String,
        /// Where the name came from, when it was selected by configuration.
        origin: Option<Source>,
        /// A close known name.
        suggestion: Option<String>,
        /// Names of the `[providers.NAME]` instances in the configuration.
        configured: Vec<String>,
    },
    /// The selected profile is not defined.
    #[error(
        "unknown profile `{name}` (from {origin}); defined profiles: {}{}",
        list_or_none(.known), did_you_mean(.suggestion)
    )]
    UnknownProfile {
        /// The name asked for.
        name: String,
        /// Where the name came from.
        origin: Source,
        /// A close defined name.
        suggestion: Option<String>,
        /// Defined profile names.
        known: Vec<String>,
    },
    /// A `[providers.NAME]` instance whose name is not a preset lacks `kind`.
    #[error(
        "[providers.{instance}] needs `kind = \"…\"` because `{instance}` is not a built-in provider; kinds: {}",
        preset_list()
    )]
    MissingKind {
        /// The instance name.
        instance: String,
    },
    /// A `[providers.NAME]` instance names a kind that is not a preset.
    #[error(
        "[providers.{instance}] has unknown kind `{kind}` (from {origin}); kinds: {}{}",
        preset_list(), did_you_mean(.suggestion)
    )]
    UnknownKind {
        /// The instance name.
        instance: String,
        /// The kind given.
        kind: String,
        /// Where the kind was set.
        origin: Source,
        /// A close preset name.
        suggestion: Option<String>,
    },
    /// The provider needs a key and none was found.
    #[error("no API key for provider `{provider}`: {}", key_hint(.provider, .variable.as_deref()))]
    MissingApiKey {
        /// The provider instance.
        provider: String,
        /// The environment variable that was looked at, if any.
        variable: Option<String>,
    },
    /// The file named by `api_key_file` could not be read.
    #[error("cannot read api_key_file {}: {source}", .path.display())]
    KeyFile {
        /// The key file.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// The file named by `api_key_file` has an empty first line.
    #[error("api_key_file {} is empty (the key must be on its first line)", .path.display())]
    EmptyKeyFile {
        /// The key file.
        path: PathBuf,
    },
    /// An Azure OpenAI instance has no deployment URL.
    #[error(
        "provider `{provider}` (Azure OpenAI) needs its deployment URL: set base_url = \
         \"https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT\" in [providers.{provider}] \
         or AZURE_OPENAI_ENDPOINT=https://RESOURCE.openai.azure.com (the model is then the deployment name)"
    )]
    AzureBaseUrl {
        /// The provider instance.
        provider: String,
    },
    /// A base URL is not an http(s) URL.
    #[error("base URL `{value}` (from {origin}) must start with http:// or https://")]
    InvalidBaseUrl {
        /// The value given.
        value: String,
        /// Where it came from.
        origin: Source,
    },
    /// An environment variable or command-line flag has a value hone does not accept
    /// (values in files are reported as [`ConfigError::Parse`], with their line).
    #[error("invalid {key} `{value}` (from {origin}): {expected}")]
    InvalidValue {
        /// The setting, e.g. `approval`.
        key: String,
        /// The value given.
        value: String,
        /// The variable or flag it came from.
        origin: Source,
        /// What is accepted, with a suggestion when the value is close to one.
        expected: String,
    },
    /// A project file sets `trusted_projects`, which only the user file may set.
    #[error(
        "invalid config file {}{}: `trusted_projects` is only honoured in your user file \
         (~/.config/hone/config.toml or $HONE_CONFIG): a repository cannot trust itself. \
         Remove it from this file and list the project in your user file instead",
        .path.display(), location(*.line, *.column)
    )]
    TrustedProjectsInProjectFile {
        /// The project file.
        path: PathBuf,
        /// 1-based line of the key's value, when known.
        line: Option<usize>,
        /// 1-based column of the key's value, when known.
        column: Option<usize>,
    },
    /// An untrusted project file chose the remote base URL that the requests (and the user's
    /// API key, if one was found) would be sent to (see the crate documentation, "Project
    /// trust").
    #[error("{0}")]
    UntrustedProjectBaseUrl(Box<UntrustedProjectBaseUrl>),
}

/// Details of [`ConfigError::UntrustedProjectBaseUrl`]: which provider, URL and key, and how to
/// proceed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UntrustedProjectBaseUrl {
    /// The provider instance.
    pub provider: String,
    /// The base URL the key would be sent to.
    pub base_url: String,
    /// The project file that set the base URL.
    pub project_file: PathBuf,
    /// The project directory, as `trusted_projects` would have to list it.
    pub project_dir: PathBuf,
    /// Where the key was found (`Source::Env` or `Source::KeyFile`); `None` for a keyless
    /// instance, whose requests would still go to the repository's server.
    pub key_source: Option<Source>,
    /// Where `api_key_env`, naming the key's variable, was set, if it was configured.
    pub api_key_env_origin: Option<Source>,
    /// The user file, where `trusted_projects` belongs, when there is one.
    pub user_file: Option<PathBuf>,
}

impl fmt::Display for UntrustedProjectBaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let refusal = match &self.key_source {
            Some(key_source) => format!(
                "but its API key comes from {}; hone will not send your key to a URL chosen by \
                 a repository",
                key_origin(key_source, self.api_key_env_origin.as_ref())
            ),
            None => "a remote server chosen by a repository; hone will not send your requests \
                     there, nor let its model decide tool calls"
                .to_string(),
        };
        write!(
            f,
            "the project file {} points provider `{}` at {}, {refusal}. Trust this project by \
             adding \"{}\" to `trusted_projects` in {}, or pass --base-url / HONE_BASE_URL \
             yourself.",
            self.project_file.display(),
            self.provider,
            self.base_url,
            self.project_dir.display(),
            user_file_name(self.user_file.as_ref()),
        )
    }
}

impl From<ConfigError> for HoneError {
    fn from(error: ConfigError) -> Self {
        HoneError::config(error.to_string())
    }
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!(", line {line}, column {column}"),
        (Some(line), None) => format!(", line {line}"),
        _ => String::new(),
    }
}

fn from(origin: &Option<Source>) -> String {
    origin
        .as_ref()
        .map(|origin| format!(" (from {origin})"))
        .unwrap_or_default()
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|name| format!(". Did you mean `{name}`?"))
        .unwrap_or_default()
}

fn preset_list() -> String {
    crate::preset_names().collect::<Vec<_>>().join(", ")
}

fn configured_list(configured: &[String]) -> String {
    if configured.is_empty() {
        String::new()
    } else {
        format!("; configured: {}", configured.join(", "))
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// Where a key comes from, in words: `OPENAI_API_KEY`, `WORK_KEY (api_key_env in …)` or
/// `file /k (api_key_file in …)`.
fn key_origin(key_source: &Source, api_key_env_origin: Option<&Source>) -> String {
    match (key_source, api_key_env_origin) {
        (Source::Env(variable), Some(origin)) => format!("{variable} (api_key_env in {origin})"),
        (Source::Env(variable), None) => variable.clone(),
        (other, _) => other.to_string(),
    }
}

fn user_file_name(user_file: Option<&PathBuf>) -> String {
    match user_file {
        Some(path) => path.display().to_string(),
        None => "your user file (~/.config/hone/config.toml)".to_string(),
    }
}

fn key_hint(provider: &str, variable: Option<&str>) -> String {
    match variable {
        Some(variable) => {
            format!("set {variable} (or api_key_env / api_key_file in [providers.{provider}])")
        }
        None => format!("set api_key_env or api_key_file in [providers.{provider}]"),
    }
}

#[cfg(test)]
mod tests {
    use hone_protocol::ErrorCategory;

    use super::*;

    #[test]
    fn missing_key_names_the_variable() {
        let error = ConfigError::MissingApiKey {
            provider: "anthropic".into(),
            variable: Some("ANTHROPIC_API_KEY".into()),
        };
        assert_eq!(
            error.to_string(),
            "no API key for provider `anthropic`: set ANTHROPIC_API_KEY \
             (or api_key_env / api_key_file in [providers.anthropic])"
        );
    }

    #[test]
    fn parse_errors_name_file_and_line() {
        let error = ConfigError::Parse {
            path: "/p/config.toml".into(),
            line: Some(3),
            column: Some(1),
            message: "unknown field `foo`".into(),
        };
        assert_eq!(
            error.to_string(),
            "invalid config file /p/config.toml, line 3, column 1: unknown field `foo`"
        );
    }

    #[test]
    fn invalid_values_name_their_origin_and_what_is_accepted() {
        let error = ConfigError::InvalidValue {
            key: "approval".into(),
            value: "yolo".into(),
            origin: Source::Env("HONE_APPROVAL".into()),
            expected: "expected one of read-only, ask".into(),
        };
        assert_eq!(
            error.to_string(),
            "invalid approval `yolo` (from env HONE_APPROVAL): expected one of read-only, ask"
        );
    }

    #[test]
    fn untrusted_project_url_says_what_happened_and_what_to_do() {
        let error = UntrustedProjectBaseUrl {
            provider: "openai".into(),
            base_url: "https://evil.example/v1".into(),
            project_file: "/repo/.hone/config.toml".into(),
            project_dir: "/repo".into(),
            key_source: Some(Source::Env("OPENAI_API_KEY".into())),
            api_key_env_origin: None,
            user_file: Some("/home/u/.config/hone/config.toml".into()),
        };
        assert_eq!(
            error.to_string(),
            "the project file /repo/.hone/config.toml points provider `openai` at \
             https://evil.example/v1, but its API key comes from OPENAI_API_KEY; hone will not \
             send your key to a URL chosen by a repository. Trust this project by adding \
             \"/repo\" to `trusted_projects` in /home/u/.config/hone/config.toml, or pass \
             --base-url / HONE_BASE_URL yourself."
        );
        let error = UntrustedProjectBaseUrl {
            provider: "x".into(),
            base_url: "https://evil.example".into(),
            project_file: "/repo/.hone/config.toml".into(),
            project_dir: "/repo".into(),
            key_source: Some(Source::Env("AWS_SECRET_ACCESS_KEY".into())),
            api_key_env_origin: Some(Source::ProjectFile("/repo/.hone/config.toml".into())),
            user_file: None,
        };
        let message = error.to_string();
        assert!(
            message.contains(
                "comes from AWS_SECRET_ACCESS_KEY (api_key_env in project file /repo/.hone/config.toml)"
            ),
            "{message}"
        );
        assert!(message.contains("in your user file (~/.config/hone/config.toml)"));
        let keyless = UntrustedProjectBaseUrl {
            key_source: None,
            ..error
        };
        let message = keyless.to_string();
        assert!(
            message.contains(
                "a remote server chosen by a repository; hone will not send your requests there"
            ),
            "{message}"
        );
    }

    #[test]
    fn converts_to_a_config_category_hone_error() {
        let error: HoneError = ConfigError::AzureBaseUrl {
            provider: "azure".into(),
        }
        .into();
        assert_eq!(error.category, ErrorCategory::Config);
        assert!(error.message.contains("openai/deployments/DEPLOYMENT"));
    }
}
