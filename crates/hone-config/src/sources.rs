//! The inputs configuration is loaded from: files, environment and command-line flags.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// Environment variable naming the user configuration file explicitly.
pub const HONE_CONFIG_ENV: &str = "HONE_CONFIG";

/// Where configuration is read from. Everything is injectable so tests never touch the
/// developer's real environment or home directory.
#[derive(Clone, Default)]
pub struct ConfigSources {
    /// The user configuration file; a missing file is skipped, except when `HONE_CONFIG`
    /// in [`ConfigSources::env`] names this very path.
    pub user_file: Option<PathBuf>,
    /// The project root; its `.hone/config.toml` is read when present.
    pub project_dir: Option<PathBuf>,
    /// Environment variables (`HONE_*`, API keys, `OLLAMA_HOST`, …).
    pub env: BTreeMap<String, String>,
}

impl ConfigSources {
    /// Sources of the running process: its environment, the user file named by `HONE_CONFIG`
    /// or else `<config dir>/hone/config.toml` (`~/.config/hone/config.toml` on Linux), and the
    /// project file under `project_dir`.
    pub fn from_process(project_dir: Option<PathBuf>) -> Self {
        let env: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
            .collect();
        let user_file = match env
            .get(HONE_CONFIG_ENV)
            .filter(|path| !path.trim().is_empty())
        {
            Some(path) => Some(PathBuf::from(path)),
            None => dirs::config_dir().map(|dir| dir.join("hone").join("config.toml")),
        };
        Self {
            user_file,
            project_dir,
            env,
        }
    }

    /// The project configuration file, `<project_dir>/.hone/config.toml`.
    pub fn project_file(&self) -> Option<PathBuf> {
        self.project_dir
            .as_ref()
            .map(|dir| dir.join(".hone").join("config.toml"))
    }
}

impl fmt::Debug for ConfigSources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConfigSources")
            .field("user_file", &self.user_file)
            .field("project_dir", &self.project_dir)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Values given on the command line; they win over every other layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CliOverrides {
    /// `--provider NAME`: a preset name or a `[providers.NAME]` instance.
    pub provider: Option<String>,
    /// `--model MODEL`.
    pub model: Option<String>,
    /// `--base-url URL`.
    pub base_url: Option<String>,
    /// `--profile NAME`.
    pub profile: Option<String>,
    /// `--approval MODE`: `read-only`, `ask`, `auto-edit` or `full-auto`.
    pub approval: Option<String>,
    /// `--max-tool-rounds N`: 1 to 1000.
    pub max_tool_rounds: Option<u32>,
    /// `--sandbox MODE`: how the model's commands are sandboxed.
    pub sandbox: Option<hone_sandbox::SandboxMode>,
    /// `--thinking LEVEL`: `off`, `low`, `medium`, `high` or a token budget, over the profile's.
    pub thinking: Option<String>,
    /// The only tools offered (a custom command's `allowed-tools`), over the profile's.
    pub allowed_tools: Option<Vec<String>>,
}

/// A snapshot of environment variables; `Debug` shows names only, never values.
#[derive(Clone, Default)]
pub(crate) struct Env(BTreeMap<String, String>);

impl Env {
    /// Wraps a variable map.
    pub(crate) fn new(vars: BTreeMap<String, String>) -> Self {
        Self(vars)
    }

    /// The trimmed value of `name`; unset and empty variables are both `None`.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(|value| value.trim())
            .filter(|value| !value.is_empty())
    }
}

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_variables_count_as_unset() {
        let env = Env::new(BTreeMap::from([
            ("A".to_string(), " value \n".to_string()),
            ("B".to_string(), "  ".to_string()),
        ]));
        assert_eq!(env.get("A"), Some("value"));
        assert_eq!(env.get("B"), None);
        assert_eq!(env.get("C"), None);
    }

    #[test]
    fn debug_never_shows_variable_values() {
        let sources = ConfigSources {
            env: BTreeMap::from([("OPENAI_API_KEY".to_string(), "sk-secret-value".to_string())]),
            ..ConfigSources::default()
        };
        let debug = format!("{sources:?}");
        assert!(debug.contains("OPENAI_API_KEY"));
        assert!(!debug.contains("sk-secret-value"));
        let env = Env::new(sources.env.clone());
        assert!(!format!("{env:?}").contains("sk-secret-value"));
    }

    #[test]
    fn project_file_is_under_dot_hone() {
        let sources = ConfigSources {
            project_dir: Some(PathBuf::from("/p")),
            ..ConfigSources::default()
        };
        assert_eq!(
            sources.project_file(),
            Some(PathBuf::from("/p/.hone/config.toml"))
        );
    }
}
