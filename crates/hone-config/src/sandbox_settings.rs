//! `[sandbox]`: how the commands the model runs are confined, and which environment
//! variables they may see.
//!
//! ```toml
//! [sandbox]
//! mode = "workspace-write"          # read-only | workspace-write | off (default: by approval)
//! writable_roots = ["~/.cache/pip"] # more directories commands may write (workspace-write)
//! network = false                   # let commands use the network
//! env_passthrough = ["GITHUB_TOKEN"] # secret-looking variables commands may see anyway
//! readable_roots = ["~/.config/myenv"] # more of the home commands may read (namespaces)
//! namespaces = true                 # own namespaces and a read-only system view (Linux)
//! cpu_seconds = 3600                # limits: CPU time, address space (MiB), processes;
//! memory_mb = 0                     #   0 = none
//! max_processes = 4096
//! overlay = true                    # commands on a copy-on-write view (Linux; see
//! passthrough = ["target"]          #   `copy_on_write` for both keys)
//! ```
//!
//! An untrusted project's file (see the `trust` module) may only tighten: its `mode` counts
//! when it is at least as strict as the user's, its `network = false`, `namespaces = true`
//! and limits lower than the user's count, and its `writable_roots`, `readable_roots`,
//! `network = true`, `namespaces = false`, higher limits and `env_passthrough` are ignored.

use std::path::{Path, PathBuf};

use hone_sandbox::{Limits, SandboxMode};
use serde::Deserialize;
use toml::Spanned;

use crate::copy_on_write::CopyOnWriteLayer;
use crate::error::ConfigError;
use crate::file::line_and_column;
use crate::load::Config;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};

/// `[sandbox]` as written in a file; spans locate values for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SandboxSection {
    mode: Option<Spanned<String>>,
    #[serde(default)]
    writable_roots: Vec<String>,
    network: Option<bool>,
    #[serde(default)]
    env_passthrough: Vec<String>,
    #[serde(default)]
    readable_roots: Vec<String>,
    namespaces: Option<bool>,
    cpu_seconds: Option<u64>,
    memory_mb: Option<u64>,
    max_processes: Option<u64>,
    overlay: Option<bool>,
    passthrough: Option<Spanned<Vec<String>>>,
    /// `mode`, checked; filled in by [`validate`].
    #[serde(skip)]
    checked_mode: Option<SandboxMode>,
}

/// Checks `section`, from the contents `text` of `path`; errors name the file and line.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    section: &mut SandboxSection,
) -> Result<(), ConfigError> {
    crate::copy_on_write::validate(path, text, section.passthrough.as_ref())?;
    let Some(mode) = &section.mode else {
        return Ok(());
    };
    match mode.get_ref().parse::<SandboxMode>() {
        Ok(parsed) => {
            section.checked_mode = Some(parsed);
            Ok(())
        }
        Err(error) => {
            let (line, column) = line_and_column(text, mode.span().start);
            Err(ConfigError::Parse {
                path: path.to_path_buf(),
                line: Some(line),
                column: Some(column),
                message: format!("invalid `sandbox.mode`: {error}"),
            })
        }
    }
}

/// The `[sandbox]` values of one kind of file, merged.
#[derive(Debug, Clone, Default)]
struct Layer {
    mode: Option<Sourced<SandboxMode>>,
    writable_roots: Vec<PathBuf>,
    network: Option<Sourced<bool>>,
    env_passthrough: Vec<String>,
    readable_roots: Vec<PathBuf>,
    namespaces: Option<bool>,
    cpu_seconds: Option<u64>,
    memory_mb: Option<u64>,
    max_processes: Option<u64>,
    copy_on_write: CopyOnWriteLayer,
}

/// `[sandbox]` of the user file and of the project file, kept apart until trust is known.
#[derive(Debug, Clone, Default)]
pub(crate) struct SandboxLayers {
    user: Layer,
    project: Layer,
    cli: Option<Sourced<SandboxMode>>,
}

impl SandboxLayers {
    /// Records the `--sandbox` flag, which wins over both files.
    pub(crate) fn set_cli(&mut self, mode: Option<SandboxMode>) {
        self.cli = mode.map(|mode| Sourced::new(mode, Source::Cli("--sandbox".to_string())));
    }

    /// Layers `section`, read from `source` (a file in directory `base`).
    pub(crate) fn merge(&mut self, section: &SandboxSection, source: &Source, base: &Path) {
        let layer = match source {
            Source::ProjectFile(_) => &mut self.project,
            _ => &mut self.user,
        };
        if let Some(mode) = section.checked_mode {
            layer.mode = Some(Sourced::new(mode, source.clone()));
        }
        if let Some(network) = section.network {
            layer.network = Some(Sourced::new(network, source.clone()));
        }
        layer.writable_roots.extend(
            section
                .writable_roots
                .iter()
                .map(|root| crate::load::resolve_path(root, base)),
        );
        layer
            .env_passthrough
            .extend(section.env_passthrough.iter().cloned());
        layer.readable_roots.extend(
            section
                .readable_roots
                .iter()
                .map(|root| crate::load::resolve_path(root, base)),
        );
        layer.namespaces = section.namespaces.or(layer.namespaces);
        layer.cpu_seconds = section.cpu_seconds.or(layer.cpu_seconds);
        layer.memory_mb = section.memory_mb.or(layer.memory_mb);
        layer.max_processes = section.max_processes.or(layer.max_processes);
        let copy_on_write = &mut layer.copy_on_write;
        copy_on_write.overlay = section.overlay.or(copy_on_write.overlay);
        if let Some(entries) = &section.passthrough {
            copy_on_write.passthrough = Some(entries.get_ref().iter().map(PathBuf::from).collect());
        }
    }
}

/// The effective `[sandbox]` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// The configured mode; `None` leaves the choice to the front end (by approval mode).
    pub mode: Option<SandboxMode>,
    /// Where the mode came from.
    pub mode_source: Option<Source>,
    /// Directories commands may write besides the project root.
    pub writable_roots: Vec<PathBuf>,
    /// Whether commands may use the network.
    pub network: bool,
    /// Secret-looking variables commands may see anyway.
    pub env_passthrough: Vec<String>,
    /// More of the home directory commands may read when namespaces hide it.
    pub readable_roots: Vec<PathBuf>,
    /// Whether commands run in their own namespaces (Linux; default on).
    pub namespaces: bool,
    /// Resource limits of every command.
    pub limits: Limits,
    /// Whether commands run on a copy-on-write view of the project (Linux with
    /// namespaces; default on).
    pub overlay: bool,
    /// Directories of the project written straight through the copy-on-write view.
    pub passthrough: Vec<PathBuf>,
    /// Settings of an untrusted project file that were ignored, in words.
    pub ignored: Vec<String>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            mode: None,
            mode_source: None,
            writable_roots: Vec::new(),
            network: false,
            env_passthrough: Vec::new(),
            readable_roots: Vec::new(),
            namespaces: true,
            limits: Limits::default(),
            overlay: true,
            passthrough: hone_sandbox::overlay::DEFAULT_PASSTHROUGH
                .iter()
                .map(PathBuf::from)
                .collect(),
            ignored: Vec::new(),
        }
    }
}

/// Whether limit `wanted` is at least as strict as `current` (`None`: no limit).
fn tighter(wanted: Option<u64>, current: Option<u64>) -> bool {
    match (wanted, current) {
        (Some(wanted), Some(current)) => wanted <= current,
        (Some(_), None) => true,
        (None, current) => current.is_none(),
    }
}

impl Config {
    /// The `[sandbox]` settings, with an untrusted project's loosening ignored.
    pub fn sandbox_settings(&self) -> SandboxSettings {
        let user = &self.sandbox.user;
        let project = &self.sandbox.project;
        let trusted = self.trust.trusted;
        let mut ignored = Vec::new();
        let mut mode = user.mode.clone();
        if let Some(wanted) = &project.mode {
            let current = mode
                .as_ref()
                .map_or(SandboxMode::WorkspaceWrite, |mode| mode.value);
            if trusted || wanted.value <= current {
                mode = Some(wanted.clone());
            } else {
                ignored.push(format!("mode = \"{}\"", wanted.value));
            }
        }
        if let Some(flag) = &self.sandbox.cli {
            mode = Some(flag.clone());
        }
        let mut network = user.network.as_ref().is_some_and(|network| network.value);
        if let Some(wanted) = &project.network {
            if trusted || !wanted.value {
                network = wanted.value;
            } else {
                ignored.push("network = true".to_string());
            }
        }
        let mut writable_roots = user.writable_roots.clone();
        let mut env_passthrough = user.env_passthrough.clone();
        if trusted {
            writable_roots.extend(project.writable_roots.iter().cloned());
            env_passthrough.extend(project.env_passthrough.iter().cloned());
        } else {
            if !project.writable_roots.is_empty() {
                ignored.push("writable_roots".to_string());
            }
            if !project.env_passthrough.is_empty() {
                ignored.push("env_passthrough".to_string());
            }
        }
        let mut readable_roots = user.readable_roots.clone();
        if trusted {
            readable_roots.extend(project.readable_roots.iter().cloned());
        } else if !project.readable_roots.is_empty() {
            ignored.push("readable_roots".to_string());
        }
        let mut namespaces = user.namespaces.unwrap_or(true);
        match project.namespaces {
            Some(false) if !trusted && namespaces => ignored.push("namespaces = false".to_string()),
            Some(wanted) => namespaces = wanted,
            None => {}
        }
        let defaults = Limits::default();
        let mut limit = |name: &str, user: Option<u64>, project: Option<u64>, default| {
            let current = user.map_or(default, Limits::parse_value);
            match project.map(Limits::parse_value) {
                Some(wanted) if trusted || tighter(wanted, current) => wanted,
                Some(_) => {
                    ignored.push(format!("{name} (higher than the user's)"));
                    current
                }
                None => current,
            }
        };
        let limits = Limits {
            cpu_seconds: limit(
                "cpu_seconds",
                user.cpu_seconds,
                project.cpu_seconds,
                defaults.cpu_seconds,
            ),
            memory_mb: limit(
                "memory_mb",
                user.memory_mb,
                project.memory_mb,
                defaults.memory_mb,
            ),
            processes: limit(
                "max_processes",
                user.max_processes,
                project.max_processes,
                defaults.processes,
            ),
        };
        let (overlay, passthrough) = crate::copy_on_write::merge(
            &user.copy_on_write,
            &project.copy_on_write,
            trusted,
            &mut ignored,
        );
        SandboxSettings {
            overlay,
            passthrough,
            mode_source: mode.as_ref().map(|mode| mode.source.clone()),
            mode: mode.map(|mode| mode.value),
            writable_roots,
            network,
            env_passthrough,
            readable_roots,
            namespaces,
            limits,
            ignored,
        }
    }

    /// Every environment variable that may hold an API key: every preset's and every
    /// configured `api_key_env`, sorted, without duplicates.
    pub fn known_key_variables(&self) -> Vec<String> {
        let mut names: Vec<String> = crate::PRESETS
            .iter()
            .filter_map(|preset| preset.api_key_env.map(str::to_string))
            .chain(
                self.instances
                    .values()
                    .filter_map(|instance| instance.api_key_env.as_ref())
                    .map(|name| name.value.clone()),
            )
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The `[sandbox]` values as `hone config show` lists them.
    pub(crate) fn show_sandbox(&self, values: &mut Vec<ShownValue>) {
        let settings = self.sandbox_settings();
        let mut push = |key: &str, value: String, source: Option<Source>| {
            values.push(ShownValue {
                section: "sandbox".to_string(),
                key: key.to_string(),
                value,
                source,
            });
        };
        push(
            "mode",
            settings.mode.map_or_else(
                || "not set (workspace-write; read-only under the read-only approval)".to_string(),
                |mode| format!("\"{mode}\""),
            ),
            settings.mode_source.clone(),
        );
        push("network", settings.network.to_string(), None);
        push(
            "writable_roots",
            format!("{:?}", settings.writable_roots),
            None,
        );
        push(
            "env_passthrough",
            format!("{:?}", settings.env_passthrough),
            None,
        );
        push("overlay", settings.overlay.to_string(), None);
        push("passthrough", format!("{:?}", settings.passthrough), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CliOverrides, ConfigSources};

    fn parse(text: &str) -> Result<SandboxSection, ConfigError> {
        let file = crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        )?;
        Ok(file.sandbox)
    }

    #[test]
    fn the_mode_is_checked_with_its_line() {
        let section = parse("[sandbox]\nmode = \"read-only\"\nnetwork = true\n").unwrap();
        assert_eq!(section.checked_mode, Some(SandboxMode::ReadOnly));
        assert_eq!(section.network, Some(true));
        match parse("model = \"m\"\n[sandbox]\nmode = \"strict\"\n") {
            Err(ConfigError::Parse { line, message, .. }) => {
                assert_eq!(line, Some(3));
                assert!(
                    message.contains("read-only, workspace-write or off"),
                    "{message}"
                );
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
        assert!(
            parse("[sandbox]\nnetwrk = true\n").is_err(),
            "unknown keys are refused"
        );
    }

    fn load(user: &str, project: &str, trusted: bool) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let project_dir = dir.path().join("project");
        std::fs::create_dir_all(project_dir.join(".hone")).unwrap();
        std::fs::write(project_dir.join(".hone/config.toml"), project).unwrap();
        let user_file = dir.path().join("user.toml");
        let trust = if trusted {
            format!(
                "trusted_projects = [{:?}]\n",
                project_dir.canonicalize().unwrap().display().to_string()
            )
        } else {
            String::new()
        };
        std::fs::write(&user_file, format!("{trust}{user}")).unwrap();
        let sources = ConfigSources {
            user_file: Some(user_file),
            project_dir: Some(project_dir),
            ..ConfigSources::default()
        };
        crate::load(&sources, &CliOverrides::default()).unwrap()
    }

    #[test]
    fn an_untrusted_project_may_only_tighten() {
        let project = "[sandbox]\nmode = \"off\"\nnetwork = true\nwritable_roots = [\"/\"]\n\
                       env_passthrough = [\"OPENAI_API_KEY\"]\n";
        let settings =
            load("[sandbox]\nwritable_roots = [\"/cache\"]\n", project, false).sandbox_settings();
        assert_eq!(settings.mode, None);
        assert!(!settings.network);
        assert_eq!(settings.writable_roots, [PathBuf::from("/cache")]);
        assert!(settings.env_passthrough.is_empty());
        assert_eq!(
            settings.ignored,
            [
                "mode = \"off\"",
                "network = true",
                "writable_roots",
                "env_passthrough"
            ]
        );
        let tighter = load("", "[sandbox]\nmode = \"read-only\"\n", false).sandbox_settings();
        assert_eq!(tighter.mode, Some(SandboxMode::ReadOnly));
    }

    #[test]
    fn a_trusted_project_may_loosen() {
        let settings = load(
            "[sandbox]\nmode = \"read-only\"\n",
            "[sandbox]\nmode = \"off\"\nnetwork = true\nenv_passthrough = [\"X_TOKEN\"]\n",
            true,
        )
        .sandbox_settings();
        assert_eq!(settings.mode, Some(SandboxMode::Off));
        assert!(settings.network);
        assert_eq!(settings.env_passthrough, ["X_TOKEN"]);
        assert!(settings.ignored.is_empty());
    }

    #[test]
    fn known_key_variables_cover_every_vendor_and_configured_names() {
        let config = load(
            "[providers.mine]\nkind = \"openai\"\napi_key_env = \"MY_LLM_KEY\"\n",
            "",
            false,
        );
        let names = config.known_key_variables();
        for name in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GEMINI_API_KEY",
            "MY_LLM_KEY",
        ] {
            assert!(
                names.contains(&name.to_string()),
                "{name} missing: {names:?}"
            );
        }
    }
}
