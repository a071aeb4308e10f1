//! Hooks: the user's commands run at points of a session (before and after tool calls, when a
//! prompt is sent, at the end of a turn, at the start of a session, before compaction), in
//! the schema of Claude Code's and Codex's hooks.
//!
//! A hook gets the event as JSON on stdin (`session_id`, `cwd`, `hook_event_name`, and
//! `tool_name`, `tool_input`, `tool_response` or `prompt` as the event has them). Exit code
//! 2 blocks what the event is about and its stderr says why; exit 0 with a JSON reply on
//! stdout may block too (`{"decision": "block", "reason": …}`, or
//! `hookSpecificOutput.permissionDecision = "deny"`) or add context for the model
//! (`additionalContext`); any other exit is a warning and the session goes on. Hooks run
//! like the model's commands (under the sandbox, without secrets in their environment) and
//! the command policy's deny rules apply to them.

use std::time::Duration;

use globset::GlobMatcher;
use hone_api::Event;
use hone_protocol::{HookEvent, ToolMatcher};
use hone_tools::command::{RunEnding, run_with_input};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::session::Agent;

/// One hook, ready to match and run.
#[derive(Debug, Clone)]
pub struct Hook {
    event: HookEvent,
    matcher: ToolMatcher,
    paths: Option<GlobMatcher>,
    command: String,
    timeout: Duration,
}

impl Hook {
    /// A hook for `event` running `command` (with `sh -c`) for at most `timeout`; `matcher`
    /// and `paths` restrict tool events to some tools and paths. The error says what is
    /// wrong with `matcher` or `paths`.
    pub fn new(
        event: HookEvent,
        matcher: Option<&str>,
        paths: Option<&str>,
        command: &str,
        timeout: Duration,
    ) -> Result<Self, String> {
        let matcher = ToolMatcher::parse(matcher.unwrap_or(""))?;
        let paths = paths
            .map(|glob| {
                globset::GlobBuilder::new(glob)
                    .literal_separator(true)
                    .build()
                    .map(|glob| glob.compile_matcher())
                    .map_err(|error| format!("`paths` is not a valid glob: {error}"))
            })
            .transpose()?;
        Ok(Self {
            event,
            matcher,
            paths,
            command: command.to_string(),
            timeout,
        })
    }

    /// Whether the hook runs for `event`, and for a tool event, for the tool `tool` called
    /// with `input`.
    fn applies(&self, event: HookEvent, tool: Option<(&str, &Value)>) -> bool {
        if self.event != event {
            return false;
        }
        let Some((name, input)) = tool else {
            return true;
        };
        if !self.matcher.matches(name) {
            return false;
        }
        match &self.paths {
            None => true,
            Some(glob) => ["path", "file_path"]
                .iter()
                .filter_map(|key| input.get(key).and_then(Value::as_str))
                .any(|path| glob.is_match(path.trim_start_matches("./"))),
        }
    }
}

/// The hooks of a session (none by default).
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    hooks: Vec<Hook>,
    /// Context SessionStart hooks gave, added to the next prompt.
    pending_context: Vec<String>,
}

impl Hooks {
    /// Runs `hooks`, in order, at their events.
    pub fn new(hooks: Vec<Hook>) -> Self {
        Self {
            hooks,
            pending_context: Vec::new(),
        }
    }

    /// Whether any hook watches tool calls (reads then run one at a time, through them).
    pub(crate) fn watches_tools(&self) -> bool {
        self.hooks.iter().any(|hook| hook.event.is_tool_event())
    }
}

/// What the hooks of one event decided.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// Why a hook blocked the call or prompt, when one did.
    pub(crate) blocked: Option<String>,
    /// Context for the model.
    pub(crate) context: Vec<String>,
}

/// What one hook's run said.
#[derive(Debug, PartialEq, Eq)]
enum Reply {
    /// Go on, with this context for the model, if any.
    Continue(Option<String>),
    /// Block, for this reason.
    Block(String),
    /// The hook failed; a warning for the user.
    Failed(String),
}

/// Reads a hook's run: exit 2 blocks with stderr; exit 0 may carry a JSON decision or, for
/// prompt and session events, plain text that becomes context.
fn read_reply(event: HookEvent, ending: &RunEnding, stdout: &str, stderr: &str) -> Reply {
    match ending {
        RunEnding::Exited(Some(0)) => {}
        RunEnding::Exited(Some(2)) => {
            let reason = stderr.trim();
            return Reply::Block(if reason.is_empty() {
                "blocked by a hook (no reason given)".to_string()
            } else {
                reason.to_string()
            });
        }
        RunEnding::Exited(Some(code)) => {
            return Reply::Failed(format!("exit code {code}: {}", first_line(stderr)));
        }
        RunEnding::Exited(None) => return Reply::Failed("killed by a signal".to_string()),
        RunEnding::TimedOut => return Reply::Failed("timed out".to_string()),
        RunEnding::Cancelled => return Reply::Failed("cancelled".to_string()),
        RunEnding::NotStarted(reason) => return Reply::Failed(reason.clone()),
    }
    let text = stdout.trim();
    let Ok(Value::Object(reply)) = serde_json::from_str::<Value>(text) else {
        let plain_is_context =
            matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart);
        return Reply::Continue((plain_is_context && !text.is_empty()).then(|| text.to_string()));
    };
    let specific = reply.get("hookSpecificOutput").and_then(Value::as_object);
    let text_of = |map: Option<&Map<String, Value>>, key: &str| {
        map.and_then(|map| map.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let denied = text_of(specific, "permissionDecision").as_deref() == Some("deny")
        || text_of(Some(&reply), "decision").as_deref() == Some("block")
        || reply.get("continue") == Some(&Value::Bool(false));
    if denied {
        let reason = text_of(specific, "permissionDecisionReason")
            .or_else(|| text_of(Some(&reply), "reason"))
            .or_else(|| text_of(Some(&reply), "stopReason"))
            .unwrap_or_else(|| "blocked by a hook (no reason given)".to_string());
        return Reply::Block(reason);
    }
    Reply::Continue(
        text_of(specific, "additionalContext")
            .or_else(|| text_of(Some(&reply), "additionalContext")),
    )
}

fn first_line(text: &str) -> &str {
    text.trim().lines().next().unwrap_or("")
}

impl Agent {
    /// Runs the hooks of `event` (for a tool event, those matching `tool`) with `fields`
    /// added to the event's JSON, in order, until one blocks.
    pub(crate) async fn run_hooks(
        &mut self,
        event: HookEvent,
        tool: Option<(&str, &Value)>,
        fields: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Verdict {
        let mut verdict = Verdict::default();
        let hooks: Vec<Hook> = self
            .hooks
            .hooks
            .iter()
            .filter(|hook| hook.applies(event, tool))
            .cloned()
            .collect();
        if hooks.is_empty() {
            return verdict;
        }
        let mut input = Map::new();
        input.insert("session_id".into(), json!(self.hook_session_id()));
        input.insert(
            "cwd".into(),
            json!(self.context.root().display().to_string()),
        );
        input.insert("hook_event_name".into(), json!(event.as_str()));
        input.extend(fields);
        let input = Value::Object(input).to_string();
        for hook in hooks {
            if let hone_policy::Decision::Deny { reason } =
                self.permissions.decide_check(&hook.command)
            {
                self.emit(Event::Warning {
                    message: format!("{event} hook `{}` not run: {reason}", hook.command),
                });
                continue;
            }
            let run = run_with_input(
                &self.context,
                &hook.command,
                input.as_bytes(),
                hook.timeout,
                cancel,
            )
            .await;
            match read_reply(event, &run.ending, &run.stdout, &run.stderr) {
                Reply::Continue(context) => verdict.context.extend(context),
                Reply::Block(reason) => {
                    verdict.blocked = Some(reason);
                    return verdict;
                }
                Reply::Failed(problem) => self.emit(Event::Warning {
                    message: format!(
                        "{event} hook `{}` failed ({problem}); going on",
                        hook.command
                    ),
                }),
            }
        }
        verdict
    }

    /// The session id hooks are told: the saved session's, or `unsaved`.
    fn hook_session_id(&self) -> String {
        self.recorder.as_ref().map_or_else(
            || "unsaved".to_string(),
            |recorder| recorder.session_id().to_string(),
        )
    }

    /// Runs the SessionStart hooks; what they say is added to the first prompt.
    pub(crate) async fn session_start_hooks(&mut self) {
        let verdict = self
            .run_hooks(
                HookEvent::SessionStart,
                None,
                Map::from_iter([("source".to_string(), json!("startup"))]),
                &CancellationToken::new(),
            )
            .await;
        self.hooks.pending_context.extend(verdict.context);
    }

    /// Runs the UserPromptSubmit hooks on `text`: the prompt with the context they (and
    /// SessionStart hooks) added, or why one blocked it.
    pub(crate) async fn prompt_hooks(
        &mut self,
        text: String,
        cancel: &CancellationToken,
    ) -> Result<String, String> {
        let verdict = self
            .run_hooks(
                HookEvent::UserPromptSubmit,
                None,
                Map::from_iter([("prompt".to_string(), json!(text))]),
                cancel,
            )
            .await;
        if let Some(reason) = verdict.blocked {
            return Err(reason);
        }
        let mut context = std::mem::take(&mut self.hooks.pending_context);
        context.extend(verdict.context);
        Ok(with_context(text, &context))
    }

    /// Runs the Stop hooks at the end of a turn (they cannot make the turn go on).
    pub(crate) async fn stop_hooks(&mut self) {
        let fields = Map::from_iter([("stop_hook_active".to_string(), json!(false))]);
        let cancel = CancellationToken::new();
        self.run_hooks(HookEvent::Stop, None, fields, &cancel).await;
    }

    /// Runs the PreCompact hooks (`manual`: the user asked for the compaction).
    pub(crate) async fn pre_compact_hooks(&mut self, manual: bool, cancel: &CancellationToken) {
        let trigger = if manual { "manual" } else { "auto" };
        let fields = Map::from_iter([
            ("trigger".to_string(), json!(trigger)),
            ("custom_instructions".to_string(), json!("")),
        ]);
        self.run_hooks(HookEvent::PreCompact, None, fields, cancel)
            .await;
    }
}

/// `text` followed by the hooks' `context`, each in a marked block.
pub(crate) fn with_context(mut text: String, context: &[String]) -> String {
    for item in context {
        text.push_str("\n\n[context from a hook]\n");
        text.push_str(item.trim_end());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(matcher: Option<&str>, paths: Option<&str>) -> Hook {
        Hook::new(
            HookEvent::PreToolUse,
            matcher,
            paths,
            "true",
            Duration::from_secs(1),
        )
        .unwrap()
    }

    #[test]
    fn hooks_match_event_tool_and_path() {
        let input = json!({"path": "src/main.rs"});
        let any = hook(None, None);
        assert!(any.applies(HookEvent::PreToolUse, Some(("read_file", &input))));
        assert!(!any.applies(HookEvent::PostToolUse, Some(("read_file", &input))));
        let writes = hook(Some("Write|edit_file"), Some("src/**/*.rs"));
        assert!(writes.applies(HookEvent::PreToolUse, Some(("write_file", &input))));
        assert!(!writes.applies(HookEvent::PreToolUse, Some(("read_file", &input))));
        let elsewhere = json!({"path": "docs/a.md"});
        assert!(!writes.applies(HookEvent::PreToolUse, Some(("write_file", &elsewhere))));
        let no_path = json!({"command": "ls"});
        assert!(!writes.applies(HookEvent::PreToolUse, Some(("edit_file", &no_path))));
    }

    #[test]
    fn a_bad_glob_is_refused() {
        let error = Hook::new(
            HookEvent::PreToolUse,
            None,
            Some("src/["),
            "true",
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(error.contains("`paths`"), "{error}");
    }

    #[test]
    fn exit_two_blocks_with_stderr_and_other_codes_warn() {
        let pre = HookEvent::PreToolUse;
        assert_eq!(
            read_reply(pre, &RunEnding::Exited(Some(2)), "", "no writes to src\n"),
            Reply::Block("no writes to src".into())
        );
        assert!(matches!(
            read_reply(pre, &RunEnding::Exited(Some(1)), "", "boom"),
            Reply::Failed(problem) if problem.contains("boom")
        ));
        assert!(matches!(
            read_reply(pre, &RunEnding::TimedOut, "", ""),
            Reply::Failed(_)
        ));
        assert_eq!(
            read_reply(pre, &RunEnding::Exited(Some(0)), "ok\n", ""),
            Reply::Continue(None)
        );
    }

    #[test]
    fn json_replies_block_or_add_context() {
        let zero = RunEnding::Exited(Some(0));
        let pre = HookEvent::PreToolUse;
        assert_eq!(
            read_reply(pre, &zero, r#"{"decision":"block","reason":"no"}"#, ""),
            Reply::Block("no".into())
        );
        let claude = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"protected"}}"#;
        assert_eq!(
            read_reply(pre, &zero, claude, ""),
            Reply::Block("protected".into())
        );
        let allow = r#"{"hookSpecificOutput":{"permissionDecision":"allow","additionalContext":"mind the tests"}}"#;
        assert_eq!(
            read_reply(pre, &zero, allow, ""),
            Reply::Continue(Some("mind the tests".into()))
        );
        assert_eq!(
            read_reply(HookEvent::UserPromptSubmit, &zero, "today is Monday\n", ""),
            Reply::Continue(Some("today is Monday".into()))
        );
    }
}
