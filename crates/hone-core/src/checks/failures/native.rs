//! Compiled languages' test runners: cargo test, go test, and JUnit as JUnitCore,
//! Maven's surefire and Gradle print it.

use super::{TestFailure, frame_place};

/// cargo test: each `---- name stdout ----` block: the panic's place and message (the
/// `left`/`right` lines of a failed `assert_eq!` included).
pub(super) fn cargo(lines: &[&str]) -> Vec<TestFailure> {
    let mut found: Vec<TestFailure> = Vec::new();
    let mut in_message = false;
    for line in lines {
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|rest| rest.strip_suffix(" stdout ----"))
        {
            found.push(TestFailure::named(name));
            in_message = false;
            continue;
        }
        let Some(failure) = found.last_mut() else {
            continue;
        };
        if line.starts_with("failures:") || line.starts_with("test result:") {
            in_message = false;
            continue;
        }
        if let Some((_, rest)) = line.split_once("panicked at ") {
            // `src/lib.rs:11:9:` (since Rust 1.73) or `'message', src/lib.rs:11:9`.
            let (message, place) = match rest.strip_prefix('\'') {
                Some(quoted) => match quoted.rsplit_once("', ") {
                    Some((message, place)) => (Some(message), place),
                    None => (None, quoted),
                },
                None => (None, rest),
            };
            if let Some((path, number)) = frame_place(place.trim_end_matches(':')) {
                failure.add_place(&path, number);
            }
            if let Some(message) = message {
                failure.add_message(message);
            }
            in_message = true;
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("note:") || trimmed == "stack backtrace:" {
            in_message = false;
            continue;
        }
        if in_message {
            failure.add_message(trimmed);
        }
    }
    found
}

/// go test: each `--- FAIL: TestName` with its indented `file_test.go:7: message` lines
/// (testify's `expected:`/`actual` lines give the values).
pub(super) fn go(lines: &[&str]) -> Vec<TestFailure> {
    let mut found: Vec<TestFailure> = Vec::new();
    let mut inside = false;
    for line in lines {
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("--- FAIL: ") {
            let name = rest.split_whitespace().next().unwrap_or(rest);
            found.push(TestFailure::named(name));
            inside = true;
            continue;
        }
        if !line.starts_with(' ') && !line.starts_with('\t') {
            inside = false;
            continue;
        }
        let Some(failure) = found.last_mut().filter(|_| inside) else {
            continue;
        };
        if trimmed.starts_with("=== ") || trimmed.starts_with("--- PASS") {
            continue;
        }
        if let Some(value) = trimmed.strip_prefix("expected:") {
            failure.expected = Some(value.trim().to_string());
        } else if let Some(value) = trimmed
            .strip_prefix("actual  :")
            .or_else(|| trimmed.strip_prefix("actual:"))
        {
            failure.actual = Some(value.trim().to_string());
        }
        match go_place(trimmed) {
            Some((path, number, message)) => {
                failure.add_place(&path, number);
                failure.add_message(message);
            }
            None => failure.add_message(trimmed),
        }
    }
    found
}

/// `words_test.go:7: message` → the file, the line and the message.
fn go_place(line: &str) -> Option<(String, usize, &str)> {
    let line = line.strip_prefix("Error Trace:").map_or(line, str::trim);
    let (path, rest) = line.split_once(".go:")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || path.contains(' ') {
        return None;
    }
    let message = rest[digits.len()..].trim_start_matches(':').trim();
    Some((format!("{path}.go"), digits.parse().ok()?, message))
}

/// JUnit: JUnitCore's `1) name(Class)`, surefire's `name(Class)  Time elapsed: … <<<
/// FAILURE!` (or `Class.name -- Time elapsed …`), Gradle's `Class > name FAILED`; then the
/// exception line and the test's own frames (`at pkg.Class.method(File.java:10)`, given as
/// `pkg/File.java`).
pub(super) fn junit(lines: &[&str]) -> Vec<TestFailure> {
    let mut found: Vec<TestFailure> = Vec::new();
    let mut inside = false;
    for line in lines {
        let trimmed = line.trim().trim_start_matches("[ERROR] ").trim();
        if let Some(name) = junit_header(trimmed) {
            found.push(TestFailure::named(name));
            inside = true;
            continue;
        }
        let Some(failure) = found.last_mut().filter(|_| inside) else {
            continue;
        };
        if trimmed.is_empty()
            || trimmed.starts_with("Tests run:")
            || trimmed.starts_with("FAILURES!!!")
        {
            inside = false;
            continue;
        }
        if let Some(frame) = trimmed.strip_prefix("at ") {
            if let Some(place) = java_frame(frame) {
                failure.add_place(&place.0, place.1);
            }
            continue;
        }
        if trimmed.starts_with("...") {
            continue;
        }
        if failure.message.is_empty() {
            let (expected, actual) = expected_but_was(trimmed);
            failure.expected = expected;
            failure.actual = actual;
        }
        failure.add_message(trimmed);
    }
    found
}

/// The test's name from a JUnit report line that starts a failure.
fn junit_header(line: &str) -> Option<&str> {
    if let Some((number, rest)) = line.split_once(") ")
        && !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit())
        && rest.ends_with(')')
        && rest.contains('(')
    {
        return Some(rest);
    }
    if (line.contains("<<< FAILURE!") || line.contains("<<< ERROR!"))
        && !line.starts_with("Tests run:")
    {
        let name = line
            .split("  Time elapsed")
            .next()
            .and_then(|head| head.split(" -- Time elapsed").next())
            .unwrap_or(line);
        return Some(name.trim());
    }
    line.strip_suffix(" FAILED")
        .filter(|name| name.contains(" > "))
}

/// `com.example.CalcTest.add(CalcTest.java:10)` → `com/example/CalcTest.java`, 10; frames
/// of JUnit, the JDK and build tools are left out.
fn java_frame(frame: &str) -> Option<(String, usize)> {
    const RUNTIME: &[&str] = &[
        "org.junit.",
        "junit.",
        "java.",
        "javax.",
        "jdk.",
        "sun.",
        "org.apache.maven.",
        "org.gradle.",
        "org.opentest4j.",
        "kotlin.",
    ];
    if RUNTIME.iter().any(|prefix| frame.starts_with(prefix)) {
        return None;
    }
    let (method, place) = frame.split_once('(')?;
    let (file, line) = place.trim_end_matches(')').split_once(':')?;
    let line: usize = line.parse().ok()?;
    // The class's package is its directory: `com.example.CalcTest.add` → `com/example`.
    let mut parts: Vec<&str> = method.split('.').collect();
    parts.pop();
    parts.pop();
    let package = parts.join("/");
    let path = if package.is_empty() {
        file.to_string()
    } else {
        format!("{package}/{file}")
    };
    Some((path, line))
}

/// `expected:<3> but was:<1>` (JUnit 4) or `expected: <3> but was: <1>` (JUnit 5).
fn expected_but_was(line: &str) -> (Option<String>, Option<String>) {
    let value = |text: &str| -> Option<String> {
        let text = text.trim_start().strip_prefix('<')?;
        Some(text.split_once('>')?.0.to_string())
    };
    let Some((_, rest)) = line.split_once("expected:") else {
        return (None, None);
    };
    let expected = value(rest);
    let actual = rest
        .split_once("but was:")
        .and_then(|(_, actual)| value(actual));
    (expected, actual)
}

#[cfg(test)]
mod tests {
    use super::super::failures;
    use super::*;

    #[test]
    fn cargo_panics_give_place_and_message() {
        let found = failures(include_str!("../fixtures/cargo_test.txt"));
        assert_eq!(found[0].places, [("src/lib.rs".to_string(), 11)]);
        assert_eq!(
            found[0].message,
            ["assertion `left == right` failed", "left: 4", "right: 3"]
        );
        assert_eq!(found[1].message, ["empty text has no words"]);
        let old =
            "---- t stdout ----\nthread 't' panicked at 'assertion failed: x', src/a.rs:3:5\n";
        let found = failures(old);
        assert_eq!(found[0].message, ["assertion failed: x"]);
        assert_eq!(found[0].places, [("src/a.rs".to_string(), 3)]);
    }

    #[test]
    fn go_failures_give_file_line_and_message() {
        let found = failures(include_str!("../fixtures/go_test.txt"));
        assert_eq!(found[0].places, [("words_test.go".to_string(), 7)]);
        assert_eq!(found[0].message, ["Count(\"a b c\") = 4, want 3"]);
        assert_eq!(found[1].test, "TestEmpty");
        let testify = "--- FAIL: TestAdd (0.00s)\n    calc_test.go:9:\n        \tError Trace:\tcalc_test.go:9\n        \tError:      \tNot equal: \n        \t            \texpected: 3\n        \t            \tactual  : 1\n        \tTest:       \tTestAdd\nFAIL\n";
        let found = failures(testify);
        assert_eq!(found[0].expected.as_deref(), Some("3"));
        assert_eq!(found[0].actual.as_deref(), Some("1"));
        assert_eq!(found[0].places, [("calc_test.go".to_string(), 9)]);
    }

    #[test]
    fn junit_reports_give_values_and_the_test_s_frame() {
        let found = failures(include_str!("../fixtures/junit4.txt"));
        assert_eq!(found[0].expected.as_deref(), Some("3"));
        assert_eq!(found[0].actual.as_deref(), Some("1"));
        assert_eq!(
            found[0].places,
            [("com/example/CalcTest.java".to_string(), 10)]
        );
        assert_eq!(
            expected_but_was("org.opentest4j.AssertionFailedError: expected: <3> but was: <1>"),
            (Some("3".into()), Some("1".into()))
        );
        let gradle = "CalcTest > addsTwoNumbers() FAILED\n    org.opentest4j.AssertionFailedError at CalcTest.java:10\n";
        assert_eq!(failures(gradle)[0].test, "CalcTest > addsTwoNumbers()");
        assert_eq!(
            junit_header("com.example.CalcTest.adds -- Time elapsed: 0.01 s <<< FAILURE!"),
            Some("com.example.CalcTest.adds")
        );
    }
}
