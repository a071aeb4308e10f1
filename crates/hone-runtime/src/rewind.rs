//! Rewinding a saved session to before one of the user's prompts: the points a front end
//! offers, and the rewind itself (files through the undo journal, conversation cut back, in
//! place or as a fork).

use hone_api::{RewindPoint, UndoEntry};
use hone_memory::{Rewind, SessionStore, StoredMessage, UndoError, edits_since};
pub use hone_memory::{RewindFiles, RewindTarget};
use hone_protocol::{ErrorCategory, HoneError};
use hone_tools::ToolContext;

use crate::error::{RuntimeError, store_error};
use crate::runtime::Runtime;

/// How to rewind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RewindOptions {
    /// Restore the files, or only the conversation.
    pub files: RewindFiles,
    /// In place, or as a fork.
    pub target: RewindTarget,
}

/// What a rewind did.
#[derive(Debug, Clone, PartialEq)]
pub struct Rewound {
    /// The session that now ends before the prompt (the fork when forked).
    pub session_id: String,
    /// The session it was forked from, when forked.
    pub forked_from: Option<String>,
    /// The prompt's text, to edit and send again.
    pub text: String,
    /// The edits taken back, newest first.
    pub undone: Vec<UndoEntry>,
}

/// The user's prompts among `messages`: (index in `messages`, text), oldest first. Tool
/// results, hone's own notes and tracked-file snapshots are not prompts.
fn prompts(messages: &[StoredMessage]) -> Vec<(usize, String)> {
    messages
        .iter()
        .enumerate()
        .filter(|(_, stored)| hone_context::is_request(&stored.message))
        .map(|(at, stored)| (at, hone_context::request_text(&stored.message)))
        .collect()
}

impl Runtime {
    fn project_context(&self) -> Result<ToolContext, HoneError> {
        ToolContext::new(self.root()).map_err(|error| {
            HoneError::config(format!(
                "cannot use {} as the project root: {error}",
                self.root().display()
            ))
        })
    }

    /// The prompts of the project's saved session `id` (a unique start of one, or `last`),
    /// oldest first, each with the edits the session made since.
    pub fn rewind_points(&self, id: &str) -> Result<Vec<RewindPoint>, RuntimeError> {
        let context = self.project_context()?;
        let depth = self.config().undo_depth();
        self.sessions().with_store(|store| {
            let session = self.sessions().existing(store, id)?;
            let messages = store.messages(&session.id)?;
            let edits = edits_since(store, &context, &session.id, i64::MIN, depth)?;
            Ok(prompts(&messages)
                .into_iter()
                .zip(1_u32..)
                .map(|((at, text), prompt)| {
                    let sent_ms = messages[at].created_ms;
                    let since = edits.iter().filter(|edit| edit.applied_ms >= sent_ms);
                    RewindPoint {
                        prompt,
                        text,
                        sent_ms,
                        edits_since: u32::try_from(since.count()).unwrap_or(u32::MAX),
                    }
                })
                .collect())
        })
    }

    /// Rewinds the project's saved session `id` to before its prompt number `prompt` (from
    /// 1). A file the session changed that someone changed since refuses the rewind (a tool
    /// error), and nothing changes.
    pub fn rewind(
        &self,
        id: &str,
        prompt: u32,
        options: RewindOptions,
    ) -> Result<Rewound, RuntimeError> {
        let context = self.project_context()?;
        let depth = self.config().undo_depth();
        self.sessions().with_store(|store| {
            let session = self.sessions().existing(store, id)?;
            let messages = store.messages(&session.id)?;
            let found = prompts(&messages);
            let count = found.len();
            let index = usize::try_from(prompt).unwrap_or(usize::MAX);
            let Some((at, text)) = index
                .checked_sub(1)
                .and_then(|at| found.into_iter().nth(at))
            else {
                return Err(HoneError::config(match count {
                    0 => format!("session {} has no prompt to rewind to", session.id),
                    _ => format!(
                        "no prompt {prompt} in session {}: choose 1 to {count}",
                        session.id
                    ),
                })
                .into());
            };
            let stored = &messages[at];
            let rewind = Rewind {
                keep: stored.seq.saturating_sub(1),
                since_ms: stored.created_ms,
                files: options.files,
                target: options.target,
            };
            let report = run(store, &context, &session.id, &rewind, depth)?;
            Ok(Rewound {
                forked_from: (report.session.id != session.id).then(|| session.id.clone()),
                session_id: report.session.id,
                text,
                undone: report.undone,
            })
        })
    }
}

fn run(
    store: &mut SessionStore,
    context: &ToolContext,
    id: &str,
    rewind: &Rewind,
    depth: usize,
) -> Result<hone_memory::RewindReport, RuntimeError> {
    hone_memory::rewind(store, context, id, rewind, depth).map_err(|error| match error {
        UndoError::Revert(error) => {
            HoneError::new(ErrorCategory::Tool, format!("cannot rewind: {error}")).into()
        }
        UndoError::Store(error) => store_error(error).into(),
    })
}

#[cfg(test)]
mod tests {
    use hone_memory::MessageStats;
    use hone_protocol::{ContentBlock, Message, Role, ToolResult};

    use super::*;

    fn stored(message: Message) -> StoredMessage {
        StoredMessage {
            seq: 1,
            message,
            stats: MessageStats::default(),
            created_ms: 0,
        }
    }

    #[test]
    fn tool_results_and_notes_are_not_prompts() {
        let result = Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(ToolResult {
                call_id: "c1".into(),
                name: "read_file".into(),
                content: "text".into(),
                is_error: false,
                effect: Default::default(),
            })],
        };
        let messages = vec![
            stored(Message::user("fix the bug")),
            stored(Message::assistant("done")),
            stored(result),
            stored(Message::user("[hone] a note")),
            stored(Message::user("now the tests")),
        ];
        let found = prompts(&messages);
        assert_eq!(
            found,
            vec![
                (0, "fix the bug".to_string()),
                (4, "now the tests".to_string())
            ]
        );
    }
}
