//! hone's events as ACP `session/update`s: message and thought chunks, tool calls with
//! kind, title, absolute locations and diffs, and the guided step as a plan.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema as acp;
use hone_api::{Event, HistoryEntry};

use crate::diff_text::{FileText, file_texts};
use serde_json::Value;

/// What one session's updates need to remember between events.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    /// The project root; every path the editor sees is absolute under it.
    root: PathBuf,
    /// Tool calls in flight: name and the files they touch.
    calls: HashMap<String, CallInfo>,
    /// The guided step's plan, when the turn has one.
    plan: Option<Vec<(String, acp::PlanEntryStatus)>>,
}

#[derive(Debug, Clone, Default)]
struct CallInfo {
    name: String,
    /// Each edited file's text before and after the edit, from the proposed diff.
    texts: Vec<(PathBuf, FileText)>,
}

/// The ACP kind of a hone tool.
pub(crate) fn kind_of(tool: &str) -> acp::ToolKind {
    match tool {
        "read_file" | "list_dir" | "get_outline" | "get_structure" | "get_function"
        | "get_class" | "file_hash" | "git_status" | "git_diff" | "git_log" | "repo_map"
        | "get_dependencies" | "get_dependents" | "get_complexity" | "get_todos" => {
            acp::ToolKind::Read
        }
        "search_files" | "glob_files" | "find_definition" | "find_references" => {
            acp::ToolKind::Search
        }
        "edit_file" | "edit_lines" | "write_file" | "apply_patch" => acp::ToolKind::Edit,
        "delete_file" => acp::ToolKind::Delete,
        "move_file" | "rename_symbol" => acp::ToolKind::Move,
        "run_command" | "run_tests" | "run_background" | "check_background" | "stop_background"
        | "git_commit" => acp::ToolKind::Execute,
        _ => acp::ToolKind::Other,
    }
}

/// A short title: the tool and what it works on.
fn title_of(tool: &str, arguments: &Value) -> String {
    let detail = [
        "path", "command", "pattern", "query", "from", "name", "symbol",
    ]
    .iter()
    .find_map(|key| arguments.get(key).and_then(Value::as_str));
    match detail {
        Some(detail) => format!("{tool} {detail}"),
        None => tool.to_string(),
    }
}

/// The files a call names, absolute under `root`.
fn paths_of(root: &Path, arguments: &Value) -> Vec<PathBuf> {
    ["path", "from", "to"]
        .iter()
        .filter_map(|key| arguments.get(key).and_then(Value::as_str))
        .map(|path| root.join(path))
        .collect()
}

fn text(text: impl Into<String>) -> acp::ContentBlock {
    acp::ContentBlock::Text(acp::TextContent::new(text))
}

fn locations(paths: &[PathBuf]) -> Vec<acp::ToolCallLocation> {
    paths.iter().map(acp::ToolCallLocation::new).collect()
}

impl Tracker {
    /// A tracker for a session in `root`.
    pub(crate) fn new(root: PathBuf) -> Self {
        Self {
            root,
            ..Self::default()
        }
    }

    /// The updates `event` makes (none for events an editor does not show).
    pub(crate) fn updates(&mut self, event: &Event) -> Vec<acp::SessionUpdate> {
        match event {
            Event::MessageDelta { text: delta } => vec![acp::SessionUpdate::AgentMessageChunk(
                acp::ContentChunk::new(text(delta.clone())),
            )],
            Event::ThinkingDelta { text: delta } => vec![acp::SessionUpdate::AgentThoughtChunk(
                acp::ContentChunk::new(text(delta.clone())),
            )],
            Event::ToolRequested {
                call_id,
                name,
                arguments,
            } => {
                let paths = paths_of(&self.root, arguments);
                self.calls.insert(
                    call_id.clone(),
                    CallInfo {
                        name: name.clone(),
                        texts: Vec::new(),
                    },
                );
                vec![acp::SessionUpdate::ToolCall(
                    acp::ToolCall::new(call_id.clone(), title_of(name, arguments))
                        .kind(kind_of(name))
                        .status(acp::ToolCallStatus::Pending)
                        .locations(locations(&paths))
                        .raw_input(arguments.clone()),
                )]
            }
            Event::DiffProposed { call_id, diff } => {
                let root = self.root.clone();
                let info = self.calls.entry(call_id.clone()).or_default();
                // From the diff, not the disk: the edit may have been planned on an editor's
                // unsaved buffer.
                info.texts = file_texts(diff)
                    .into_iter()
                    .map(|file| (root.join(&file.path), file))
                    .collect();
                Vec::new()
            }
            Event::ToolApproved { call_id, .. } => {
                vec![self.update(
                    call_id,
                    acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::InProgress),
                )]
            }
            Event::ToolDenied { call_id, reason } => {
                self.calls.remove(call_id);
                vec![
                    self.update(
                        call_id,
                        acp::ToolCallUpdateFields::new()
                            .status(acp::ToolCallStatus::Failed)
                            .content(vec![text(format!("refused: {reason}")).into()]),
                    ),
                ]
            }
            Event::DiffApplied { call_id, paths, .. } => {
                let info = self.calls.get(call_id).cloned().unwrap_or_default();
                let content: Vec<acp::ToolCallContent> = paths
                    .iter()
                    .map(|path| {
                        let absolute = self.root.join(path);
                        let text = info
                            .texts
                            .iter()
                            .find(|(known, _)| *known == absolute)
                            .map(|(_, file)| file.clone());
                        let (before, after) =
                            text.map_or((None, String::new()), |file| (file.old, file.new));
                        acp::Diff::new(absolute, after).old_text(before).into()
                    })
                    .collect();
                let absolute: Vec<PathBuf> =
                    paths.iter().map(|path| self.root.join(path)).collect();
                vec![
                    self.update(
                        call_id,
                        acp::ToolCallUpdateFields::new()
                            .content(content)
                            .locations(locations(&absolute)),
                    ),
                ]
            }
            Event::ToolCompleted {
                call_id,
                output,
                is_error,
                ..
            } => {
                let info = self.calls.remove(call_id).unwrap_or_default();
                let status = if *is_error {
                    acp::ToolCallStatus::Failed
                } else {
                    acp::ToolCallStatus::Completed
                };
                let mut fields = acp::ToolCallUpdateFields::new().status(status);
                // An edit's content is its diff, already sent; other calls show their output.
                if kind_of(&info.name) != acp::ToolKind::Edit || *is_error {
                    fields = fields.content(vec![text(output.clone()).into()]);
                }
                vec![self.update(call_id, fields)]
            }
            Event::TurnStep { task, guided: true } => {
                let step = match task {
                    Some(task) => format!("{} (guided step)", task.as_str()),
                    None => "guided step".to_string(),
                };
                self.plan = Some(vec![
                    (
                        "Find the code the request names".into(),
                        acp::PlanEntryStatus::Completed,
                    ),
                    (step, acp::PlanEntryStatus::InProgress),
                    ("Check the changes".into(), acp::PlanEntryStatus::Pending),
                ]);
                self.plan_update()
            }
            Event::ChecksStarted { .. } => self.advance_plan(2),
            Event::TurnCompleted { .. }
            | Event::TurnFailed { .. }
            | Event::TurnCancelled { .. } => {
                let updates = self.advance_plan(3);
                self.plan = None;
                updates
            }
            Event::Warning { message } => vec![notice(&format!("hone: {message}"))],
            Event::Error { error } => vec![notice(&format!("hone: {}", error.message))],
            Event::McpStatus { servers } => servers
                .iter()
                .filter_map(|server| {
                    server.error.as_ref().map(|error| {
                        notice(&format!(
                            "hone: MCP server `{}` failed to start: {error}",
                            server.name
                        ))
                    })
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn update(&self, call_id: &str, fields: acp::ToolCallUpdateFields) -> acp::SessionUpdate {
        acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(call_id.to_string(), fields))
    }

    /// Marks the plan's entries before `done` completed and the one at `done` in progress.
    fn advance_plan(&mut self, done: usize) -> Vec<acp::SessionUpdate> {
        let Some(plan) = self.plan.as_mut() else {
            return Vec::new();
        };
        for (index, entry) in plan.iter_mut().enumerate() {
            entry.1 = if index < done {
                acp::PlanEntryStatus::Completed
            } else if index == done {
                acp::PlanEntryStatus::InProgress
            } else {
                acp::PlanEntryStatus::Pending
            };
        }
        self.plan_update()
    }

    fn plan_update(&self) -> Vec<acp::SessionUpdate> {
        let Some(plan) = &self.plan else {
            return Vec::new();
        };
        let entries = plan
            .iter()
            .map(|(content, status)| {
                acp::PlanEntry::new(
                    content.clone(),
                    acp::PlanEntryPriority::Medium,
                    status.clone(),
                )
            })
            .collect();
        vec![acp::SessionUpdate::Plan(acp::Plan::new(entries))]
    }

    /// A saved conversation replayed as updates (`session/load`).
    pub(crate) fn replay(&self, entries: &[HistoryEntry]) -> Vec<acp::SessionUpdate> {
        let mut names: HashMap<&str, &str> = HashMap::new();
        entries
            .iter()
            .map(|entry| match entry {
                HistoryEntry::User { text: said } => {
                    acp::SessionUpdate::UserMessageChunk(acp::ContentChunk::new(text(said.clone())))
                }
                HistoryEntry::Assistant { text: said } => acp::SessionUpdate::AgentMessageChunk(
                    acp::ContentChunk::new(text(said.clone())),
                ),
                HistoryEntry::Thinking { text: thought } => acp::SessionUpdate::AgentThoughtChunk(
                    acp::ContentChunk::new(text(thought.clone())),
                ),
                HistoryEntry::ToolCall {
                    call_id,
                    name,
                    arguments,
                } => {
                    names.insert(call_id, name);
                    acp::SessionUpdate::ToolCall(
                        acp::ToolCall::new(call_id.clone(), title_of(name, arguments))
                            .kind(kind_of(name))
                            .status(acp::ToolCallStatus::Pending)
                            .locations(locations(&paths_of(&self.root, arguments)))
                            .raw_input(arguments.clone()),
                    )
                }
                HistoryEntry::ToolResult {
                    call_id,
                    output,
                    is_error,
                } => self.update(
                    call_id,
                    acp::ToolCallUpdateFields::new()
                        .status(if *is_error {
                            acp::ToolCallStatus::Failed
                        } else {
                            acp::ToolCallStatus::Completed
                        })
                        .content(vec![text(output.clone()).into()]),
                ),
            })
            .collect()
    }
}

/// A line for the user, shown as part of the agent's message.
pub(crate) fn notice(line: &str) -> acp::SessionUpdate {
    acp::SessionUpdate::AgentMessageChunk(acp::ContentChunk::new(text(format!("\n{line}\n"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_call_names_its_kind_and_absolute_locations() {
        let mut tracker = Tracker::new(PathBuf::from("/work/app"));
        let updates = tracker.updates(&Event::ToolRequested {
            call_id: "c1".into(),
            name: "read_file".into(),
            arguments: json!({"path": "src/a.rs"}),
        });
        let wire = serde_json::to_value(&updates[0]).unwrap();
        assert_eq!(wire["sessionUpdate"], "tool_call");
        assert_eq!(wire["kind"], "read");
        assert_eq!(wire["title"], "read_file src/a.rs");
        assert_eq!(wire["locations"][0]["path"], "/work/app/src/a.rs");
    }

    #[test]
    fn an_applied_edit_is_a_diff_of_the_file_before_and_after() {
        let dir = std::env::temp_dir().join(format!("hone-acp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_default();
        std::fs::write(dir.join("a.txt"), "old\n").unwrap_or_default();
        let mut tracker = Tracker::new(dir.clone());
        tracker.updates(&Event::DiffProposed {
            call_id: "c1".into(),
            diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n".into(),
        });
        std::fs::write(dir.join("a.txt"), "new\n").unwrap_or_default();
        let updates = tracker.updates(&Event::DiffApplied {
            call_id: "c1".into(),
            paths: vec!["a.txt".into()],
            diff: String::new(),
        });
        let wire = serde_json::to_value(&updates[0]).unwrap();
        assert_eq!(wire["content"][0]["type"], "diff");
        assert_eq!(wire["content"][0]["oldText"], "old\n");
        assert_eq!(wire["content"][0]["newText"], "new\n");
        assert_eq!(
            wire["content"][0]["path"],
            dir.join("a.txt").display().to_string()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_guided_step_is_a_plan_that_advances() {
        let mut tracker = Tracker::new(PathBuf::from("/p"));
        let plan = tracker.updates(&Event::TurnStep {
            task: Some(hone_api::TaskKind::Change),
            guided: true,
        });
        let wire = serde_json::to_value(&plan[0]).unwrap();
        assert_eq!(wire["sessionUpdate"], "plan");
        assert_eq!(wire["entries"][1]["status"], "in_progress");
        let checks = tracker.updates(&Event::ChecksStarted { files: vec![] });
        let wire = serde_json::to_value(&checks[0]).unwrap();
        assert_eq!(wire["entries"][2]["status"], "in_progress");
    }
}
