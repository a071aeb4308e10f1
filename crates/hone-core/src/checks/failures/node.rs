//! JavaScript test runners: node's test runner (its TAP and spec reporters), jest,
//! vitest and mocha.

use super::{TestFailure, frame_place};

/// Node's TAP reporter: each `not ok N - name` with its YAML block (`location`, the
/// `error` text, `expected`, `actual`, the first project frame of `stack`). Suites that
/// failed because a test in them did are left out.
pub(super) fn tap(lines: &[&str]) -> Vec<TestFailure> {
    let mut found = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let trimmed = lines[index].trim_start();
        let Some(rest) = trimmed.strip_prefix("not ok ") else {
            index += 1;
            continue;
        };
        let name = rest.split_once(" - ").map_or(rest, |(_, name)| name);
        let mut failure = TestFailure::named(name.trim_end_matches(" # TODO"));
        let indent = indentation(lines[index]);
        index += 1;
        let mut suite = false;
        // Where the test is declared: after the stack's frames (the assertion's line).
        let mut location = None;
        // The YAML block: `---` to `...`, more indented than the `not ok` line.
        let mut field = "";
        let mut field_indent = 0;
        while index < lines.len() {
            let line = lines[index];
            let inner = line.trim();
            if indentation(line) <= indent && !inner.is_empty() {
                break;
            }
            index += 1;
            if inner == "---" {
                continue;
            }
            if inner == "..." {
                break;
            }
            let this_indent = indentation(line);
            if let Some((key, value)) =
                yaml_field(inner).filter(|_| field.is_empty() || this_indent <= field_indent)
            {
                field = key;
                field_indent = this_indent;
                let value = value.trim();
                match key {
                    "location" => location = frame_place(value),
                    "failureType" => suite = value.contains("subtestsFailed"),
                    "error" if !value.starts_with('|') => failure.add_message(unquote(value)),
                    "expected" if !value.is_empty() => {
                        failure.expected = Some(unquote(value).into())
                    }
                    "actual" if !value.is_empty() => failure.actual = Some(unquote(value).into()),
                    _ => {}
                }
                continue;
            }
            match field {
                "error" => failure.add_message(inner),
                "stack" => {
                    if let Some((path, number)) = frame_place(inner) {
                        failure.add_place(&path, number);
                    }
                }
                "expected" | "actual" => {
                    let value = if field == "expected" {
                        &mut failure.expected
                    } else {
                        &mut failure.actual
                    };
                    let joined = match value.take() {
                        Some(known) => format!("{known} {inner}"),
                        None => inner.to_string(),
                    };
                    *value = Some(joined);
                }
                _ => {}
            }
        }
        if let Some((path, number)) = location {
            failure.add_place(&path, number);
        }
        if !suite {
            found.push(failure);
        }
    }
    found
}

/// `key: value` of a YAML block line (`error: |-`, `expected: 3`).
fn yaml_field(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    (!key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some((key, value))
}

fn unquote(value: &str) -> &str {
    value.trim().trim_matches('\'')
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Node's spec reporter: the `✖ failing tests:` section (each `test at path:line`, `✖ name`,
/// the message, the first project frame, `actual`/`expected`).
pub(super) fn spec(lines: &[&str]) -> Vec<TestFailure> {
    let Some(start) = lines
        .iter()
        .position(|line| line.trim() == "✖ failing tests:")
    else {
        return Vec::new();
    };
    let mut found: Vec<TestFailure> = Vec::new();
    let mut location = None;
    let mut in_frames = false;
    for line in &lines[start + 1..] {
        let inner = line.trim();
        if let Some(place) = inner.strip_prefix("test at ") {
            location = frame_place(place);
            continue;
        }
        if let Some(name) = inner.strip_prefix("✖ ") {
            let mut failure = TestFailure::named(without_duration(name));
            if let Some((path, number)) = location.take() {
                failure.add_place(&path, number);
            }
            found.push(failure);
            in_frames = false;
            continue;
        }
        let Some(failure) = found.last_mut() else {
            continue;
        };
        if inner.starts_with("at ") {
            in_frames = true;
            if let Some((path, number)) = frame_place(inner) {
                failure.add_place(&path, number);
            }
        } else if let Some(value) = inner.strip_prefix("actual: ") {
            failure.actual = Some(value.trim_end_matches(',').to_string());
        } else if let Some(value) = inner.strip_prefix("expected: ") {
            failure.expected = Some(value.trim_end_matches(',').to_string());
        } else if !in_frames {
            failure.add_message(inner);
        }
    }
    found
}

/// `add adds (9.84ms)` → `add adds`.
fn without_duration(name: &str) -> &str {
    match name.rsplit_once(" (") {
        Some((head, tail)) if tail.ends_with("ms)") || tail.ends_with("s)") => head,
        _ => name,
    }
}

/// jest: each `● suite › name` block: the message (up to the code frame), `Expected:` and
/// `Received:`, the first project frame.
pub(super) fn jest(lines: &[&str]) -> Vec<TestFailure> {
    let mut found: Vec<TestFailure> = Vec::new();
    let mut in_frame = false;
    for line in lines {
        let inner = line.trim();
        if let Some(name) = inner.strip_prefix("● ") {
            if name.starts_with("Console") {
                continue;
            }
            found.push(TestFailure::named(name));
            in_frame = false;
            continue;
        }
        let Some(failure) = found.last_mut() else {
            continue;
        };
        if inner.starts_with("Test Suites:") || inner.starts_with("Tests:") {
            break;
        }
        if inner.starts_with("at ") {
            in_frame = true;
            if failure.places.is_empty()
                && let Some((path, number)) = frame_place(inner)
            {
                failure.add_place(&path, number);
            }
            continue;
        }
        if is_code_frame(inner) {
            in_frame = true;
            continue;
        }
        if in_frame {
            continue;
        }
        if let Some(value) = inner.strip_prefix("Expected: ") {
            failure.expected = Some(value.to_string());
        } else if let Some(value) = inner.strip_prefix("Received: ") {
            failure.actual = Some(value.to_string());
        }
        failure.add_message(inner);
    }
    found
}

/// A line of a code frame: `> 5 | expect(…)`, `  4 |   test(…)`, `    |     ^`.
fn is_code_frame(line: &str) -> bool {
    let line = line.trim_start_matches('>').trim_start();
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let rest = line[digits..].trim_start();
    rest.starts_with('|')
        && (digits > 0
            || rest
                .trim_start_matches('|')
                .trim()
                .chars()
                .all(|c| c == '^'))
}

/// vitest: each `FAIL  file > suite > name` block: the message, the `- Expected` / `+
/// Received` values, the `❯ path:line:column` place.
pub(super) fn vitest(lines: &[&str]) -> Vec<TestFailure> {
    let mut found: Vec<TestFailure> = Vec::new();
    let mut in_frame = false;
    let mut diff = false;
    for line in lines {
        let inner = line.trim();
        if let Some(rest) = inner.strip_prefix("FAIL ")
            && let Some((_, name)) = rest.trim().split_once(" > ")
        {
            found.push(TestFailure::named(name));
            in_frame = false;
            diff = false;
            continue;
        }
        let Some(failure) = found.last_mut() else {
            continue;
        };
        if inner.starts_with('⎯') || inner.starts_with("Test Files") {
            in_frame = true;
            continue;
        }
        if let Some(place) = inner.strip_prefix("❯ ") {
            in_frame = true;
            if let Some((path, number)) = frame_place(place) {
                failure.add_place(&path, number);
            }
            continue;
        }
        if in_frame || inner.is_empty() {
            continue;
        }
        if inner == "- Expected" || inner == "+ Received" {
            diff = true;
            continue;
        }
        if diff && let Some(value) = inner.strip_prefix("- ") {
            failure.expected.get_or_insert_with(|| value.to_string());
        } else if diff && let Some(value) = inner.strip_prefix("+ ") {
            failure.actual.get_or_insert_with(|| value.to_string());
        } else {
            failure.add_message(inner);
        }
    }
    found
}

/// mocha: after `N failing`, each `1) suite` / `name:` block: the message, the `+ expected
/// - actual` values, the first project frame.
pub(super) fn mocha(lines: &[&str]) -> Vec<TestFailure> {
    let Some(start) = lines.iter().position(|line| {
        let inner = line.trim();
        inner.ends_with(" failing")
            && inner
                .split(' ')
                .next()
                .is_some_and(|count| count.parse::<u32>().is_ok())
    }) else {
        return Vec::new();
    };
    let mut found: Vec<TestFailure> = Vec::new();
    // The title is still being read (it ends with a `:` line).
    let mut titling = false;
    let mut diff = false;
    let mut in_frames = false;
    for line in &lines[start + 1..] {
        let inner = line.trim();
        if let Some((number, title)) = inner.split_once(") ")
            && !number.is_empty()
            && number.chars().all(|c| c.is_ascii_digit())
            && indentation(line) <= 4
        {
            found.push(TestFailure::named(title.trim_end_matches(':')));
            titling = !title.ends_with(':');
            diff = false;
            in_frames = false;
            continue;
        }
        let Some(failure) = found.last_mut() else {
            continue;
        };
        if titling {
            if !inner.is_empty() {
                failure.test = format!("{} {}", failure.test, inner.trim_end_matches(':'));
                titling = !inner.ends_with(':');
            }
            continue;
        }
        if inner.starts_with("at ") {
            in_frames = true;
            if failure.places.is_empty()
                && let Some((path, number)) = frame_place(inner)
            {
                failure.add_place(&path, number);
            }
            continue;
        }
        if in_frames || inner.is_empty() {
            continue;
        }
        if inner == "+ expected - actual" {
            diff = true;
            continue;
        }
        if diff && let Some(value) = inner.strip_prefix('+') {
            failure.expected.get_or_insert_with(|| value.to_string());
        } else if diff && let Some(value) = inner.strip_prefix('-') {
            failure.actual.get_or_insert_with(|| value.to_string());
        } else {
            failure.add_message(inner);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::failures;

    #[test]
    fn node_tap_gives_the_error_values_and_location() {
        let found = failures(include_str!("../fixtures/npm_node_test.txt"));
        assert_eq!(
            found[0].message,
            ["Expected values to be strictly equal:", "1 !== 3"]
        );
        assert_eq!(found[0].expected.as_deref(), Some("3"));
        assert_eq!(found[0].actual.as_deref(), Some("1"));
        assert_eq!(
            found[0].places,
            [
                ("/tmp/cap/js/test/math.test.js".to_string(), 6),
                ("/tmp/cap/js/test/math.test.js".to_string(), 5)
            ]
        );
        assert_eq!(found[1].test, "add of arrays");
        assert_eq!(found[1].expected.as_deref(), Some("0: 2"));
        assert_eq!(found[1].actual.as_deref(), Some("0: 0"));
    }

    #[test]
    fn a_suite_failing_for_its_test_is_not_a_failure_of_its_own() {
        let output = "not ok 1 - math\n  ---\n  duration_ms: 1\n  failureType: 'subtestsFailed'\n  error: '1 subtest failed'\n  ...\n    not ok 1 - adds\n      ---\n      error: 'boom'\n      ...\n";
        let found = failures(output);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].test, "adds");
        assert_eq!(found[0].message, ["boom"]);
    }

    #[test]
    fn node_spec_jest_vitest_and_mocha_give_message_values_and_place() {
        let spec = failures(include_str!("../fixtures/node_test_spec.txt"));
        assert_eq!(spec[0].places[0], ("test/math.test.js".to_string(), 5));
        assert_eq!(spec[0].expected.as_deref(), Some("3"));
        assert_eq!(spec[0].actual.as_deref(), Some("1"));
        assert!(spec[0].summary().contains("1 !== 3"), "{:?}", spec[0]);
        let jest = failures(include_str!("../fixtures/npm_jest.txt"));
        assert_eq!(jest[0].expected.as_deref(), Some("3"));
        assert_eq!(jest[0].actual.as_deref(), Some("1"));
        assert_eq!(jest[0].places, [("test/math.test.js".to_string(), 5)]);
        assert!(!jest[0].summary().contains('|'), "{:?}", jest[0]);
        let vitest = failures(include_str!("../fixtures/npm_vitest.txt"));
        assert_eq!(
            vitest[0].message[0],
            "AssertionError: expected 1 to be 3 // Object.is equality"
        );
        assert_eq!(vitest[0].expected.as_deref(), Some("3"));
        assert_eq!(vitest[0].actual.as_deref(), Some("1"));
        assert_eq!(vitest[0].places, [("test/math.test.js".to_string(), 6)]);
        let mocha = failures(include_str!("../fixtures/npm_mocha.txt"));
        assert_eq!(mocha[0].expected.as_deref(), Some("3"));
        assert_eq!(mocha[0].actual.as_deref(), Some("1"));
        assert_eq!(mocha[0].places, [("test/math.test.js".to_string(), 6)]);
        assert!(mocha[0].summary().contains("1 !== 3"), "{:?}", mocha[0]);
    }
}
