//! Hook events and tool matchers, shared by the configuration (which checks them) and the
//! core (which runs hooks). The names follow Claude Code's and Codex's hooks, so hooks
//! written for them can be brought over.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// When a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HookEvent {
    /// Before a tool call runs; may block it.
    PreToolUse,
    /// After a tool call ran, with its result.
    PostToolUse,
    /// When the user sends a prompt, before the model sees it; may block it.
    UserPromptSubmit,
    /// When a turn ends.
    Stop,
    /// When a session starts.
    SessionStart,
    /// Before the conversation is compacted.
    PreCompact,
}

impl HookEvent {
    /// Every event, in the order the documentation lists them.
    pub const ALL: [HookEvent; 6] = [
        Self::PreToolUse,
        Self::PostToolUse,
        Self::UserPromptSubmit,
        Self::Stop,
        Self::SessionStart,
        Self::PreCompact,
    ];

    /// The name written in configuration files and sent as `hook_event_name`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::Stop => "Stop",
            Self::SessionStart => "SessionStart",
            Self::PreCompact => "PreCompact",
        }
    }

    /// Whether the event concerns one tool call (so `matcher` and `paths` apply).
    pub fn is_tool_event(self) -> bool {
        matches!(self, Self::PreToolUse | Self::PostToolUse)
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl FromStr for HookEvent {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|event| event.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|event| event.as_str()).collect();
                format!(
                    "unknown hook event `{text}`; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// Claude Code's tool names and the hone tools they stand for, so that a matcher written
/// for Claude Code (`"Write|Edit"`) matches hone's tools too.
const CLAUDE_TOOL_NAMES: [(&str, &[&str]); 8] = [
    ("Bash", &["run_command", "run_background", "run_tests"]),
    ("Write", &["write_file"]),
    ("Edit", &["edit_file", "edit_lines", "apply_patch"]),
    ("MultiEdit", &["edit_file", "edit_lines", "apply_patch"]),
    ("Read", &["read_file"]),
    ("Grep", &["search_files"]),
    ("Glob", &["glob_files"]),
    ("LS", &["list_dir"]),
];

/// Which tools a hook applies to: every tool (no matcher, `""` or `"*"`), names separated by
/// `|` (`"write_file|edit_file"`), or a regular expression that must match the whole name.
/// Claude Code's names (`Bash`, `Write`, `Edit`, …) also match the hone tools they stand for.
#[derive(Debug, Clone)]
pub enum ToolMatcher {
    /// Every tool.
    Any,
    /// These exact names.
    Names(Vec<String>),
    /// Names the whole expression matches.
    Pattern(regex::Regex),
}

impl ToolMatcher {
    /// Reads a `matcher` setting; the error says what is wrong with the expression.
    pub fn parse(matcher: &str) -> Result<Self, String> {
        let matcher = matcher.trim();
        if matcher.is_empty() || matcher == "*" {
            return Ok(Self::Any);
        }
        let plain = matcher
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|' | '.'));
        if plain && !matcher.contains('.') {
            return Ok(Self::Names(
                matcher
                    .split('|')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(str::to_string)
                    .collect(),
            ));
        }
        regex::Regex::new(&format!("^(?:{matcher})$"))
            .map(Self::Pattern)
            .map_err(|error| format!("`matcher` is not a valid regular expression: {error}"))
    }

    /// Whether the tool `name` is matched, directly or through a Claude Code name.
    pub fn matches(&self, name: &str) -> bool {
        let direct = |candidate: &str| match self {
            Self::Any => true,
            Self::Names(names) => names.iter().any(|known| known == candidate),
            Self::Pattern(pattern) => pattern.is_match(candidate),
        };
        direct(name)
            || CLAUDE_TOOL_NAMES
                .iter()
                .filter(|(_, tools)| tools.contains(&name))
                .any(|(claude, _)| direct(claude))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_their_names_and_refuse_others() {
        for event in HookEvent::ALL {
            assert_eq!(event.as_str().parse::<HookEvent>(), Ok(event));
        }
        let error = "PreToolUs".parse::<HookEvent>().unwrap_err();
        assert!(error.contains("PreToolUse"), "{error}");
    }

    #[test]
    fn matchers_take_names_regexes_and_claude_names() {
        let any = ToolMatcher::parse("").unwrap();
        assert!(any.matches("read_file"));
        let names = ToolMatcher::parse("write_file|edit_file").unwrap();
        assert!(names.matches("edit_file"));
        assert!(!names.matches("edit_files"));
        assert!(!names.matches("read_file"));
        let pattern = ToolMatcher::parse("mcp__.*").unwrap();
        assert!(pattern.matches("mcp__search"));
        assert!(!pattern.matches("xmcp__search"));
        let claude = ToolMatcher::parse("Write|Edit").unwrap();
        assert!(claude.matches("write_file"));
        assert!(claude.matches("edit_file"));
        assert!(!claude.matches("run_command"));
        assert!(ToolMatcher::parse("Bash").unwrap().matches("run_command"));
    }

    #[test]
    fn a_broken_regex_is_refused_with_the_reason() {
        let error = ToolMatcher::parse("write_(file").unwrap_err();
        assert!(error.contains("regular expression"), "{error}");
    }
}
