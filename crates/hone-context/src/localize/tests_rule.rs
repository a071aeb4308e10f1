//! Test files and requests about tests: a test file is attached only when the request is
//! about tests, since a test that uses the function a report names matches every word of
//! the report and crowds out the code at fault.

use super::frames::frames;

pub use hone_protocol::is_test_path;

/// Words that ask to run something: tests named after them ("run the tests") are not what
/// the request is about.
const RUN_WORDS: &[&str] = &["run", "rerun", "execute", "launch", "start"];

/// Whether `request` is about tests: it names a test file or test function, or speaks of
/// tests other than to run them ("add a test", "the tests fail", "fix test_total"; not
/// "fix add() and run the tests").
pub fn about_tests(request: &str) -> bool {
    // A pasted traceback's frames name test files and functions whatever the request is.
    let prose: Vec<&str> = request
        .lines()
        .filter(|line| frames(line).is_empty())
        .collect();
    let words: Vec<String> = prose
        .join("\n")
        .split_whitespace()
        .map(|raw| {
            raw.trim_matches(|c: char| !(c.is_alphanumeric() || "_./-".contains(c)))
                .to_string()
        })
        .filter(|word| !word.is_empty())
        .collect();
    words.iter().enumerate().any(|(index, word)| {
        let lower = word.to_ascii_lowercase();
        let test_word = matches!(
            lower.as_str(),
            "test" | "tests" | "testing" | "tested" | "spec" | "specs" | "testcase" | "testcases"
        );
        if test_word {
            // "run the tests", "run npm test", "execute the unit tests"
            let run_before = words[index.saturating_sub(3)..index]
                .iter()
                .any(|before| RUN_WORDS.contains(&before.to_ascii_lowercase().as_str()));
            return !run_before;
        }
        let named = (word.contains('/') || word.contains('.')) && is_test_path(word);
        let function = lower.starts_with("test_")
            || (lower.starts_with("test") && word.chars().nth(4).is_some_and(char::is_uppercase));
        named || function
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_are_recognised_by_directory_and_name() {
        assert!(is_test_path("src/TestMain.java"));
        assert!(is_test_path("tests/test_cart.py"));
        assert!(is_test_path("src/math.test.ts"));
        assert!(is_test_path("pkg/sum_test.go"));
        assert!(is_test_path("test/format.test.js"));
        assert!(!is_test_path("src/latest.py"));
        assert!(!is_test_path("src/StringUtils.java"));
        assert!(!is_test_path("src/contest.rs"));
    }

    #[test]
    fn requests_about_tests() {
        for request in [
            "Add a test for clamp",
            "The tests fail. Make them pass without changing the tests.",
            "fix test_total in tests/test_cart.py",
            "testEmptyCart is red",
            "update cart.test.js for the new API",
            "Write unit tests for the parser",
        ] {
            assert!(about_tests(request), "{request}");
        }
    }

    #[test]
    fn running_the_tests_is_not_about_them() {
        for request in [
            "The add() function in src/math.js is wrong; fix it and run the tests",
            "fix the cart total, then run npm test",
            "Titles come out wrong: titleCase('hello') returns 'Hello'. Fix it.",
            "Add a peek() method to the Stack class in stack.js",
            "the latest ordered items are wrong",
            "Totals are off:\n  File \"/p/tests/test_cart.py\", line 9, in test_total\nAssertionError",
        ] {
            assert!(!about_tests(request), "{request}");
        }
    }
}
