//! The guided flow for small models: the request is classified (change, explain, create,
//! run) and each kind gets a purpose-made step instead of the tool-driven loop.
//!
//! A change gets the located code and the instruction to write the corrected definitions in
//! full, one fenced block per file labelled with its path (```` ```ts src/math.ts ````),
//! with no tools offered; an explanation gets the located code and the question; a new
//! file gets the instruction to write it whole in one labelled block; running something,
//! and any request whose code was not found, goes to the normal agent loop.

use std::sync::Arc;

use futures::StreamExt;
use hone_context::localize::{Attachment, MentionKind, extract_mentions, without_line_numbers};
use hone_protocol::{ChatRequest, Message, Outcome, ResponseCollector};
use hone_providers::Provider;
use hone_tools::project::is_test_path;
use tokio_util::sync::CancellationToken;

use crate::flow::{Flow, GuidedStep};
use crate::request_kind::{about_failing_tests, classify_by_rules, describes_wrong_behaviour};
use crate::session::Agent;
use hone_api::TaskKind;
use hone_api::{Event, TurnStats};

/// What goes with a turn's request once its flow is planned.
#[derive(Default)]
pub(crate) struct Planned {
    /// The located code to attach.
    pub(crate) attachment: Attachment,
    /// hone's note closing the request: the failing tests run before it and the guided
    /// step's instruction.
    pub(crate) note: Option<String>,
    /// A rename hone does itself before asking the model: the old and the new name.
    pub(crate) rename: Option<(String, String)>,
}

/// The instruction closing a guided request of `kind`, or `None` for the agent loop.
pub(crate) fn instruction(
    kind: TaskKind,
    attachment: &Attachment,
    request: &str,
) -> Option<String> {
    let prefix = hone_context::HONE_NOTE_PREFIX;
    match kind {
        TaskKind::Change => {
            // The fix belongs in the code under test, not in the tests the request quotes.
            let path = attachment
                .items
                .iter()
                .map(|item| item.path.as_str())
                .find(|path| !is_test_path(path))
                .or_else(|| attachment.items.first().map(|item| item.path.as_str()))?;
            // No placeholder body in the example: small models copy it verbatim.
            Some(format!(
                "{prefix} Answer with the fix only. Write each function or class you change in \
                 full, corrected, in one fenced code block per file. The block's opening line \
                 names the language and the file:\n```{} {path}\nthen comes the code, then the \
                 closing ```. Keep the other code as it is, and do not call tools.",
                language(path)
            ))
        }
        TaskKind::Explain => (!attachment.is_empty()).then(|| {
            format!(
                "{prefix} Answer the question from the code above, briefly. Do not change \
                 files and do not call tools."
            )
        }),
        TaskKind::Create => {
            let path = new_file_path(request);
            let shown = path.as_deref().unwrap_or("path/to/file");
            let language = path.as_deref().map_or("", language);
            Some(format!(
                "{prefix} Write the new file's full content in one fenced code block. The \
                 block's opening line names the language and the file:\n```{language} \
                 {shown}\nthen comes the whole file, then the closing ```. Do not call tools."
            ))
        }
        TaskKind::Run => None,
    }
}

/// The identifiers the request writes as code (`count_words`, `Cart.total()`).
fn code_names(request: &str) -> Vec<String> {
    extract_mentions(request)
        .into_iter()
        .filter(|mention| mention.kind == MentionKind::Symbol)
        .flat_map(|mention| mention.names)
        .filter(|name| name.len() > 2)
        .collect()
}

/// The first path or file name the request mentions.
fn new_file_path(request: &str) -> Option<String> {
    extract_mentions(request)
        .into_iter()
        .find(|mention| matches!(mention.kind, MentionKind::Path | MentionKind::FileName))
        .and_then(|mention| mention.names.into_iter().next())
}

fn language(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map_or("", |(_, extension)| extension)
}

/// The one-word question for a request the rules could not place.
const CLASSIFY_PROMPT: &str = "Classify the user's request to a coding assistant. Answer with \
    exactly one word: change (modify existing code), explain (answer a question), create \
    (write a new file) or run (run a command or tests).";

impl Agent {
    /// The flow of a turn starting with `text` (set as the session's): localisation,
    /// then, in the guided flow, the kind of request and its step. Returns what goes with
    /// the request.
    pub(crate) async fn plan_step(
        &mut self,
        text: &str,
        cancel: &CancellationToken,
        stats: &mut TurnStats,
    ) -> Planned {
        self.flow = Flow::Agent;
        let by_rules = classify_by_rules(text);
        self.task = by_rules;
        let mut planned = Planned::default();
        // A request's own facts ("add(2, 3) should return 5") become a check, run now.
        let reproduction = if by_rules == Some(TaskKind::Change) {
            self.reproduce_request(text, cancel).await
        } else {
            None
        };
        // Without a localizer (no code index) the session behaves as before.
        if self.localizer.is_none() {
            planned.note = reproduction;
            return planned;
        }
        let guided = self.guidance.guided(self.registry.profile());
        let localizes = self.guidance.localizes(self.registry.profile());
        // "The tests fail": run them first, so the model sees the failures and the code
        // they point at (a small model does not go and run them itself). In the guided flow
        // a bug report ("returns X instead of Y") gets the same: the failing assertion
        // names the expected values and, through its traceback, the code to change.
        let bug_report =
            guided && by_rules == Some(TaskKind::Change) && describes_wrong_behaviour(text);
        // Any other change that names code (`count_words`) runs them too, and keeps what
        // fails only when the failures name that code: they then state what it should do.
        let named = if guided && by_rules == Some(TaskKind::Change) {
            code_names(text)
        } else {
            Vec::new()
        };
        let failures = if localizes && (about_failing_tests(text) || bug_report) {
            self.reproduce_failing_tests(cancel, &[]).await
        } else if localizes && !named.is_empty() {
            self.reproduce_failing_tests(cancel, &named).await
        } else {
            None
        };
        if localizes {
            // The failing tests and the failing request check both point at the code.
            let leads = match (&failures, &reproduction) {
                (Some(tests), Some(request)) => Some(format!("{tests}\n\n{request}")),
                (tests, request) => tests.clone().or_else(|| request.clone()),
            };
            planned.attachment = self.localize(text, leads.as_deref()).await;
        }
        let tests_note = failures.map(|report| {
            format!(
                "{} The project's tests fail now (hone ran them before this request):\n{report}",
                hone_context::HONE_NOTE_PREFIX
            )
        });
        let failure_note = match (tests_note, reproduction) {
            (Some(tests), Some(request)) => Some(format!("{tests}\n\n{request}")),
            (tests, request) => tests.or(request),
        };
        if !guided {
            planned.note = failure_note;
            return planned;
        }
        let kind = match by_rules {
            Some(kind) => Some(kind),
            None => self.classify_by_model(text, cancel, stats).await,
        };
        self.task = kind;
        let step = kind.and_then(|kind| {
            instruction(kind, &planned.attachment, text).map(|text| GuidedStep::new(kind, text))
        });
        planned.note = match (failure_note, &step) {
            (Some(note), Some(step)) => Some(format!("{note}\n\n{}", step.instruction)),
            (note, step) => note.or_else(|| step.as_ref().map(|step| step.instruction.clone())),
        };
        let guided_step = step.is_some();
        if let Some(mut step) = step {
            // No tools, so no use for line numbers: a small model would copy them.
            planned.attachment.text = without_line_numbers(&planned.attachment.text);
            step.role = match step.kind {
                TaskKind::Change | TaskKind::Create => self.roles.coder.clone().map(Box::new),
                TaskKind::Explain | TaskKind::Run => None,
            };
            if step.kind == TaskKind::Create {
                step.new_file = new_file_path(text);
            }
            self.flow = Flow::Guided(step);
        }
        if kind == Some(TaskKind::Change) {
            planned.rename = crate::guided_rename::rename_request(text);
        }
        self.emit(Event::TurnStep {
            task: kind,
            guided: guided_step,
        });
        planned
    }

    /// The planner's one-word answer; `None` without a planner model or when it fails.
    /// Only a configured planner is asked: a different prompt would cost a small local
    /// model its cached prefix.
    async fn classify_by_model(
        &mut self,
        text: &str,
        cancel: &CancellationToken,
        stats: &mut TurnStats,
    ) -> Option<TaskKind> {
        let planner = self.roles.planner.clone()?;
        let provider: Arc<dyn Provider> = planner
            .provider
            .clone()
            .unwrap_or_else(|| self.provider.clone());
        let mut request = ChatRequest {
            model: planner.model.clone(),
            system: Some(CLASSIFY_PROMPT.to_string()),
            messages: vec![Message::user(text)],
            tools: Vec::new(),
            max_tokens: Some(4),
            temperature: Some(0.0),
            ..ChatRequest::default()
        };
        planner.generation.apply_to(&mut request);
        stats.model_requests += 1;
        let mut events = provider.stream(request, cancel.clone());
        let mut collector = ResponseCollector::new();
        while let Some(event) = events.next().await {
            collector.push(&event);
        }
        if let Some(usage) = collector.usage() {
            stats.usage = crate::turn::add_usage(stats.usage, usage);
        }
        match collector.outcome() {
            Some(Outcome::Completed(_)) => collector
                .message()
                .text()
                .split_whitespace()
                .find_map(crate::guidance::task_from_word),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use hone_context::localize::LocalizedItem;

    use super::*;

    fn attachment(path: &str) -> Attachment {
        Attachment {
            items: vec![LocalizedItem {
                path: path.to_string(),
                start_line: 1,
                end_line: 3,
                whole_file: true,
                symbols: Vec::new(),
                reasons: Vec::new(),
                tokens: 10,
            }],
            text: "code".to_string(),
            tokens: 10,
        }
    }

    #[test]
    fn a_change_asks_for_labelled_blocks_of_the_located_file() {
        assert!(is_test_path("src/TestMain.java"));
        assert!(is_test_path("tests/test_cart.py"));
        assert!(is_test_path("src/math.test.ts"));
        assert!(is_test_path("pkg/sum_test.go"));
        assert!(!is_test_path("src/latest.py"));
        assert!(!is_test_path("src/StringUtils.java"));
        let text = instruction(TaskKind::Change, &attachment("src/math.ts"), "fix add").unwrap();
        assert!(text.contains("```ts src/math.ts\n"), "{text}");
        assert!(text.contains("one fenced code block per file"), "{text}");
        assert_eq!(
            instruction(TaskKind::Change, &Attachment::default(), "fix it"),
            None
        );
    }

    #[test]
    fn explain_needs_code_and_create_names_the_new_file() {
        assert!(instruction(TaskKind::Explain, &attachment("a.rs"), "why?").is_some());
        assert_eq!(
            instruction(TaskKind::Explain, &Attachment::default(), "why?"),
            None
        );
        let create = instruction(
            TaskKind::Create,
            &Attachment::default(),
            "Create src/divide.ts with a divide function",
        )
        .unwrap();
        assert!(create.contains("```ts src/divide.ts\n"), "{create}");
        let unnamed =
            instruction(TaskKind::Create, &Attachment::default(), "create a script").unwrap();
        assert!(unnamed.contains("``` path/to/file\n"), "{unnamed}");
        assert_eq!(
            instruction(TaskKind::Run, &attachment("a.rs"), "run it"),
            None
        );
    }
}
