//! pytest's `FAILURES`/`ERRORS` sections and unittest's `FAIL:`/`ERROR:` blocks.

use super::TestFailure;

/// pytest: each `____ name ____` block of the `FAILURES` and `ERRORS` sections: its `E`
/// lines and its `path:line:` places.
pub(super) fn pytest(lines: &[&str]) -> Vec<TestFailure> {
    let mut found: Vec<TestFailure> = Vec::new();
    let mut in_section = false;
    for line in lines {
        let trimmed = line.trim();
        if let Some(title) = section_title(trimmed) {
            in_section = title == "FAILURES" || title == "ERRORS";
            continue;
        }
        if !in_section {
            continue;
        }
        if let Some(name) = block_title(trimmed) {
            found.push(TestFailure::named(name));
            continue;
        }
        let Some(failure) = found.last_mut() else {
            continue;
        };
        if let Some(message) = line.strip_prefix("E ") {
            failure.add_message(message);
        } else if let Some((path, number)) = pytest_place(trimmed) {
            failure.add_place(&path, number);
        }
    }
    found
}

/// `==== FAILURES ====` → `FAILURES`.
fn section_title(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("===")?.trim_start_matches('=');
    let inner = inner.strip_suffix("===")?.trim_end_matches('=');
    Some(inner.trim())
}

/// `____ TotalTest.test_x ____` → `TotalTest.test_x` (not the `_ _ _` frame separators).
fn block_title(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("___")?.trim_start_matches('_');
    let inner = inner.strip_suffix("___")?.trim_end_matches('_');
    let inner = inner.trim();
    (!inner.is_empty() && !inner.starts_with("_ ")).then_some(inner)
}

/// `tests/test_cart.py:8: AssertionError` → the path and line.
fn pytest_place(line: &str) -> Option<(String, usize)> {
    let (path, rest) = line.split_once(".py:")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = &rest[digits.len()..];
    if digits.is_empty() || !after.starts_with(':') || path.contains(' ') {
        return None;
    }
    Some((format!("{path}.py"), digits.parse().ok()?))
}

/// unittest: each `FAIL: name` or `ERROR: name` block: the traceback's frames and the
/// lines after them (the exception and its message).
pub(super) fn unittest(lines: &[&str]) -> Vec<TestFailure> {
    let mut found: Vec<TestFailure> = Vec::new();
    let mut inside = false;
    let mut after_frame = false;
    for (index, line) in lines.iter().enumerate() {
        let after_rule = index > 0 && lines[index - 1].starts_with("=====");
        let header = line
            .strip_prefix("FAIL: ")
            .or_else(|| line.strip_prefix("ERROR: "));
        if let Some(name) = header.filter(|_| after_rule) {
            // `test_add (test_calc.T.test_add)`: the dotted id says it all.
            let id = name
                .strip_suffix(')')
                .and_then(|head| head.rsplit_once(" ("))
                .map_or(name, |(_, id)| id);
            found.push(TestFailure::named(id));
            inside = true;
            continue;
        }
        let Some(failure) = found.last_mut().filter(|_| inside) else {
            continue;
        };
        if let Some((path, number)) = python_frame(line) {
            failure.add_place(&path, number);
            after_frame = true;
            continue;
        }
        if after_frame && line.starts_with("    ") {
            // The frame's source line, or the `^^^` under it.
            continue;
        }
        after_frame = false;
        if line.starts_with("=====") || line.starts_with("-----") && !failure.message.is_empty() {
            inside = false;
            continue;
        }
        if line.starts_with("-----") || line.starts_with("Traceback ") {
            continue;
        }
        failure.add_message(line);
    }
    found
}

/// `  File "path", line 8, in test_x` → the path and line.
pub(super) fn python_frame(line: &str) -> Option<(String, usize)> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (path, rest) = rest.split_once('"')?;
    let rest = rest.trim_start().strip_prefix(", line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((path.to_string(), digits.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::super::failures;

    #[test]
    fn pytest_blocks_keep_their_e_lines_and_places() {
        let found = failures(include_str!("../fixtures/pytest_failures.txt"));
        assert_eq!(found[0].message, ["AssertionError: 0.0 != 90"]);
        assert_eq!(found[0].places, [("tests/test_cart.py".to_string(), 8)]);
        assert_eq!(found[1].test, "test_total_plain");
        assert_eq!(found[1].message, ["assert 0.0 == 90"]);
        // The error inside the code under test: its frame comes last.
        assert_eq!(
            found[2].places,
            [
                ("tests/test_plain.py".to_string(), 11),
                ("src/shop/prices.py".to_string(), 2)
            ]
        );
        assert_eq!(
            found[2].message,
            ["TypeError: unsupported operand type(s) for /: 'str' and 'int'"]
        );
    }

    #[test]
    fn pytest_collection_errors_are_failures_too() {
        let found = failures(include_str!("../fixtures/pytest_collection_error.txt"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].test, "ERROR collecting tests/test_cart.py");
        assert_eq!(
            found[0].message,
            ["ModuleNotFoundError: No module named 'shop'"]
        );
        // The import machinery's frame first, the test's line last.
        assert_eq!(
            found[0].places.last(),
            Some(&("tests/test_cart.py".to_string(), 3))
        );
    }

    #[test]
    fn unittest_blocks_keep_the_exception_and_the_frames() {
        let found = failures(include_str!("../fixtures/unittest_failure.txt"));
        assert_eq!(found[0].message, ["AssertionError: 0.0 != 90"]);
        assert_eq!(
            found[0].places,
            [("/tmp/cap/pysrc/tests/test_cart.py".to_string(), 8)]
        );
        let multi = "======================================================================\nFAIL: test_list (t.T.test_list)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"t.py\", line 4, in test_list\n    self.assertEqual([1], [2])\nAssertionError: Lists differ: [1] != [2]\n\nFirst differing element 0:\n1\n2\n\n----------------------------------------------------------------------\nRan 1 test in 0.000s\n";
        let found = failures(multi);
        assert_eq!(
            found[0].message,
            [
                "AssertionError: Lists differ: [1] != [2]",
                "First differing element 0:",
                "1",
                "2"
            ]
        );
    }
}
