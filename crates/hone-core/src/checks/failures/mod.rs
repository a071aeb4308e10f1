//! The failing tests in a test run's output: each one's name, its assertion or error
//! message, the expected and actual values when the runner names them, and the places
//! (file and line) it points at — for pytest, unittest, node's test runner (TAP and spec
//! reporters), jest, vitest, mocha, cargo test, go test and JUnit (JUnitCore, Maven's
//! surefire, Gradle).

mod native;
mod node;
mod python;

/// Failing tests reported, at most.
const MAX_FAILURES: usize = 5;

/// Message lines kept per failure, at most.
const MAX_MESSAGE_LINES: usize = 8;

/// One failing test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TestFailure {
    /// The test's name as the runner prints it.
    pub(crate) test: String,
    /// The assertion or error message, one line per line printed.
    pub(crate) message: Vec<String>,
    /// The expected value, when the runner names it.
    pub(crate) expected: Option<String>,
    /// The actual value, when the runner names it.
    pub(crate) actual: Option<String>,
    /// The places it names, as printed (relative, absolute, or a Java class's path inside
    /// its source root): the test's own line first where the runner gives it, the
    /// deepest frame last.
    pub(crate) places: Vec<(String, usize)>,
}

impl TestFailure {
    fn named(test: &str) -> Self {
        Self {
            test: test.trim().to_string(),
            ..Self::default()
        }
    }

    fn add_message(&mut self, line: &str) {
        let line = line.trim();
        if !line.is_empty() && self.message.len() < MAX_MESSAGE_LINES {
            self.message.push(line.to_string());
        }
    }

    fn add_place(&mut self, path: &str, line: usize) {
        let place = (path.to_string(), line);
        if !path.is_empty() && !self.places.contains(&place) {
            self.places.push(place);
        }
    }

    /// The message on one line.
    pub(crate) fn summary(&self) -> String {
        let text = self.message.join(" ");
        let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.chars().count() > 300 {
            let cut: String = text.chars().take(300).collect();
            format!("{cut}…")
        } else {
            text
        }
    }
}

/// A runner's parser: the failures in the lines of a run's output.
type Parser = fn(&[&str]) -> Vec<TestFailure>;

/// The failing tests `output` reports, by the first runner format that finds any.
pub(crate) fn failures(output: &str) -> Vec<TestFailure> {
    let text = strip_colors(output);
    let lines: Vec<&str> = text.lines().collect();
    let parsers: [Parser; 10] = [
        python::pytest,
        python::unittest,
        node::tap,
        node::spec,
        node::jest,
        node::vitest,
        node::mocha,
        native::cargo,
        native::go,
        native::junit,
    ];
    for parser in parsers {
        let mut found = parser(&lines);
        if !found.is_empty() {
            found.truncate(MAX_FAILURES);
            return found;
        }
    }
    Vec::new()
}

/// `text` without ANSI escape sequences (test runners colour their output in CI).
pub(crate) fn strip_colors(text: &str) -> String {
    anstream::adapter::strip_str(text).to_string()
}

/// The `path:line` of a stack frame or location: `(/p/test/a.test.js:6:10)`,
/// `test/a.test.js:6:10`, `file:///p/a.js:2`; `None` for the runtime's own frames.
pub(crate) fn frame_place(text: &str) -> Option<(String, usize)> {
    let text = text
        .trim()
        .trim_start_matches("at ")
        .trim_start_matches("❯ ")
        .trim_matches(['\'', '"']);
    let inner = match (text.rfind('('), text.ends_with(')')) {
        (Some(open), true) => &text[open + 1..text.len() - 1],
        _ => text.rsplit(' ').next().unwrap_or(text),
    };
    let inner = inner.trim_start_matches("file://");
    if inner.starts_with("node:") || inner.contains("node_modules/") {
        return None;
    }
    let mut parts = inner.rsplitn(3, ':');
    let last = parts.next()?;
    let second = parts.next()?;
    let (path, line) = match parts.next() {
        // `path:line:column`
        Some(path) if second.bytes().all(|b| b.is_ascii_digit()) => (path, second),
        // `path:line`
        _ => (inner.rsplit_once(':')?.0, last),
    };
    let line: usize = line.parse().ok()?;
    (path.contains('.') && !path.contains("://")).then(|| (path.to_string(), line))
}

/// One failure per line for the model: `- name (path:line): message [expected X, actual
/// Y]`; `places` holds each failure's place as the project names it.
pub(crate) fn digest(failures: &[TestFailure], places: &[Option<String>]) -> String {
    let mut text = String::from("Failing tests:\n");
    for (index, failure) in failures.iter().enumerate() {
        text.push_str(&format!("- {}", failure.test));
        if let Some(Some(place)) = places.get(index) {
            text.push_str(&format!(" ({place})"));
        }
        let summary = failure.summary();
        if !summary.is_empty() {
            text.push_str(&format!(": {summary}"));
        }
        match (&failure.expected, &failure.actual) {
            (Some(expected), Some(actual)) => {
                text.push_str(&format!(" [expected {expected}, actual {actual}]"));
            }
            (Some(expected), None) => text.push_str(&format!(" [expected {expected}]")),
            (None, Some(actual)) => text.push_str(&format!(" [actual {actual}]")),
            (None, None) => {}
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_name_their_place_and_runtime_frames_do_not() {
        assert_eq!(
            frame_place("    at TestContext.<anonymous> (/p/test/a.test.js:6:10)"),
            Some(("/p/test/a.test.js".into(), 6))
        );
        assert_eq!(
            frame_place("at Object.toBe (test/math.test.js:5:23)"),
            Some(("test/math.test.js".into(), 5))
        );
        assert_eq!(
            frame_place(" ❯ test/math.test.js:6:23"),
            Some(("test/math.test.js".into(), 6))
        );
        assert_eq!(
            frame_place("'/p/test/a.test.js:5:1'"),
            Some(("/p/test/a.test.js".into(), 5))
        );
        assert_eq!(
            frame_place("file:///p/lib/a.js:2"),
            Some(("/p/lib/a.js".into(), 2))
        );
        assert_eq!(
            frame_place("at Test.run (node:internal/test_runner/test:796:25)"),
            None
        );
        assert_eq!(frame_place("at x (/p/node_modules/jest/a.js:1:1)"), None);
        assert_eq!(frame_place("at https://example.com:443/x"), None);
    }

    #[test]
    fn colours_are_stripped() {
        assert_eq!(strip_colors("\u{1b}[31m✕\u{1b}[39m add"), "✕ add");
    }

    #[test]
    fn the_digest_names_test_place_message_and_values() {
        let failure = TestFailure {
            test: "add adds".into(),
            message: vec![
                "Expected values to be strictly equal:".into(),
                "1 !== 3".into(),
            ],
            expected: Some("3".into()),
            actual: Some("1".into()),
            places: vec![("test/math.test.js".into(), 6)],
        };
        let text = digest(&[failure], &[Some("test/math.test.js:6".into())]);
        assert_eq!(
            text,
            "Failing tests:\n- add adds (test/math.test.js:6): Expected values to be strictly equal: 1 !== 3 [expected 3, actual 1]\n"
        );
    }

    /// Each runner's real output (captured from the runner) gives its failing tests.
    #[test]
    fn every_runner_s_failures_are_found() {
        let cases: [(&str, &str, usize, &str); 11] = [
            (
                "pytest",
                include_str!("../fixtures/pytest_failures.txt"),
                3,
                "TotalTest.test_total_with_discount",
            ),
            (
                "unittest",
                include_str!("../fixtures/unittest_failure.txt"),
                1,
                "test_cart.TotalTest.test_total_with_discount",
            ),
            (
                "node tap",
                include_str!("../fixtures/npm_node_test.txt"),
                2,
                "add adds",
            ),
            (
                "node spec",
                include_str!("../fixtures/node_test_spec.txt"),
                2,
                "add adds",
            ),
            (
                "jest",
                include_str!("../fixtures/npm_jest.txt"),
                2,
                "math › add adds",
            ),
            (
                "vitest",
                include_str!("../fixtures/npm_vitest.txt"),
                1,
                "math > add adds",
            ),
            (
                "mocha",
                include_str!("../fixtures/npm_mocha.txt"),
                1,
                "math add adds",
            ),
            (
                "cargo",
                include_str!("../fixtures/cargo_test.txt"),
                2,
                "tests::counts_words",
            ),
            (
                "go",
                include_str!("../fixtures/go_test.txt"),
                2,
                "TestCount",
            ),
            (
                "junit",
                include_str!("../fixtures/junit4.txt"),
                1,
                "addsTwoNumbers(com.example.CalcTest)",
            ),
            (
                "surefire",
                include_str!("../fixtures/mvn_surefire.txt"),
                1,
                "addsTwoNumbers(com.example.CalcTest)",
            ),
        ];
        for (runner, output, count, first) in cases {
            let found = failures(output);
            assert_eq!(found.len(), count, "{runner}: {found:#?}");
            assert_eq!(found[0].test, first, "{runner}: {found:#?}");
            assert!(!found[0].message.is_empty(), "{runner}: {found:#?}");
            assert!(!found[0].places.is_empty(), "{runner}: {found:#?}");
        }
        assert!(failures("exit code 1\nsomething broke\n").is_empty());
    }
}
