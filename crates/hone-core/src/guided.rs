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

/// Verbs that ask for a new file.
const CREATE_VERBS: &[&str] = &["create", "generate", "scaffold"];
/// Verbs that ask to run something.
const RUN_VERBS: &[&str] = &[
    "run", "execute", "test", "build", "install", "lint", "start", "compile",
];
/// Verbs that ask for a change to existing code.
const CHANGE_VERBS: &[&str] = &[
    "fix",
    "change",
    "rename",
    "add",
    "remove",
    "delete",
    "update",
    "refactor",
    "implement",
    "replace",
    "make",
    "correct",
    "modify",
    "rewrite",
    "move",
    "convert",
    "handle",
    "support",
    "extract",
    "inline",
    "optimize",
    "optimise",
    "edit",
    "repair",
    "use",
];
/// Words that start a question.
const QUESTION_WORDS: &[&str] = &[
    "what",
    "why",
    "how",
    "where",
    "which",
    "who",
    "when",
    "explain",
    "describe",
    "does",
    "is",
    "are",
    "do",
    "can",
    "should",
    "summarize",
    "summarise",
    "show",
    "tell",
    "list",
];
/// Words that only soften a request ("please fix", "can you fix").
const POLITE_WORDS: &[&str] = &["please", "can", "could", "would", "will", "you", "kindly"];

/// The kind of `request` by rules: the verbs opening its sentences and clauses; `None`
/// when the rules are unsure.
pub(crate) fn classify_by_rules(request: &str) -> Option<TaskKind> {
    let lower = request.to_lowercase();
    let openers = clause_openers(&lower);
    let opens_with = |words: &[&str]| {
        openers
            .iter()
            .any(|opener| words.contains(&opener.as_str()))
    };
    if lower.contains("new file") || opens_with(CREATE_VERBS) {
        return Some(TaskKind::Create);
    }
    // A change with a run clause ("fix it and run the tests", "run the tests and fix what
    // fails") is a change: the checks after it run the tests, and the guided change step is
    // what a small model needs. Only a request with no change verb is a run.
    if opens_with(CHANGE_VERBS) {
        return Some(TaskKind::Change);
    }
    if opens_with(RUN_VERBS) {
        return Some(TaskKind::Run);
    }
    let first = lower.split_whitespace().next().map(|word| {
        word.trim_matches(|c: char| !c.is_alphanumeric())
            .to_string()
    });
    if first.is_some_and(|word| QUESTION_WORDS.contains(&word.as_str()))
        || lower.trim_end().ends_with('?')
    {
        return Some(TaskKind::Explain);
    }
    // A bug report without an imperative ("Parsing \"1.2\" fails; it should give 1.2.0")
    // asks for a change as much as "fix it" does.
    if describes_wrong_behaviour(request) {
        return Some(TaskKind::Change);
    }
    None
}

/// The first word of each sentence and of each clause after "and"/"then", polite words
/// skipped (`can you fix` opens with `fix`).
fn clause_openers(lower: &str) -> Vec<String> {
    let mut openers = Vec::new();
    let mut at_start = true;
    for raw in lower.split_whitespace() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if word.is_empty() {
            continue;
        }
        if at_start && !POLITE_WORDS.contains(&word) {
            openers.push(word.to_string());
            at_start = false;
        } else if word == "and" || word == "then" {
            at_start = true;
        }
        if raw.ends_with(['.', '!', '?', ';', ':']) {
            at_start = true;
        }
    }
    openers
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

/// Whether the request says the tests fail ("the tests fail", "make the failing tests
/// pass", "test_x is broken").
fn about_failing_tests(request: &str) -> bool {
    let lower = request.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|word| !word.is_empty())
        .collect();
    let about_tests = words
        .iter()
        .any(|word| word.starts_with("test") || word.ends_with("_test"));
    let failing = words.iter().any(|word| {
        word.starts_with("fail")
            || matches!(
                *word,
                "pass" | "passes" | "passing" | "broken" | "red" | "green"
            )
    });
    about_tests && failing
}

/// Whether the request reports wrong behaviour of existing code ("returns 'a b' instead of
/// 'A B'", "crashes", "the total is wrong") or says what it should do.
fn describes_wrong_behaviour(request: &str) -> bool {
    let lower = request.to_ascii_lowercase();
    [
        "instead of",
        "wrong",
        "incorrect",
        "crash",
        "bug",
        "broken",
        "fails",
        "exception",
        "off by one",
        "off-by-one",
    ]
    .iter()
    .any(|phrase| lower.contains(phrase))
        // What it should do instead: "it should give 'b a'", "must keep the order".
        || lower
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|word| matches!(word, "should" | "must"))
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

    #[test]
    fn verbs_and_questions_classify_requests() {
        for (request, kind) in [
            (
                "The add function in src/math.ts subtracts instead of adding. Fix it.",
                TaskKind::Change,
            ),
            ("Rename ItemStore to Inventory", TaskKind::Change),
            ("please add a divide function to math.ts", TaskKind::Change),
            ("Can you fix the cart total?", TaskKind::Change),
            ("What does cartTotal return?", TaskKind::Explain),
            ("explain the Rust helper crate", TaskKind::Explain),
            ("the parser drops tokens on empty input?", TaskKind::Explain),
            (
                "Create src/divide.ts with a divide function",
                TaskKind::Create,
            ),
            (
                "Add a new file utils.py with a slugify helper",
                TaskKind::Create,
            ),
            ("test the parser", TaskKind::Run),
        ] {
            assert_eq!(classify_by_rules(request), Some(kind), "{request}");
        }
    }

    #[test]
    fn a_change_with_a_run_clause_is_a_change() {
        for request in [
            "The add() function in src/math.js is wrong; fix it and run the tests",
            "Fix the add function in calc.py and run the tests",
            "fix add() then run the tests",
            "Please fix the cart total, then run npm test.",
            "Run the tests and fix what fails",
            "run the tests, then fix the failing ones",
            "Build the project and fix the compile errors",
            "Test the parser and repair what breaks",
            "Update slugify to drop accents and run pytest",
            "Can you rename ItemStore to Inventory and run the build?",
            "Add a divide function to math.ts. Then run the tests.",
            "The total is off by one. Correct it and execute the test suite.",
            "lint the code and remove unused imports",
        ] {
            assert_eq!(
                classify_by_rules(request),
                Some(TaskKind::Change),
                "{request}"
            );
        }
    }

    #[test]
    fn pure_run_requests_stay_runs() {
        for request in [
            "run the tests",
            "Run the tests.",
            "please run cargo test",
            "build the project",
            "Install the dependencies and start the dev server",
            "compile and run main.rs",
            "execute the test suite then lint",
            "The add() function is wrong; run the tests",
        ] {
            assert_eq!(classify_by_rules(request), Some(TaskKind::Run), "{request}");
        }
    }

    #[test]
    fn bug_reports_without_an_imperative_ask_for_a_change() {
        for request in [
            "Reversing the words of \"  a  b \" gives extra empty words; it should give \"b a\".",
            "Parsing the version \"1.2\" fails, but a missing patch should count as 0.",
            "The cart total is wrong for two items",
        ] {
            assert_eq!(
                classify_by_rules(request),
                Some(TaskKind::Change),
                "{request}"
            );
        }
        // A question stays a question.
        assert_eq!(
            classify_by_rules("Why does parsing \"1.2\" fail?"),
            Some(TaskKind::Explain)
        );
        assert_eq!(
            classify_by_rules("what should parse return for \"1.2\""),
            Some(TaskKind::Explain)
        );
    }

    #[test]
    fn unclear_requests_are_left_to_the_model() {
        assert_eq!(classify_by_rules("the cart total in checkout.py"), None);
        assert_eq!(
            classify_by_rules("the cart total is off by one"),
            Some(TaskKind::Change)
        );
        assert_eq!(classify_by_rules(""), None);
    }

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
        assert!(about_failing_tests("The tests fail. Make them pass."));
        assert!(about_failing_tests("make the failing tests pass"));
        assert!(!about_failing_tests("add a test for clamp"));
        assert!(!about_failing_tests("fix the add function"));
        assert!(!about_failing_tests("the latest ordered items are wrong"));
        assert!(describes_wrong_behaviour(
            "titleCase('a b') returns 'A b' instead of 'A B'. Fix it."
        ));
        assert!(describes_wrong_behaviour(
            "Looking up a missing user crashes"
        ));
        assert!(!describes_wrong_behaviour("Add a peek method to Stack"));
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
