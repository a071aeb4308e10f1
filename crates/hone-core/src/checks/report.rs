//! What the model is told about failing checks: the exact error lines and the code around
//! the places they name, with line numbers.

use std::path::Path;

use hone_policy::PathGuard;
use hone_tools::SyntaxChecker;

use hone_tools::project::is_test_path;

use super::failures::{digest, failures, strip_colors};
use super::leads::{Finder, leads};
use super::noise::{steady, without_noise};
use super::places::{inside_paths, places, read_inside};
use super::snippets::{by_file, snippet, snippets};

/// Lines of a failing command's output sent to the model, at most (head and tail kept).
const MAX_OUTPUT_LINES: usize = 80;

/// Places in a failure whose code is shown, at most.
const MAX_PLACES: usize = 4;

/// A changed file of at most this many lines is shown whole in a failure.
const MAX_WHOLE_LINES: usize = 150;

/// Changed files shown whole in a failure, at most.
const MAX_WHOLE_FILES: usize = 2;

/// One section per changed file with syntax errors: the errors and the code around the
/// first ones.
pub(crate) fn syntax_failures(
    guard: &PathGuard,
    changed: &[String],
    checker: &dyn SyntaxChecker,
) -> Vec<String> {
    let mut sections = Vec::new();
    for path in changed {
        let Some(source) = read_inside(guard, path) else {
            continue;
        };
        let Some(errors) = checker.syntax_errors(Path::new(path), &source) else {
            continue;
        };
        if errors.is_empty() {
            continue;
        }
        let mut section = format!("syntax errors in {path}:\n");
        for error in &errors {
            section.push_str(&format!(
                "{path}:{}:{}: {}\n",
                error.line, error.column, error.message
            ));
        }
        for error in errors.iter().take(2) {
            section.push_str(&snippet(path, &source, error.line));
        }
        sections.push(section);
    }
    sections
}

/// What the model is told of a failing command, and what it points at.
#[derive(Debug, Clone, Default)]
pub(crate) struct FailureReport {
    /// The text for the model.
    pub(crate) text: String,
    /// The first failing test and its message on one line (`add adds: Expected values to
    /// be strictly equal: 1 !== 3`), when the output names failing tests.
    pub(crate) summary: Option<String>,
    /// The project files the failing tests lead to (see [`leads`]).
    pub(crate) leads: Vec<String>,
}

/// The failure of `command`: the failing tests found in its whole output (`whole`: the
/// name, the place, the assertion, expected and actual), its output as the model reads
/// command output (`content`, shortened), and the code around the project places they
/// name, changed files first. `source_dirs` are where the tests' imports are looked for
/// besides the root.
pub(crate) fn command_failure(
    guard: &PathGuard,
    changed: &[String],
    command: &str,
    content: &str,
    whole: &str,
    source_dirs: &[String],
) -> FailureReport {
    // Paths inside the project read as the model knows them: a temporary checkout's
    // absolute path is long, and differs from run to run.
    let output = &inside_paths(&strip_colors(content), guard.root());
    let found = failures(&inside_paths(whole, guard.root()));
    let mut finder = Finder::new(guard);
    let resolved: Vec<Vec<(String, usize)>> = found
        .iter()
        .map(|failure| {
            failure
                .places
                .iter()
                .filter_map(|(path, line)| Some((finder.resolve(path)?, *line)))
                .collect()
        })
        .collect();
    let mut text = format!("$ {command}\n");
    if !found.is_empty() {
        // Each test's own line: its first place inside a test file, else its first.
        let places: Vec<Option<String>> = resolved
            .iter()
            .map(|places| {
                places
                    .iter()
                    .find(|(path, _)| is_test_path(path))
                    .or_else(|| places.first())
                    .map(|(path, line)| format!("{path}:{line}"))
            })
            .collect();
        text.push_str(&digest(&found, &places));
    }
    text.push_str(&shorten(&without_noise(output)));
    if !text.ends_with('\n') {
        text.push('\n');
    }
    // The changed files as they are now: what the model must correct, which may differ
    // from what it wrote (its code was merged into the file).
    let shown: Vec<(String, String)> = changed
        .iter()
        .filter_map(|path| {
            let source = read_inside(guard, path)?;
            (source.lines().count() <= MAX_WHOLE_LINES).then(|| (path.clone(), source))
        })
        .take(MAX_WHOLE_FILES)
        .collect();
    let mut all_places: Vec<(String, usize)> = resolved.iter().flatten().cloned().collect();
    for place in places(output, guard) {
        if !all_places.contains(&place) {
            all_places.push(place);
        }
    }
    let mut places = all_places.clone();
    places.retain(|(path, _)| !shown.iter().any(|(whole, _)| whole == path));
    places.sort_by_key(|(path, _)| !changed.contains(path));
    places.truncate(MAX_PLACES);
    for (path, lines) in by_file(&places) {
        if let Some(source) = read_inside(guard, &path) {
            text.push_str(&snippets(&path, &source, &lines));
        }
    }
    if let Some(hint) = tests_hint(&all_places, changed) {
        text.push_str(&hint);
    }
    for hint in super::hints::hints(guard, changed, output) {
        text.push_str(&hint);
        text.push('\n');
    }
    for (path, source) in shown {
        let language = path.rsplit_once('.').map_or("", |(_, extension)| extension);
        text.push_str(&format!(
            "{path} as it is now:\n```{language} {path}\n{}",
            source
        ));
        if !source.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("```\n");
    }
    let summary = found.first().map(|failure| {
        let message = failure.summary();
        let line = if message.is_empty() {
            failure.test.clone()
        } else {
            format!("{}: {message}", failure.test)
        };
        line.chars().take(200).collect()
    });
    FailureReport {
        text,
        summary,
        leads: leads(guard, &found, source_dirs),
    }
}

/// The user message asking for a repair; `with_tools` says whether the model has its edit
/// tools (a guided step has none: it answers with code blocks, which become the edit).
pub(crate) fn repair_message(
    failures: &[String],
    round: u32,
    max: u32,
    with_tools: bool,
) -> String {
    let how = if with_tools {
        "Fix the errors below with the edit tools, then answer in one or two sentences."
    } else {
        "Fix the errors below: write each function or class you change in full, corrected, \
         in one fenced code block per file, with the file's path after the language on the \
         opening line. Do not call tools."
    };
    format!(
        "[hone] The checks after your edits failed (repair round {round} of {max}). {how} If \
         a failure has nothing to do with your change, say so instead of changing unrelated \
         code.\n\n{}",
        failures.join("\n")
    )
}

/// What the model is told when it answers failing checks with the code already in place.
pub(crate) fn unchanged_repair_message(round: u32, max: u32) -> String {
    format!(
        "[hone] Your answer is the code the file already holds, and that code fails the checks \
         above (repair round {round} of {max}). Compare the expected and the actual values in \
         the failure, find the line that computes the wrong value, and write the function \
         again with that line corrected: the new code must differ from the current code."
    )
}

/// What a guided step's fresh attempt starts with: the failures of the earlier answers,
/// without their code (which is left out of the request so the model does not copy it).
pub(crate) fn fresh_attempt_message(failures: &[String], round: u32, max: u32) -> String {
    let failures: Vec<String> = failures
        .iter()
        .map(|text| without_current_code(text))
        .collect();
    format!(
        "[hone] Your earlier answers to this request were applied and the checks still fail \
         (repair round {round} of {max}), so they are left out here. What the checks \
         said:\n\n{}\nAnswer the request again with a different fix.",
        failures.join("\n")
    )
}

/// Whether two runs failed the same way: the same output, apart from the changed files'
/// code shown, the command's exit line (its timing) and the hint naming what to change
/// (it names the changed files).
pub(crate) fn same_failures(before: &[String], now: &[String]) -> bool {
    let gist = |failures: &[String]| -> Vec<String> {
        failures
            .iter()
            .map(|text| {
                without_current_code(text)
                    .lines()
                    .filter(|line| {
                        !line.starts_with("exit code ") && !line.starts_with(TESTS_HINT_START)
                    })
                    .map(steady)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect()
    };
    !before.is_empty() && gist(before) == gist(now)
}

/// `failure` without the changed files shown whole (`path as it is now:` and its block).
fn without_current_code(failure: &str) -> String {
    let mut kept = String::new();
    let mut skipping = false;
    let mut fences = 0;
    for line in failure.lines() {
        if !skipping && line.ends_with(" as it is now:") {
            skipping = true;
            fences = 0;
            continue;
        }
        if skipping {
            if line.starts_with("```") {
                fences += 1;
                if fences == 2 {
                    skipping = false;
                }
            }
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    kept
}

/// The first line of `output` that looks like an error, else its first output line.
pub(crate) fn first_error_line(output: &str) -> String {
    let output = strip_colors(output);
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("--- "))
        .collect();
    // TAP's `not ok 1 - name` says most of node's YAML-wrapped failures; YAML's
    // `error: |-` opens a block and says nothing.
    let named_test = lines
        .iter()
        .skip(1)
        .find(|line| line.starts_with("not ok "))
        .copied();
    // hone's own closing note ("The command failed with exit code 1. Read the errors
    // above, …") is about the run, not one of its errors.
    let lines: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| !line.ends_with(": |-") && !line.starts_with("The command failed with"))
        .collect();
    let tiers: [&[&str]; 2] = [
        &["error", "panicked", "exception"],
        &["fail", "assert", "expected"],
    ];
    let found = named_test
        .or_else(|| {
            tiers.iter().find_map(|markers| {
                lines.iter().skip(1).copied().find(|line| {
                    let lower = line.to_ascii_lowercase();
                    markers.iter().any(|marker| lower.contains(marker))
                })
            })
        })
        .or_else(|| lines.get(1).copied())
        .or_else(|| lines.first().copied())
        .unwrap_or("");
    found.chars().take(200).collect()
}

/// `output` with at most [`MAX_OUTPUT_LINES`] lines: the head and the tail.
fn shorten(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    if lines.len() <= MAX_OUTPUT_LINES {
        return output.to_string();
    }
    let half = MAX_OUTPUT_LINES / 2;
    format!(
        "{}\n[… {} lines …]\n{}\n",
        lines[..half].join("\n"),
        lines.len() - 2 * half,
        lines[lines.len() - half..].join("\n")
    )
}

/// How the [`tests_hint`] starts.
const TESTS_HINT_START: &str = "The failing tests ";

/// When the failure points into test files the model did not change: the tests state the
/// wanted behaviour, so the code they test is what must change.
fn tests_hint(places: &[(String, usize)], changed: &[String]) -> Option<String> {
    let mut tests: Vec<&str> = places
        .iter()
        .map(|(path, _)| path.as_str())
        .filter(|path| is_test_path(path) && !changed.iter().any(|done| done == path))
        .collect();
    tests.dedup();
    if tests.is_empty() {
        return None;
    }
    let code: Vec<&str> = changed
        .iter()
        .map(String::as_str)
        .filter(|path| !is_test_path(path))
        .collect();
    let target = if code.is_empty() {
        "the code they test".to_string()
    } else {
        code.join(", ")
    };
    Some(format!(
        "{TESTS_HINT_START}({}) state the wanted behaviour and are correct: change {target}, \
         not the tests.\n",
        tests.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guided_step_is_asked_for_code_blocks_not_tools() {
        let failures = ["npm test: # fail 1".to_string()];
        let agent = repair_message(&failures, 1, 3, true);
        assert!(agent.contains("edit tools"), "{agent}");
        let guided = repair_message(&failures, 1, 3, false);
        assert!(guided.contains("fenced code block"), "{guided}");
        assert!(guided.contains("Do not call tools"), "{guided}");
        assert!(guided.ends_with("npm test: # fail 1"), "{guided}");
    }

    #[test]
    fn python_tracebacks_show_the_code_around() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("calc.py"),
            "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
        )
        .unwrap();
        let output = format!(
            "exit code 1 · 0.1s\n--- stderr ---\nTraceback (most recent call last):\n  File \"{}/calc.py\", line 2, in add\nAssertionError: 5 != -1\n",
            dir.path().display()
        );
        let guard = PathGuard::new(dir.path()).unwrap();
        let text = command_failure(
            &guard,
            &["calc.py".into()],
            "python3 -m unittest",
            &output,
            &output,
            &[],
        )
        .text;
        assert!(text.starts_with("$ python3 -m unittest\n"), "{text}");
        assert!(text.contains("AssertionError: 5 != -1"), "{text}");
        // The changed file is shown whole, as the block the model writes back.
        assert!(
            text.contains(
                "calc.py as it is now:\n```py calc.py\ndef add(a, b):\n    return a - b\n"
            ),
            "{text}"
        );
        assert!(!text.contains("calc.py around line 2:"), "{text}");
        let unchanged =
            command_failure(&guard, &[], "python3 -m unittest", &output, &output, &[]).text;
        assert!(unchanged.contains("> 2 |     return a - b"), "{unchanged}");
        assert!(!unchanged.contains("as it is now"), "{unchanged}");
        assert_eq!(first_error_line(&output), "AssertionError: 5 != -1");
        // The temporary checkout's path is left out: the model knows the files by their
        // project paths.
        let root = dir.path().display().to_string();
        assert!(!text.contains(&root), "{text}");
        assert!(text.contains("File \"calc.py\", line 2"), "{text}");
    }

    #[test]
    fn the_failed_tests_name_is_the_summary() {
        let tap = "exit code 1\n--- stdout ---\nTAP version 13\n# Subtest: every word\nnot ok 1 - every word\n  error: |-\n    Expected values to be strictly equal:\n";
        assert_eq!(first_error_line(tap), "not ok 1 - every word");
        let yaml = "exit code 1\n  error: |-\n    Expected 'a' to equal 'b'\n";
        assert_eq!(first_error_line(yaml), "Expected 'a' to equal 'b'");
        // A main that prints its own failures: hone's note on the exit code is no error.
        let plain = "exit code 1\n--- stderr ---\nFAIL: new inventory is empty\nThe command failed with exit code 1. Read the errors above, fix the cause, then run it again.\n";
        assert_eq!(first_error_line(plain), "FAIL: new inventory is empty");
    }

    #[test]
    fn thread_ids_do_not_make_failures_differ() {
        let run = |id: &str| vec![format!("$ cargo test\nthread 'tests::odd' ({id}) panicked")];
        assert!(same_failures(&run("11020"), &run("11131")));
        assert!(!same_failures(
            &run("11020"),
            &["$ cargo test\nthread 'tests::even' (1) panicked".to_string()]
        ));
    }

    #[test]
    fn the_same_failure_reads_the_same_in_every_run() {
        let dir = tempfile::tempdir().unwrap();
        let guard = PathGuard::new(dir.path()).unwrap();
        let run = |seconds: &str, thread: &str, finished: &str| {
            let output = format!(
                "exit code 101 · {seconds}s\n--- stdout ---\nthread 'tests::odd' ({thread}) panicked at src/lib.rs:20:9:\nassertion failed: odd(3)\ntest result: FAILED. 0 passed; 1 failed; finished in {finished}s\n"
            );
            command_failure(&guard, &[], "cargo test", &output, &output, &[]).text
        };
        let first = run("0.5", "15477", "0.10");
        assert_eq!(first, run("0.4", "16318", "0.07"));
        assert!(first.contains("exit code 101\n"), "{first}");
        assert!(first.contains("thread 'tests::odd' panicked at"), "{first}");
        assert!(first.contains("1 failed; finished\n"), "{first}");
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let output: String = (0..200).map(|n| format!("line {n}\n")).collect();
        let short = shorten(&output);
        assert!(short.contains("line 0\n"));
        assert!(short.contains("line 199"));
        assert!(short.contains("[… 120 lines …]"));
    }

    #[test]
    fn failing_tests_the_model_did_not_touch_point_at_the_code() {
        let places = [("test/clamp.test.js".to_string(), 5)];
        let hint = tests_hint(&places, &["src/clamp.js".into()]).unwrap();
        assert!(hint.contains("(test/clamp.test.js)"), "{hint}");
        assert!(
            hint.contains("change src/clamp.js, not the tests"),
            "{hint}"
        );
        // Tests the model itself wrote, and failures outside tests, get no such hint.
        assert!(tests_hint(&places, &["test/clamp.test.js".into()]).is_none());
        assert!(tests_hint(&[("src/a.js".into(), 2)], &["src/a.js".into()]).is_none());
    }

    #[test]
    fn a_fresh_attempt_names_the_failures_but_not_the_failed_code() {
        let failure = "$ npm test\nnot ok 1 - every word\nsrc/a.js as it is now:\n```js src/a.js\nfunction a() {}\n```\nsrc/a.js defines `a` but does not export it.\n";
        let text = fresh_attempt_message(&[failure.to_string()], 2, 3);
        assert!(text.contains("(repair round 2 of 3)"), "{text}");
        assert!(text.contains("not ok 1 - every word\n"), "{text}");
        assert!(text.contains("does not export it"), "{text}");
        assert!(!text.contains("function a()"), "{text}");
        assert!(!text.contains("as it is now"), "{text}");
        assert!(text.ends_with("with a different fix."), "{text}");
    }

    #[test]
    fn failures_that_differ_only_in_timing_and_code_are_the_same() {
        let run = |seconds: &str, code: &str, failing: &str| {
            format!(
                "$ npm test\nexit code 1 · {seconds}s\nnot ok 1 - {failing}\nsrc/a.js as it is now:\n```js src/a.js\n{code}\n```\n"
            )
        };
        let first = [run("0.5", "function a() { return 1; }", "every word")];
        let again = [run("0.7", "function a() { return 2; }", "every word")];
        let other = [run("0.5", "function a() { return 3; }", "mixed case")];
        assert!(same_failures(&first, &again));
        // Python's and cargo's timing lines differ between runs of the same failure.
        let python = |seconds: &str| [format!("FAIL: test_a\nRan 3 tests in {seconds}s\n")];
        assert!(same_failures(&python("0.001"), &python("0.004")));
        let cargo = |seconds: &str| {
            [format!(
                "test result: FAILED. 1 passed; 1 failed; finished in {seconds}s\n"
            )]
        };
        assert!(same_failures(&cargo("0.00"), &cargo("0.01")));
        assert!(!same_failures(&python("0.001"), &cargo("0.001")));
        assert!(!same_failures(&first, &other));
        assert!(!same_failures(&[], &first));
    }
}
