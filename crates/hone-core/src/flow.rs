//! How a turn runs, as a value: the tool-driven agent loop ([`Flow::Agent`], in `turn.rs`)
//! or a guided step for small models ([`Flow::Guided`]), which owns what the request asks
//! for, the instruction closing it, its retry state and what it does with each reply
//! ([`Agent::guided_loop`]). Other code asks the flow (`offers_tools`, `guided`) instead of
//! reading flags.

use hone_api::{TaskKind, TurnEnd, TurnStats};
use hone_protocol::Message;
use tokio_util::sync::CancellationToken;

use crate::guidance::RoleModel;
use crate::natural::{MAX_NATURAL_EDITS, ReplyCode};
use crate::session::Agent;
use crate::turn::Ending;

/// How the running turn's requests are made.
#[derive(Debug, Clone, Default)]
pub(crate) enum Flow {
    /// The agent loop: tools offered, the model drives.
    #[default]
    Agent,
    /// A guided step: no tools, a purpose-made instruction, answers taken as code.
    Guided(GuidedStep),
}

/// A guided step of one turn.
#[derive(Debug, Clone)]
pub(crate) struct GuidedStep {
    /// What the request asks for: a change, an explanation or a new file.
    pub(crate) kind: TaskKind,
    /// How to write the answer, closing the request; repeated at the end of a fresh
    /// attempt so the model answers it as it answered the first request.
    pub(crate) instruction: String,
    /// The model and provider to use instead of the session's.
    pub(crate) role: Option<Box<RoleModel>>,
    /// The file a new-file step asked for: an answer's one unlabelled block is its content.
    pub(crate) new_file: Option<String>,
    /// Whether an earlier answer of this step failed (unchanged, refused, or its checks
    /// failed): a retry samples wider, so it does not write the same code again.
    pub(crate) retry: bool,
    /// The history's length once the turn's request is in it.
    pub(crate) turn_start: usize,
    /// Where a fresh attempt starts in the history: the requests leave out the messages
    /// between the turn's request and it (the failed answers), so a small model answers
    /// the request anew instead of copying its own failing code.
    pub(crate) fresh_from: Option<usize>,
    /// What the replies of this step came to so far.
    replies: Replies,
}

/// What the replies of a guided step came to.
#[derive(Debug, Clone, Copy, Default)]
struct Replies {
    /// Replies whose code was taken as an edit since the last fresh start.
    edits: u32,
    /// A reply's code changed a file in this turn (or was proposed and refused).
    changed: bool,
    /// The last reply's code equalled the file it named.
    copied: bool,
}

/// What follows a reply of a guided step.
enum Next {
    /// Ask the model again.
    Ask,
    /// The turn ends so.
    End(TurnEnd),
}

impl Flow {
    /// Whether the model is offered tools.
    pub(crate) fn offers_tools(&self) -> bool {
        matches!(self, Self::Agent)
    }

    /// The guided step, when the turn takes one.
    pub(crate) fn guided(&self) -> Option<&GuidedStep> {
        match self {
            Self::Agent => None,
            Self::Guided(step) => Some(step),
        }
    }

    /// The guided step, to update its retry state.
    pub(crate) fn guided_mut(&mut self) -> Option<&mut GuidedStep> {
        match self {
            Self::Agent => None,
            Self::Guided(step) => Some(step),
        }
    }

    /// The model to ask instead of the session's.
    pub(crate) fn role(&self) -> Option<RoleModel> {
        self.guided().and_then(|step| step.role.as_deref().cloned())
    }

    /// The sampling temperature of the next request after `earlier_requests` in the turn,
    /// in its `attempt` (1-based): a guided retry and a fresh attempt sample wider; else the
    /// provider's default.
    pub(crate) fn temperature(&self, earlier_requests: u32, attempt: u32) -> Option<f32> {
        let wider = attempt > 1 || self.guided().is_some_and(|step| step.retry);
        wider.then(|| retry_temperature(earlier_requests))
    }
}

impl GuidedStep {
    /// A step for a request of `kind`, closed by `instruction`.
    pub(crate) fn new(kind: TaskKind, instruction: String) -> Self {
        Self {
            kind,
            instruction,
            role: None,
            new_file: None,
            retry: false,
            turn_start: 0,
            fresh_from: None,
            replies: Replies::default(),
        }
    }

    /// A fresh attempt after the last one was rolled back: no reply counted yet, sampled
    /// wider.
    pub(crate) fn restart(&mut self) {
        self.replies = Replies::default();
        self.retry = true;
    }

    /// Whether the step asked for code (a change or a new file): an answer that changes
    /// nothing did not do what was asked.
    fn expects_code(&self) -> bool {
        matches!(self.kind, TaskKind::Change | TaskKind::Create)
    }
}

/// The sampling temperature of a guided retry after `earlier_requests` requests in the turn
/// (the embedded model's default is 0.2): 0.8 for the first retry, 1.0 for the further
/// ones. A small model that wrote wrong code mostly writes it again below that; sampled
/// this wide (and, embedded, with a new seed per request) a fair share of its answers
/// differ, and the checks pick the one that works.
fn retry_temperature(earlier_requests: u32) -> f32 {
    if earlier_requests <= 1 { 0.8 } else { 1.0 }
}

impl Agent {
    /// The guided step's turn: ask, take the reply's code as the change, check it, and
    /// ask afresh while the step's rounds last.
    pub(crate) async fn guided_loop(
        &mut self,
        cancel: &CancellationToken,
        stats: &mut TurnStats,
    ) -> Ending {
        loop {
            let message = match self.next_reply(cancel, stats, true).await {
                Ok(message) => message,
                Err(ending) => return ending,
            };
            let text = message.text();
            let calls: Vec<_> = message.tool_calls().cloned().collect();
            self.note_reply(&message);
            self.push_history(message);
            if !calls.is_empty() {
                // No tools were offered: the calls are answered, and the text is the reply.
                self.push_history(crate::turn::refused_results(
                    &calls,
                    "this step offers no tools; answer with the code itself",
                ));
            }
            match self.on_guided_reply(&text, cancel).await {
                Next::Ask => {}
                Next::End(end) => return Ending::Done(end),
            }
        }
    }

    /// What the guided step does with a reply `text`: its code becomes the change, which
    /// is checked; an answer that changed nothing, could not be applied or failed its
    /// checks gets a fresh attempt while repair rounds last.
    async fn on_guided_reply(&mut self, text: &str, cancel: &CancellationToken) -> Next {
        let mut replies = self.replies();
        if replies.edits < MAX_NATURAL_EDITS {
            replies.edits += 1;
            let code = self.natural_edit(text, replies.edits, cancel).await;
            let expects_code = self.flow.guided().is_some_and(GuidedStep::expects_code);
            match code {
                // Asked for code, and the answer changed nothing.
                ReplyCode::Answer if expects_code && !replies.changed => {
                    replies.copied = false;
                    if self.retry_afresh(crate::natural::no_change_note()) {
                        replies.edits = 0;
                        return self.keep(replies, Next::Ask);
                    }
                }
                // An answer without code while the checks of its change fail (often a hone
                // line said back): the failures still stand.
                ReplyCode::Answer if replies.changed && self.repair_unchanged() => {
                    replies.edits = 0;
                    return self.keep(replies, Next::Ask);
                }
                ReplyCode::Answer => replies.copied = false,
                // The code already applied, sent again while the checks fail.
                ReplyCode::Unchanged(_) if replies.changed && self.repair_unchanged() => {
                    replies.edits = 0;
                    return self.keep(replies, Next::Ask);
                }
                ReplyCode::Unchanged(_) if replies.changed => replies.copied = false,
                ReplyCode::Changed(note) => {
                    replies.changed = true;
                    replies.copied = false;
                    self.push_history(note);
                    return self.keep(replies, Next::Ask);
                }
                // No narration of an applied change (a request costs a small local model
                // many seconds): the checks run at once, and the turn ends when they pass.
                ReplyCode::Applied(actions) => {
                    replies.changed = true;
                    replies.copied = false;
                    self.push_history(crate::natural::applied_note(&actions, false));
                    if self.check_and_repair(cancel).await {
                        replies.edits = 0;
                        self.mark_retry();
                        return self.keep(replies, Next::Ask);
                    }
                    self.push_history(Message::assistant(format!("Done: {}.", actions.join("; "))));
                    return self.keep(replies, Next::End(TurnEnd::Answered));
                }
                ReplyCode::Retry(note) => {
                    replies.copied = false;
                    if self.retry_afresh(note) {
                        replies.edits = 0;
                        return self.keep(replies, Next::Ask);
                    }
                }
                ReplyCode::Unchanged(note) => {
                    replies.copied = true;
                    if self.retry_afresh(note) {
                        replies.edits = 0;
                        return self.keep(replies, Next::Ask);
                    }
                }
            }
        }
        // Asked for code, no answer changed a file (or the model kept sending the file's own
        // code back): the turn did not succeed, and a silent "done" would hide it.
        let expects_code = self.flow.guided().is_some_and(GuidedStep::expects_code);
        if (replies.copied || expects_code) && !replies.changed {
            return self.keep(replies, Next::End(TurnEnd::RepeatedFailure));
        }
        if self.check_and_repair(cancel).await {
            replies.edits = 0;
            self.mark_retry();
            return self.keep(replies, Next::Ask);
        }
        self.keep(replies, Next::End(TurnEnd::Answered))
    }

    fn replies(&self) -> Replies {
        self.flow
            .guided()
            .map(|step| step.replies)
            .unwrap_or_default()
    }

    /// Stores the step's `replies` and returns `next`.
    fn keep(&mut self, replies: Replies, next: Next) -> Next {
        if let Some(step) = self.flow.guided_mut() {
            step.replies = replies;
        }
        next
    }

    fn mark_retry(&mut self) {
        if let Some(step) = self.flow.guided_mut() {
            step.retry = true;
        }
    }

    /// Asks again after an answer that changed nothing (no code, a copy of the file, or
    /// code that could not be applied): the step leaves that answer out of the next
    /// requests (a small model shown its answer writes it again), so the model sees its
    /// request and `note`. The retry uses a repair round, as an answer whose checks fail
    /// does: returns false when none is left.
    fn retry_afresh(&mut self, note: Message) -> bool {
        if !self.use_repair_round() {
            return false;
        }
        self.mark_retry();
        self.push_fresh_attempt(note.text());
        true
    }

    /// Starts a fresh attempt with the note `text`: the requests leave out what came
    /// between the turn's request and it, and ask the request again with the note before
    /// the step's instruction (see `context::fresh_view`).
    pub(crate) fn push_fresh_attempt(&mut self, text: String) {
        let from = self.history.len();
        if let Some(step) = self.flow.guided_mut() {
            step.fresh_from = Some(from);
        }
        self.push_history(Message::user(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_retry_or_a_fresh_attempt_samples_wider() {
        let mut flow = Flow::Guided(GuidedStep::new(TaskKind::Change, "Write it.".into()));
        assert_eq!(flow.temperature(1, 1), None);
        assert!(!flow.offers_tools());
        if let Some(step) = flow.guided_mut() {
            step.retry = true;
        }
        assert_eq!(flow.temperature(1, 1), Some(0.8));
        assert_eq!(flow.temperature(3, 1), Some(1.0));
        assert_eq!(Flow::Agent.temperature(3, 1), None);
        // A fresh attempt samples wider in the agent loop too.
        assert_eq!(Flow::Agent.temperature(3, 2), Some(1.0));
        assert!(Flow::Agent.offers_tools());
    }

    #[test]
    fn a_change_or_a_new_file_expects_code_and_an_explanation_does_not() {
        for (kind, expects) in [
            (TaskKind::Change, true),
            (TaskKind::Create, true),
            (TaskKind::Explain, false),
        ] {
            assert_eq!(
                GuidedStep::new(kind, String::new()).expects_code(),
                expects,
                "{kind:?}"
            );
        }
    }
}
