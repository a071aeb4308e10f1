//! The kind of a request by rules (change, explain, create, run): the verbs opening its
//! sentences and clauses, questions, and bug reports written without an imperative.

use hone_api::TaskKind;

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

/// Whether the request says the tests fail ("the tests fail", "make the failing tests
/// pass", "test_x is broken").
pub(crate) fn about_failing_tests(request: &str) -> bool {
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
pub(crate) fn describes_wrong_behaviour(request: &str) -> bool {
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
        || lower.contains("n't ")
        // What it should do instead ("it should give 'b a'", "expected 'A B'"), or what
        // it does wrong ("the attribute is missing", "quotes are not escaped").
        || lower.split(|c: char| !c.is_ascii_alphabetic()).any(|word| {
            matches!(
                word,
                "should"
                    | "must"
                    | "expected"
                    | "expect"
                    | "missing"
                    | "not"
                    | "never"
                    | "error"
                    | "throws"
                    | "raises"
                    | "breaks"
                    | "regression"
                    | "ignored"
                    | "ignores"
                    | "dropped"
            )
        })
}

#[cfg(test)]
mod tests {
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
            "Logging out does not clear the cookie. Expected 'session=; Max-Age=0'.",
            "XSS in an attribute value: single quotes are sometimes not escaped.",
            "Since 2.1, parse(\"\") throws a TypeError.",
            "The Max-Age attribute is missing from the header",
            "The total doesn't include the tax",
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

    #[test]
    fn failing_tests_and_wrong_behaviour_are_told_apart() {
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
        assert!(!describes_wrong_behaviour("the cart total in checkout.py"));
        assert!(!describes_wrong_behaviour("the notation of expectations"));
    }
}
