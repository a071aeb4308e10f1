//! The TOML schema of a configuration file, and reading it.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::agent::FileAgent;
use crate::error::ConfigError;
use crate::preset::{MaxTokensField, ToolMode};
use crate::trust::validate_trusted_projects;

/// Which of the two configuration files a file is; they share one format, but only the
/// user file may set `trusted_projects`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileRole {
    /// The user's own file (`~/.config/hone/config.toml` or `$HONE_CONFIG`).
    User,
    /// A repository's `<project>/.hone/config.toml`.
    Project,
}

/// One configuration file (user or project).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileConfig {
    /// Instance to use: a preset name or a `[providers.NAME]`.
    pub(crate) provider: Option<String>,
    /// Model override for the selected instance.
    pub(crate) model: Option<String>,
    /// Named profile to apply.
    pub(crate) profile: Option<String>,
    /// Approval mode (`read-only`, `ask`, `auto-edit`, `full-auto`); span for error messages.
    pub(crate) approval: Option<Spanned<String>>,
    /// Most tool-call rounds per turn; checked against the accepted range after parsing.
    pub(crate) max_tool_rounds: Option<Spanned<i64>>,
    /// Provider instances by name.
    #[serde(default)]
    pub(crate) providers: BTreeMap<String, ProviderSection>,
    /// Profiles by name.
    #[serde(default)]
    pub(crate) profiles: BTreeMap<String, crate::profile_section::ProfileSection>,
    /// Timeouts and retries.
    #[serde(default)]
    pub(crate) network: NetworkSection,
    /// Context-window sizes by exact model name.
    #[serde(default)]
    pub(crate) context_windows: BTreeMap<String, u32>,
    /// Project directories whose project file is trusted; honoured in the user file only.
    /// Spans locate the key and each entry for error messages.
    pub(crate) trusted_projects: Option<Spanned<Vec<Spanned<String>>>>,
    /// Command rules.
    #[serde(default)]
    pub(crate) permissions: PermissionsSection,
    /// `[index]`: code index settings, validated by [`parse`].
    #[serde(default)]
    pub(crate) index: crate::index_settings::IndexSection,
    /// `[local]`: settings of the embedded model, validated by [`parse`].
    #[serde(default)]
    pub(crate) local: crate::local_settings::LocalSection,
    /// `[memory]`: undo settings, validated by [`parse`].
    #[serde(default)]
    pub(crate) memory: crate::memory_settings::MemorySection,
    /// `[logs]`: audit log sizes, validated by [`parse`].
    #[serde(default)]
    pub(crate) logs: crate::logs_settings::LogsSection,
    /// `[sandbox]`: how commands are confined, validated by [`parse`].
    #[serde(default)]
    pub(crate) sandbox: crate::sandbox_settings::SandboxSection,
    /// `[context]`: context-window management, validated by [`parse`].
    #[serde(default)]
    pub(crate) context: crate::context_settings::ContextSection,
    /// `[checks]`: checks after edits, validated by [`parse`].
    #[serde(default)]
    pub(crate) checks: crate::checks_settings::ChecksSection,
    /// `[roles]`: the model of each role, validated by [`parse`].
    #[serde(default)]
    pub(crate) roles: crate::roles_settings::RolesSection,
    /// `[store]`: where the code index is kept, validated by [`parse`].
    #[serde(default)]
    pub(crate) store: crate::store_settings::StoreSection,
    /// `[mcp_servers.NAME]`: MCP servers, validated by [`parse`]; spans locate the names.
    #[serde(default)]
    pub(crate) mcp_servers: BTreeMap<Spanned<String>, crate::mcp_settings::McpServerSection>,
    /// `[[hooks]]`: commands run at points of a session, validated by [`parse`].
    #[serde(default)]
    pub(crate) hooks: Vec<Spanned<crate::hooks_settings::HookSection>>,
    /// The agent keys above, validated; filled in by [`parse`].
    #[serde(skip)]
    pub(crate) agent: FileAgent,
}

/// `[providers.NAME]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProviderSection {
    pub(crate) kind: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) api_key_env: Option<String>,
    pub(crate) api_key_file: Option<String>,
    pub(crate) model: Option<String>,
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) api_version: Option<String>,
    pub(crate) tool_mode: Option<ToolMode>,
    pub(crate) context_window: Option<u32>,
    pub(crate) stream_usage: Option<bool>,
    pub(crate) max_tokens_field: Option<MaxTokensField>,
}

/// `[permissions]`: command prefixes or globs, spans for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PermissionsSection {
    #[serde(default)]
    pub(crate) allow: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) deny: Vec<Spanned<String>>,
    /// Globs of files that may hold secrets, besides the built-in ones.
    #[serde(default)]
    pub(crate) secret_files: Vec<Spanned<String>>,
}

/// `[network]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NetworkSection {
    pub(crate) max_retries: Option<u32>,
    pub(crate) retry_base_delay_ms: Option<u64>,
    pub(crate) retry_max_delay_ms: Option<u64>,
    pub(crate) idle_timeout_secs: Option<u64>,
    pub(crate) connect_timeout_secs: Option<u64>,
    pub(crate) header_timeout_secs: Option<u64>,
}

/// Reads and parses `path`, the file playing `role`; `Ok(None)` when the file does not exist.
/// A project's file is read through `hone_fs`: no symlinked `.hone` or `config.toml`, and
/// regular files only, so a repository cannot point hone at a file elsewhere.
pub(crate) fn read(path: &Path, role: FileRole) -> Result<Option<FileConfig>, ConfigError> {
    let text = match role {
        FileRole::User => std::fs::read_to_string(path),
        FileRole::Project => project_text(path),
    };
    match text {
        Ok(text) => parse(path, &text, role).map(Some),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The text of a project's `.hone/config.toml`, refused when `.hone` or the file is a
/// symlink or not regular.
fn project_text(path: &Path) -> io::Result<String> {
    if let Some(project) = path.parent().and_then(Path::parent) {
        hone_fs::hone_dir(project)?;
    }
    hone_fs::read_to_string_regular(path)
}

/// Parses `text`, the contents of `path`, the file playing `role`.
pub(crate) fn parse(path: &Path, text: &str, role: FileRole) -> Result<FileConfig, ConfigError> {
    let mut file = parse_schema(path, text)?;
    validate_trusted_projects(path, text, &file, role)?;
    crate::agent::validate(path, text, &mut file)?;
    crate::profile_section::validate(path, text, &mut file.profiles)?;
    crate::index_settings::validate(path, text, &mut file.index)?;
    crate::local_settings::validate(path, text, &file.local)?;
    crate::memory_settings::validate(path, text, &mut file.memory)?;
    crate::logs_settings::validate(path, text, &mut file.logs)?;
    crate::sandbox_settings::validate(path, text, &mut file.sandbox)?;
    crate::context_settings::validate(path, text, &mut file.context)?;
    crate::checks_settings::validate(path, text, &mut file.checks)?;
    crate::roles_settings::validate(path, text, &mut file.roles)?;
    crate::store_settings::validate(path, text, &mut file.store)?;
    crate::mcp_settings::validate(path, text, &file.mcp_servers)?;
    crate::hooks_settings::validate(path, text, &file.hooks)?;
    Ok(file)
}

/// Deserializes `text`, the contents of `path`, reporting syntax and schema errors.
fn parse_schema(path: &Path, text: &str) -> Result<FileConfig, ConfigError> {
    toml::from_str(text).map_err(|error| {
        let (line, column) = match error.span() {
            Some(span) => {
                let (line, column) = line_and_column(text, span.start);
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        let message = error.message().trim_end();
        let message = if message.starts_with("unknown field `api_key`") {
            "`api_key` is not allowed: hone never reads keys from config files; use \
             `api_key_env = \"VAR\"` (a variable holding the key) or `api_key_file = \"PATH\"`"
                .to_string()
        } else {
            crate::suggest::unknown_field_hint(message.to_string())
        };
        ConfigError::Parse {
            path: path.to_path_buf(),
            line,
            column,
            message,
        }
    })
}

/// A parse error at byte `offset` of `text`, the contents of `path`, naming its line and
/// column.
pub(crate) fn error_at(path: &Path, text: &str, offset: usize, message: String) -> ConfigError {
    let (line, column) = line_and_column(text, offset);
    ConfigError::Parse {
        path: path.to_path_buf(),
        line: Some(line),
        column: Some(column),
        message,
    }
}

/// `value` when it lies in `range`, else an error at its place in `text` (the contents of
/// `path`): "invalid `KEY` VALUE: expected WHAT from START to END".
pub(crate) fn checked_range<T>(
    (path, text): (&Path, &str),
    value: &toml::Spanned<i64>,
    range: &std::ops::RangeInclusive<T>,
    key: &str,
    what: &str,
) -> Result<T, ConfigError>
where
    T: TryFrom<i64> + PartialOrd + std::fmt::Display,
{
    T::try_from(*value.get_ref())
        .ok()
        .filter(|checked| range.contains(checked))
        .ok_or_else(|| {
            let message = format!(
                "invalid `{key}` {}: expected {what} from {} to {}",
                value.get_ref(),
                range.start(),
                range.end()
            );
            error_at(path, text, value.span().start, message)
        })
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |index| index + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_error(text: &str) -> (Option<usize>, String) {
        match parse(Path::new("/x/config.toml"), text, FileRole::User) {
            Err(ConfigError::Parse { line, message, .. }) => (line, message),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn parses_the_documented_example() {
        let file = parse(Path::new("c.toml"), crate::EXAMPLE_CONFIG, FileRole::User).unwrap();
        assert_eq!(file.provider.as_deref(), Some("work"));
        let work = &file.providers["work"];
        assert_eq!(work.kind.as_deref(), Some("openai"));
        assert_eq!(work.headers["OpenAI-Organization"], "org-1");
        assert_eq!(work.tool_mode, Some(ToolMode::Native));
        assert_eq!(work.max_tokens_field, Some(MaxTokensField::MaxTokens));
        assert_eq!(file.profiles["fast"].provider.as_deref(), Some("groq"));
        assert_eq!(file.network.connect_timeout_secs, Some(10));
        assert_eq!(file.context_windows["my-finetune"], 32_768);
        assert_eq!(file.agent.approval, Some(hone_policy::ApprovalMode::Ask));
        assert_eq!(file.agent.max_tool_rounds, Some(25));
        let allow: Vec<&str> = file
            .permissions
            .allow
            .iter()
            .map(|rule| rule.get_ref().as_str())
            .collect();
        assert_eq!(allow, ["cargo test", "git log *"]);
        assert_eq!(file.permissions.deny[0].get_ref(), "git push");
    }

    #[test]
    fn syntax_errors_carry_the_line() {
        let (line, _) = parse_error("provider = \"ollama\"\nmodel = \n");
        assert_eq!(line, Some(2));
    }

    #[test]
    fn unknown_keys_are_named_with_their_line() {
        let (line, message) =
            parse_error("[providers.work]\nkind = \"openai\"\nbase_ulr = \"x\"\n");
        assert_eq!(line, Some(3));
        assert!(message.contains("unknown field `base_ulr`"), "{message}");
        assert!(message.contains("Did you mean `base_url`?"), "{message}");
        let (line, message) = parse_error("\nmodle = \"x\"\n");
        assert_eq!(line, Some(2));
        assert!(message.contains("`modle`"), "{message}");
    }

    #[test]
    fn api_key_values_are_refused_with_advice() {
        let (line, message) = parse_error("[providers.openai]\napi_key = \"sk-abc\"\n");
        assert_eq!(line, Some(2));
        assert!(message.contains("api_key_env"), "{message}");
        assert!(!message.contains("sk-abc"));
    }

    #[test]
    fn wrong_enum_values_are_errors() {
        let (_, message) = parse_error("[providers.x]\ntool_mode = \"sometimes\"\n");
        assert!(message.contains("sometimes"), "{message}");
    }

    #[test]
    fn missing_files_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let absent = dir.path().join("absent.toml");
        assert!(read(&absent, FileRole::Project).unwrap().is_none());
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(line_and_column("ab\ncé d", 7), (2, 4));
        assert_eq!(line_and_column("abc", 0), (1, 1));
    }

    #[test]
    fn a_project_file_behind_a_symlink_is_refused_with_a_message() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("config.toml"), "approval = \"full-auto\"\n").unwrap();
        std::os::unix::fs::symlink(&elsewhere, project.join(".hone")).unwrap();
        let error = read(&project.join(".hone/config.toml"), FileRole::Project).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        std::fs::remove_file(project.join(".hone")).unwrap();
        std::fs::create_dir(project.join(".hone")).unwrap();
        std::os::unix::fs::symlink(
            elsewhere.join("config.toml"),
            project.join(".hone/config.toml"),
        )
        .unwrap();
        assert!(read(&project.join(".hone/config.toml"), FileRole::Project).is_err());
    }
}
