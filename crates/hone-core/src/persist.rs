//! Keeping a session on disk: messages as they enter the history, totals at each turn's
//! end, every applied edit in the project's undo journal, and undo itself.
//!
//! Without a [`Persistence`] the session keeps its undo stack in memory only.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use hone_memory::{
    JournalEntry, MessageStats, SessionStats, SessionStore, UndoEntry, UndoError, resume_history,
};
use hone_protocol::{ErrorCategory, HoneError, Message, Role, Usage};
use hone_tools::edit::AppliedEdit;
use hone_tools::{EditPlan, ToolContext, ToolError};
use tokio::task::JoinError;

use crate::session::Agent;
use hone_api::{Event, EventFrame, TurnStats};

/// Where a session is kept: `SessionConfig::memory`.
pub struct Persistence {
    /// The store; the session's row must exist (`SessionStore::create` or `fork`).
    pub store: SessionStore,
    /// The session's id.
    pub session_id: String,
    /// Whether the session's stored messages are loaded into the history (resume, fork).
    pub resumed: bool,
    /// Edits per project the undo stack keeps (`[memory] undo_depth`).
    pub undo_depth: usize,
    /// The stored messages as `hone_memory::resume_history` repaired them, when the caller
    /// already read them (to show them); `None` reads them from the store when resuming.
    pub history: Option<Vec<Message>>,
}

/// Writes a running session to its store.
pub(crate) struct Recorder {
    store: Mutex<SessionStore>,
    session_id: String,
    project: String,
    tally: Mutex<Tally>,
    warned: AtomicBool,
    /// What could not be saved since the store last failed, kept until the user chooses.
    unsaved: Mutex<Unsaved>,
}

/// Writes held back after the store failed: retried in order, or dropped, by the user's
/// choice before the next model request (see `Agent::settle_storage`).
#[derive(Debug, Default)]
struct Unsaved {
    /// The first failure not yet settled.
    error: Option<String>,
    /// Messages not stored, oldest first (later ones wait behind them to keep the order).
    messages: VecDeque<(Message, MessageStats)>,
    /// The context state is to be saved again.
    context: bool,
}

/// What happened since the last turn end, for the session's totals.
#[derive(Debug, Default)]
struct Tally {
    /// Usage of the model request whose message is not stored yet.
    usage: Option<Usage>,
    /// Calls that proposed an edit, and those whose edit was written.
    proposed: HashSet<String>,
    applied: HashSet<String>,
    edits_applied: u64,
    edits_rejected: u64,
}

/// The undo stack of a session without a store, oldest first.
#[derive(Debug, Default)]
pub(crate) struct MemoryJournal {
    entries: Vec<(UndoEntry, AppliedEdit)>,
    next_seq: i64,
}

/// How far the undo stack reaches, and where it lives.
pub(crate) struct Undo {
    pub(crate) depth: usize,
    pub(crate) journal: MemoryJournal,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A session as it was saved: its history (repaired so providers accept it) and the
/// context manager's state, when resuming.
#[derive(Debug, Default)]
pub(crate) struct Saved {
    pub(crate) history: Vec<Message>,
    pub(crate) context_state: Option<serde_json::Value>,
}

/// Opens the session's record: checks it exists, records the model, and returns what was
/// saved when resuming.
pub(crate) fn open(
    persistence: Option<Persistence>,
    context: &ToolContext,
    provider: &str,
    model: &str,
) -> Result<(Option<Recorder>, Saved), HoneError> {
    let Some(Persistence {
        mut store,
        session_id,
        resumed,
        history,
        ..
    }) = persistence
    else {
        return Ok((None, Saved::default()));
    };
    let failed = |error: hone_memory::MemoryError| {
        HoneError::new(
            error.category(),
            format!("cannot open session {session_id}: {error}"),
        )
    };
    let info = store.find(&session_id).map_err(failed)?;
    store.set_model(&info.id, provider, model).map_err(failed)?;
    let saved = if resumed {
        Saved {
            history: match history {
                Some(history) => history,
                None => resume_history(store.messages(&info.id).map_err(failed)?),
            },
            context_state: store.context_state(&info.id).map_err(failed)?,
        }
    } else {
        Saved::default()
    };
    let recorder = Recorder {
        store: Mutex::new(store),
        session_id: info.id,
        project: hone_memory::project_key(context.root()),
        tally: Mutex::default(),
        warned: AtomicBool::new(false),
        unsaved: Mutex::default(),
    };
    Ok((Some(recorder), saved))
}

impl Recorder {
    /// The saved session's id.
    pub(crate) fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Leaves `text` for the next session of this project.
    pub(crate) fn leave_notice(&self, text: &str) -> Result<(), hone_memory::MemoryError> {
        lock(&self.store).push_notice(&self.project, &self.session_id, text)
    }

    /// The notices earlier sessions left for this project, taken once.
    pub(crate) fn take_notices(
        &self,
    ) -> Result<Vec<hone_memory::Notice>, hone_memory::MemoryError> {
        lock(&self.store).take_notices(&self.project)
    }
}

/// The undo depth of a session (`Persistence::undo_depth`, or the default without one).
pub(crate) fn undo_depth(persistence: Option<&Persistence>) -> usize {
    persistence
        .map_or(hone_memory::DEFAULT_UNDO_DEPTH, |persistence| {
            persistence.undo_depth
        })
        .max(1)
}

impl Agent {
    /// Appends `message` to the history, storing it first.
    pub(crate) fn push_history(&mut self, message: Message) {
        if let Some(recorder) = &self.recorder {
            let usage = match message.role {
                Role::Assistant => lock(&recorder.tally).usage.take(),
                Role::User => None,
            };
            let stats = MessageStats {
                model: (message.role == Role::Assistant).then(|| self.model.clone()),
                usage,
            };
            // The store (and so `hone sessions show` and exports) never keeps a secret.
            let redacted = self.audit.redactor().redact_message(&message);
            let mut unsaved = lock(&recorder.unsaved);
            if unsaved.error.is_some() {
                unsaved.messages.push_back((redacted, stats));
            } else {
                let stored =
                    lock(&recorder.store).append_message(&recorder.session_id, &redacted, &stats);
                if let Err(error) = stored {
                    unsaved.messages.push_back((redacted, stats));
                    drop(unsaved);
                    self.storage_failed(&error);
                }
            }
        }
        self.history.push(message);
    }

    /// Saves the context manager's state (task memory, summary, tracked files), so a
    /// resumed session continues with the same context.
    pub(crate) fn save_context(&self) {
        let Some(recorder) = &self.recorder else {
            return;
        };
        if let Err(error) = self.store_context(recorder) {
            lock(&recorder.unsaved).context = true;
            self.storage_failed(&error);
        }
    }

    /// Writes the context manager's state to the store, redacted.
    fn store_context(&self, recorder: &Recorder) -> Result<(), hone_memory::MemoryError> {
        let state = self.context_manager.snapshot();
        // The task memory quotes requests and results: no secret is kept there either (a
        // state that would not parse once redacted is not kept; a resume rebuilds it).
        let text = state.to_string();
        let state = match self.audit.redactor().redact(&text) {
            std::borrow::Cow::Borrowed(_) => state,
            std::borrow::Cow::Owned(redacted) => {
                serde_json::from_str(&redacted).unwrap_or(serde_json::Value::Null)
            }
        };
        lock(&recorder.store).set_context_state(&recorder.session_id, &state)
    }

    /// The store's failure not settled yet: what the user is asked about.
    pub(crate) fn unsettled_storage(&self) -> Option<String> {
        let recorder = self.recorder.as_ref()?;
        lock(&recorder.unsaved).error.clone()
    }

    /// Writes what was held back since the store failed, in order; the error when the
    /// store fails again (what is left stays held).
    pub(crate) fn save_held(&self) -> Result<(), String> {
        let Some(recorder) = &self.recorder else {
            return Ok(());
        };
        let mut unsaved = lock(&recorder.unsaved);
        while let Some((message, stats)) = unsaved.messages.front() {
            let stored = lock(&recorder.store).append_message(&recorder.session_id, message, stats);
            if let Err(error) = stored {
                unsaved.error = Some(error.to_string());
                return Err(error.to_string());
            }
            unsaved.messages.pop_front();
        }
        if unsaved.context {
            if let Err(error) = self.store_context(recorder) {
                unsaved.error = Some(error.to_string());
                return Err(error.to_string());
            }
            unsaved.context = false;
        }
        unsaved.error = None;
        Ok(())
    }

    /// Drops what was held back since the store failed: the session goes on unsaved.
    pub(crate) fn drop_held(&self) {
        if let Some(recorder) = &self.recorder {
            let mut unsaved = lock(&recorder.unsaved);
            let dropped = unsaved.messages.len();
            *unsaved = Unsaved::default();
            tracing::warn!(dropped, "messages the store failed to save were dropped");
        }
    }

    /// Follows the events a turn emits to keep the session's totals.
    pub(crate) fn observe(&self, event: &Event) {
        let Some(recorder) = &self.recorder else {
            return;
        };
        let mut tally = lock(&recorder.tally);
        match event {
            Event::Usage { usage } => tally.usage = Some(*usage),
            Event::DiffProposed { call_id, .. } => {
                tally.proposed.insert(call_id.clone());
            }
            Event::DiffApplied { call_id, .. } => {
                tally.applied.insert(call_id.clone());
            }
            Event::ToolCompleted { call_id, .. } if tally.proposed.remove(call_id) => {
                if tally.applied.remove(call_id) {
                    tally.edits_applied += 1;
                } else {
                    tally.edits_rejected += 1;
                }
            }
            Event::TurnCompleted { stats, .. }
            | Event::TurnFailed { stats, .. }
            | Event::TurnCancelled { stats } => {
                let delta = turn_totals(stats, &tally);
                *tally = Tally::default();
                drop(tally);
                let mut store = lock(&recorder.store);
                let mut stored = store.add_stats(&recorder.session_id, &delta);
                // A run that failed before any answer is not worth listing (or resuming
                // with `last`); the store leaves it out and deletes it later.
                if stored.is_ok() && matches!(event, Event::TurnFailed { .. }) {
                    stored = store
                        .mark_failed_if_unanswered(&recorder.session_id)
                        .map(|_| ());
                }
                drop(store);
                if let Err(error) = stored {
                    self.storage_failed(&error);
                }
            }
            _ => {}
        }
    }

    /// Journals an edit about to be written (as pending), so a process killed while
    /// writing leaves an entry undo can resolve.
    pub(crate) fn begin_edit(&self, plan: &EditPlan) -> Option<i64> {
        let recorder = self.recorder.as_ref()?;
        let edit = AppliedEdit {
            changes: plan.changes.clone(),
            summary: plan.summary.clone(),
        };
        let recorded =
            lock(&recorder.store).record_pending(&recorder.project, &recorder.session_id, &edit);
        recorded.map_err(|error| self.storage_failed(&error)).ok()
    }

    /// Settles the journal entry of an edit: applied, or dropped when nothing was written.
    /// An edit whose writer crashed stays pending; undo looks at the files.
    pub(crate) fn finish_edit(
        &mut self,
        pending: Option<i64>,
        outcome: &Result<Result<AppliedEdit, ToolError>, JoinError>,
    ) {
        let Some(recorder) = &self.recorder else {
            if let Ok(Ok(applied)) = outcome {
                self.undo.journal.push(applied.clone(), self.undo.depth);
            }
            return;
        };
        let Some(seq) = pending else {
            return;
        };
        let settled = match outcome {
            Ok(Ok(_)) => lock(&recorder.store).mark_applied(seq, self.undo.depth),
            Ok(Err(_)) => lock(&recorder.store).discard_edit(seq),
            Err(_) => Ok(()),
        };
        if let Err(error) = settled {
            self.storage_failed(&error);
        }
    }

    /// Reverts the latest `count` edits of the project through the undo journal (all or
    /// none): the files are as they were before them.
    pub(crate) fn revert_latest(&mut self, count: usize) -> Result<Vec<UndoEntry>, UndoError> {
        match &self.recorder {
            Some(recorder) => {
                let mut store = lock(&recorder.store);
                hone_memory::undo_latest(&mut store, &self.context, count, self.undo.depth)
                    .map(|report| report.undone)
            }
            None => self
                .undo
                .journal
                .undo(&self.context, count, self.undo.depth),
        }
    }

    /// Takes back the latest `count` edits of the project (all or none) and tells the model.
    pub(crate) fn undo(&mut self, count: usize) {
        let outcome = self.revert_latest(count);
        match outcome {
            Ok(undone) => {
                let summaries: Vec<String> =
                    undone.iter().map(|entry| entry.summary.clone()).collect();
                if !summaries.is_empty() {
                    let list: Vec<String> = summaries
                        .iter()
                        .map(|summary| format!("- {summary}"))
                        .collect();
                    self.push_history(Message::user(format!(
                        "[hone] The user undid these edits; the files are back to their \
                         earlier content (read them again before changing them):\n{}",
                        list.join("\n")
                    )));
                }
                self.emit(Event::UndoCompleted { undone: summaries });
            }
            Err(error) => {
                let conflict = matches!(
                    error,
                    UndoError::Revert(hone_memory::RevertError::Conflict { .. })
                );
                self.emit(Event::UndoFailed {
                    message: error.to_string(),
                    conflict,
                });
            }
        }
    }

    /// The undo stack, newest first.
    pub(crate) fn list_undo(&self) {
        let entries = match &self.recorder {
            Some(recorder) => lock(&recorder.store)
                .undo_stack(&recorder.project, self.undo.depth)
                .map(|stack| stack.iter().map(JournalEntry::entry).collect()),
            None => Ok(self.undo.journal.stack(self.undo.depth)),
        };
        match entries {
            Ok(entries) => self.emit(Event::UndoStack { entries }),
            Err(error) => self.emit(Event::UndoFailed {
                message: error.to_string(),
                conflict: false,
            }),
        }
    }

    /// Notes that saving failed: the next model request waits for the user's choice
    /// (retry, skip, abort; a headless turn fails there). A headless session is also told
    /// at once, once, since a failure after its last request asks nobody.
    pub(crate) fn storage_failed(&self, error: &hone_memory::MemoryError) {
        let Some(recorder) = &self.recorder else {
            return;
        };
        tracing::warn!(%error, "session store write failed");
        lock(&recorder.unsaved)
            .error
            .get_or_insert_with(|| error.to_string());
        if !self.interactive && !recorder.warned.swap(true, Ordering::Relaxed) {
            // Sent directly: `emit` would observe it again.
            let event = Event::Error {
                error: crate::api::error_info(HoneError::new(
                    ErrorCategory::Tool,
                    format!(
                        "could not save the session ({error}); the conversation goes on, but \
                         may not be resumable"
                    ),
                )),
            };
            let _ = self
                .events
                .send(EventFrame::new(self.request_id.clone(), event));
        }
    }
}

/// The session totals a turn adds.
fn turn_totals(stats: &TurnStats, tally: &Tally) -> SessionStats {
    SessionStats {
        tokens_in: stats.usage.input_tokens,
        tokens_out: stats.usage.output_tokens,
        cached_tokens: stats.usage.cached_input_tokens,
        duration_ms: stats.duration_ms,
        turns: 1,
        tool_calls: u64::from(stats.tool_calls),
        edits_applied: tally.edits_applied,
        edits_rejected: tally.edits_rejected,
    }
}

impl MemoryJournal {
    fn push(&mut self, edit: AppliedEdit, depth: usize) {
        self.next_seq += 1;
        let entry = JournalEntry {
            seq: self.next_seq,
            session_id: String::new(),
            edit,
            state: hone_memory::EditState::Applied,
            applied_ms: now_ms(),
        };
        self.entries.push((entry.entry(), entry.edit));
        let excess = self.entries.len().saturating_sub(depth);
        self.entries.drain(..excess);
    }

    fn stack(&self, depth: usize) -> Vec<UndoEntry> {
        self.entries
            .iter()
            .rev()
            .take(depth)
            .map(|(entry, _)| entry.clone())
            .collect()
    }

    fn undo(
        &mut self,
        context: &ToolContext,
        count: usize,
        depth: usize,
    ) -> Result<Vec<UndoEntry>, UndoError> {
        let take = count.min(depth).min(self.entries.len());
        let start = self.entries.len() - take;
        let edits: Vec<&AppliedEdit> = self.entries[start..]
            .iter()
            .rev()
            .map(|(_, edit)| edit)
            .collect();
        hone_memory::revert(context, &edits)?;
        Ok(self
            .entries
            .drain(start..)
            .rev()
            .map(|(entry, _)| entry)
            .collect())
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}
