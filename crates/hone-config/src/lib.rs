//! hone's configuration.
//!
//! Built-in [`PRESETS`] describe every provider kind hone knows; [`load`] layers the
//! configuration files, the environment and command-line flags into a [`Config`], and
//! [`Config::provider`] resolves the selected instance into the [`ProviderConfig`] handed to
//! `hone-providers`. The agent settings, [`Config::approval`], [`Config::max_tool_rounds`]
//! and [`Config::permission_rules`], come from the same layers.
//!
//! # Layers
//!
//! Highest precedence first:
//!
//! 1. command-line flags ([`CliOverrides`]: `--provider`, `--model`, `--base-url`, `--profile`,
//!    `--approval`, `--max-tool-rounds`);
//! 2. the environment: `HONE_PROVIDER`, `HONE_MODEL`, `HONE_BASE_URL`, `HONE_PROFILE`,
//!    `HONE_APPROVAL`, `HONE_MAX_TOOL_ROUNDS`, each
//!    preset's key variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, …) and
//!    base-URL variable (`OLLAMA_HOST`, which may omit the scheme and port, and
//!    `AZURE_OPENAI_ENDPOINT`, to which `/openai/deployments/MODEL` is appended);
//! 3. the project file `<project>/.hone/config.toml`;
//! 4. the user file: `$HONE_CONFIG` if set, else `~/.config/hone/config.toml`
//!    (the platform's config directory);
//! 5. built-in defaults: see *Default provider* below.
//!
//! Empty variables and flags count as unset. Each field of a provider instance is resolved
//! on its own: preset defaults ← user file ← project file ← environment ← flags.
//!
//! Notes on the rules:
//!
//! - The top-level `model`, `HONE_MODEL`/`--model` and `HONE_BASE_URL`/`--base-url` override
//!   the *selected* instance only. A layer that selects a different provider drops the model
//!   and base URL chosen by lower layers, since they belonged to the previous provider.
//! - A profile (`profile = "fast"`, `HONE_PROFILE`, `--profile`) applies just below the layer
//!   selecting it: its `provider`, `model`, `tool_mode`, `context_window` and `approval` beat
//!   lower layers, while explicit keys of that same layer beat the profile.
//! - Keys are never values in files. `api_key_env` names the variable holding the key
//!   (default: the preset's, e.g. `OPENAI_API_KEY`, unless `api_key_file` is given);
//!   `api_key_file` names a file whose first line is the key, read when the variable is
//!   unset. Relative paths are relative to the file's directory; `~/` is the home directory.
//!   hone never writes keys anywhere.
//! - A preset's base-URL variable (`OLLAMA_HOST`) beats the files for the instance named
//!   like the preset (`ollama`); a custom instance (`kind = "ollama"`) with its own
//!   `base_url` keeps it.
//! - Unknown keys, `api_key = "…"` and TOML syntax errors are rejected with the file and line.
//!
//! # Default provider
//!
//! When no file, variable or flag selects a provider, hone picks one from the environment:
//! the first vendor whose key variable is set, in [`PRESETS`] order (`OPENAI_API_KEY` →
//! `openai`, `ANTHROPIC_API_KEY` → `anthropic`, `GEMINI_API_KEY` → `gemini`, then
//! `openrouter`, `mistral`, `deepseek`, `groq`, and `azure` when `AZURE_OPENAI_ENDPOINT` is
//! set as well); with no vendor key, [`DEFAULT_PROVIDER`] (`local`), the embedded model that
//! runs inside hone with no server and no key (`hone model pull` downloads it). `hone config
//! show` names the variable that made the choice.
//!
//! # The embedded model
//!
//! Provider kind `local` ([`WireApi::Local`]) has no base URL and no key; its `model` is a
//! catalog name (`hone model list`) or a path to a GGUF file, by default `[local] model`,
//! else [`LOCAL_DEFAULT_MODEL`]. `[local]` ([`Config::local_settings`]) also sets `threads`,
//! `context_size`, `temperature`, `top_p` and `seed`; unset keys use the engine's defaults.
//! `hone-providers` cannot build this kind: the CLI loads it with `hone-local`.
//!
//! # Agent settings
//!
//! - `approval` ([`hone_policy::ApprovalMode`]): `read-only`, `ask` (default), `auto-edit` or
//!   `full-auto`; `HONE_APPROVAL`, `--approval`, or a profile's `approval`.
//! - `max_tool_rounds`: the most tool-call rounds in one turn, 1 to 1000, default
//!   [`DEFAULT_MAX_TOOL_ROUNDS`]; `HONE_MAX_TOOL_ROUNDS`, `--max-tool-rounds`.
//! - `[permissions]` `allow` and `deny` ([`PermissionRules`]): command prefixes (`"cargo test"`)
//!   or globs (`"git log *"`), matched by the permission policy. The user file's and the
//!   project file's lists are concatenated, user rules first.
//!
//! Invalid values are rejected: in files with the file and line, in variables and flags with
//! their name ([`ConfigError::InvalidValue`]).
//!
//! # Code index settings
//!
//! `[index]` ([`Config::index_settings`]): `database` ([`IndexDatabase`]: `project`, the
//! default, for `<project>/.hone/index.db`, or `data-dir` for a per-project directory under
//! [`data_dir`]), `map_budget` (repo map tokens, [`MAP_BUDGET_RANGE`], default
//! [`DEFAULT_MAP_BUDGET`]), `extra_ignores` (gitignore patterns added to the index's
//! defaults; the user file's and the project file's lists are concatenated) and
//! `watch_debounce_ms` ([`WATCH_DEBOUNCE_RANGE_MS`], default [`DEFAULT_WATCH_DEBOUNCE_MS`]).
//! The project file's values win over the user file's.
//!
//! # Checks after edits
//!
//! `[checks]` ([`Config::checks_settings`]): `enabled` and `run_tests` (default true),
//! `max_repair_rounds` ([`MAX_REPAIR_ROUNDS_RANGE`], default [`DEFAULT_MAX_REPAIR_ROUNDS`]),
//! `attempts` ([`ATTEMPTS_RANGE`], default [`DEFAULT_ATTEMPTS`]), and command lists keyed by a language of [`CHECK_LANGUAGES`] or a glob (`{files}` becomes
//! the changed files the key matches). The project file's values and lists win over the
//! user file's.
//!
//! # Project trust
//!
//! A cloned repository's `.hone/config.toml` must not be able to send your API key, or your
//! requests, to its own server. [`Config::provider`] therefore fails
//! ([`ConfigError::UntrustedProjectBaseUrl`]) when the instance's `base_url` was set by the
//! project file (directly or through a profile defined there), that URL's host is not loopback
//! (`localhost`, `127.0.0.0/8`, `::1`), and the project is not trusted. To proceed, either set the URL
//! yourself (`--base-url`, `HONE_BASE_URL`, or `base_url` in the user file), or trust the
//! project by listing its directory in the user file:
//!
//! ```toml
//! trusted_projects = ["~/code/myrepo", "/srv/work/app"]
//! ```
//!
//! - `trusted_projects` is read from the user file only; a project file setting it is
//!   rejected. Entries must be absolute or start with `~/`, and match the project directory
//!   exactly, compared after canonicalisation (the literal path when that fails).
//! - A secret selected by the project file's `api_key_env` or `api_key_file` falls under the
//!   same rule: it is sent only to a loopback URL or to a URL set by the user file, the
//!   environment, a flag or a preset.
//! - The project file's `headers` never need trust: their values are literal text from the
//!   repository and cannot carry anything read from your environment or disk.
//! - An untrusted project file cannot choose the provider (`provider`, `profile`, `[roles]`
//!   with a provider) or a model file, and may only lower limits such as `max_tool_rounds` and
//!   `[context] instructions_max_bytes`; what it tried is listed by
//!   [`Config::ignored_project_settings`].
//! - A repository cannot grant itself commands either. Unless the project is trusted, its
//!   file's `[permissions] allow` rules are ignored (its `deny` rules always count), and an
//!   `approval` it sets, directly or through a profile it defines, counts only when it is
//!   stricter than what the layers below chose (e.g. `read-only` over the default `ask`, but
//!   not `full-auto`). The user's own environment and flags are not limited.
//! - `hone config show` ([`Config::render_show`]) lists `trusted_projects`, says whether the
//!   project is trusted, shows a refused provider as a `# problem:` line, and lists ignored
//!   project settings as `# ignored:` lines.
//!
//! # File format
//!
//! Both files share one format; every key is optional:
//!
#![doc = concat!("```toml\n", include_str!("example.toml"), "```")]
//!
//! # Example
//!
//! ```
//! use std::collections::BTreeMap;
//! use hone_config::{CliOverrides, ConfigSources, load};
//!
//! let sources = ConfigSources {
//!     env: BTreeMap::from([("ANTHROPIC_API_KEY".to_string(), "sk-ant-example-key".to_string())]),
//!     ..ConfigSources::default()
//! };
//! let cli = CliOverrides { provider: Some("anthropic".into()), ..CliOverrides::default() };
//! let config = load(&sources, &cli)?;
//! let provider = config.provider()?;
//! assert_eq!(provider.model, "claude-sonnet-4-5");
//! assert_eq!(provider.api_key.unwrap().expose(), "sk-ant-example-key");
//! assert!(!config.render_show().contains("sk-ant-example-key"));
//! # Ok::<(), hone_config::ConfigError>(())
//! ```

mod agent;
mod checks_settings;
mod context_modes;
mod context_settings;
mod context_window;
mod copy_on_write;
mod custom_commands;
mod data_dir;
mod default_provider;
mod error;
mod extension_dirs;
mod file;
mod front_matter;
mod hooks_settings;
mod index_settings;
mod load;
mod local_settings;
mod logs_settings;
mod mcp_settings;
mod memory_settings;
mod preset;
mod profile_section;
mod profiles;
mod provider;
mod resolve;
mod roles_settings;
mod sandbox_settings;
mod show;
mod skills;
mod source;
mod sources;
mod store_settings;
mod suggest;
mod trust;
mod untrusted;

pub use agent::{DEFAULT_MAX_TOOL_ROUNDS, MAX_TOOL_ROUNDS_RANGE, PermissionRules};
pub use checks_settings::{
    ATTEMPTS_RANGE, CHECK_LANGUAGES, CheckCommands, CheckKey, ChecksSettings, DEFAULT_ATTEMPTS,
    DEFAULT_MAX_REPAIR_ROUNDS, MAX_REPAIR_ROUNDS_RANGE,
};
pub use context_settings::{
    ContextSettings, DEFAULT_COMPACT_THRESHOLD, DEFAULT_INSTRUCTIONS_MAX_BYTES,
    DEFAULT_LOCALIZE_BUDGET_TOKENS, DEFAULT_RECENT_TURNS, FlowSetting,
    INSTRUCTIONS_MAX_BYTES_RANGE, LOCALIZE_BUDGET_RANGE, LocalizeSetting, PromptProfileSetting,
    RECENT_TURNS_RANGE,
};
pub use context_window::{KNOWN_CONTEXT_WINDOWS, known_context_window};
pub use custom_commands::{COMMANDS_DIR, CustomCommand, CustomCommands};
pub use data_dir::{DATA_DIR_ENV, data_dir};
pub use default_provider::DEFAULT_PROVIDER;
pub use error::{ConfigError, UntrustedProjectBaseUrl};
pub use extension_dirs::Scope;
pub use hone_protocol::{SystemPrompt, SystemPromptMode};
pub use hooks_settings::{
    DEFAULT_HOOK_TIMEOUT_SECS, HOOK_TIMEOUT_RANGE_SECS, HookSettings, HooksSettings,
};
pub use index_settings::{
    DEFAULT_MAP_BUDGET, DEFAULT_WATCH_DEBOUNCE_MS, IndexDatabase, IndexSettings, MAP_BUDGET_RANGE,
    WATCH_DEBOUNCE_RANGE_MS, data_dir_database,
};
pub use load::{Config, expand_home, load};
pub use local_settings::LocalSettings;
pub use logs_settings::{DEFAULT_LOG_MAX_MB, LOG_MAX_MB_RANGE};
pub use mcp_settings::{
    DEFAULT_MCP_STARTUP_TIMEOUT_SECS, DEFAULT_MCP_TOOL_TIMEOUT_SECS, McpApproval,
    McpServerSettings, McpSettings, McpTransport,
};
pub use memory_settings::{DEFAULT_UNDO_DEPTH, UNDO_DEPTH_RANGE};
pub use preset::{
    ANTHROPIC_DEFAULT_VERSION, AZURE_DEFAULT_API_VERSION, AuthStyle, LOCAL_DEFAULT_MODEL,
    MaxTokensField, PRESETS, Preset, ToolMode, WireApi, preset, preset_names,
};
pub use profile_section::{MAX_PROFILE_TOKENS, TEMPERATURE_RANGE};
pub use profiles::{AGENTS_DIR, ProfileSettings};
pub use provider::{ApiKey, NetworkConfig, ProviderConfig};
pub use roles_settings::{ROLE_NAMES, RoleSetting, RolesSettings};
pub use sandbox_settings::SandboxSettings;
pub use show::ShownValue;
pub use skills::{SKILL_FILE, SKILLS_DIR, Skill, Skills};
pub use source::Source;
pub use sources::{CliOverrides, ConfigSources, HONE_CONFIG_ENV};
pub use store_settings::{
    NAMESPACE_MAX_CHARS, StoreBackend, StoreSettings, check_namespace, check_url,
};
pub use suggest::closest;

/// A complete, commented example configuration file.
pub const EXAMPLE_CONFIG: &str = include_str!("example.toml");

/// Shared by the settings modules' tests.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::{CliOverrides, Config, ConfigSources};

    /// The configuration loaded from a user file and a project file (`.hone/config.toml`)
    /// with these texts; the directory holding them comes first and must outlive the test.
    pub(crate) fn load_layered(user: &str, project: &str) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().unwrap();
        let user_file = dir.path().join("user.toml");
        std::fs::write(&user_file, user).unwrap();
        let project_dir = dir.path().join("project");
        std::fs::create_dir_all(project_dir.join(".hone")).unwrap();
        std::fs::write(project_dir.join(".hone/config.toml"), project).unwrap();
        let sources = ConfigSources {
            user_file: Some(user_file),
            project_dir: Some(project_dir),
            ..ConfigSources::default()
        };
        let config = crate::load(&sources, &CliOverrides::default()).unwrap();
        (dir, config)
    }
}
