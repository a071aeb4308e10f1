//! What in a check's output says nothing about the failure: runtime stack frames, timing
//! and bookkeeping, package-manager warnings, build progress.

/// Lines of test runners' output that say nothing about the failure: runtime stack frames,
/// timing and bookkeeping, package-manager warnings, build progress.
fn is_noise(line: &str) -> bool {
    let trimmed = line.trim();
    const PREFIXES: &[&str] = &[
        "duration_ms:",
        "failureType:",
        "code: 'ERR_",
        "operator:",
        "npm warn",
        "npm WARN",
        "# suites ",
        "# cancelled ",
        "# skipped ",
        "# todo ",
        "# duration_ms ",
        "Compiling ",
        "Finished ",
        "Running ",
        "note: run with `RUST_BACKTRACE=1`",
        "stack backtrace:",
        "note: Some details are omitted",
    ];
    const INSIDE: &[&str] = &[
        "node:internal/",
        "node:async_hooks",
        "java.base/",
        "jdk.internal.",
        "/rustc/",
    ];
    trimmed == "..."
        || trimmed == "---"
        || PREFIXES.iter().any(|prefix| trimmed.starts_with(prefix))
        || INSIDE.iter().any(|inside| trimmed.contains(inside))
        || is_rust_runtime_frame(trimmed)
}

/// A frame of a Rust backtrace (`RUST_BACKTRACE=1`) inside the standard library or the
/// test harness: `2: core::panicking::panic`, `6: <fn() -> … as …>::call_once`.
fn is_rust_runtime_frame(trimmed: &str) -> bool {
    let Some((number, function)) = trimmed.split_once(": ") else {
        return false;
    };
    !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit())
        && ["__rustc::", "core::", "std::", "alloc::", "test::", "<"]
            .iter()
            .any(|runtime| function.starts_with(runtime))
}

/// `output` without its [noise](is_noise) lines, each line kept [steady](steady).
pub(super) fn without_noise(output: &str) -> String {
    output
        .lines()
        .filter(|line| !is_noise(line))
        .map(|line| format!("{}\n", steady(line)))
        .collect()
}

/// `line` as it reads in every run of the same failure: the durations runners and hone print
/// are left out (`exit code 101 · 0.4s`, `finished in 0.07s`, `Ran 3 tests in 0.001s`,
/// `1 failed in 0.12s`, `--- FAIL: TestX (0.00s)`, `(12ms)`, the last field of go's
/// tab-separated `FAIL` line), and so is a panicking thread's id (`thread 'tests::x' (11020)
/// panicked`). They change from run to run, and the model's answer changes with any byte of
/// its request: with them the same failure got different repairs, and the eval's results
/// were not repeatable. The line otherwise reads as the runner wrote it (`Ran 3 tests`,
/// `exit code 101`); a duration a test asserts on (`elapsed < 2s`) is kept.
pub(super) fn steady(line: &str) -> String {
    let thread_line = line.starts_with("thread '");
    // The words kept, each with the separator after it.
    let mut kept: Vec<(String, &str)> = Vec::new();
    for piece in line.split_inclusive([' ', '\t']) {
        let word = piece.trim_end_matches([' ', '\t']);
        let separator = &piece[word.len()..];
        let after_name = kept.last().is_some_and(|(last, _)| last.ends_with('\''));
        if thread_line && after_name && is_thread_id(word) {
            continue;
        }
        let Some((before, after)) = duration(word) else {
            kept.push((word.to_string(), separator));
            continue;
        };
        let introduced = kept
            .last()
            .is_some_and(|(last, _)| last == "in" || last == "·");
        let bracketed = before == "(" && after.starts_with(')');
        let tabbed = kept.last().is_some_and(|(_, gap)| gap.contains('\t'));
        if !(introduced || bracketed || tabbed) {
            kept.push((word.to_string(), separator));
            continue;
        }
        if introduced {
            kept.pop();
        }
        // What followed the duration (`,` `.`) goes on the word before it.
        let rest = if bracketed { &after[1..] } else { after };
        match kept.last_mut() {
            Some((last, gap)) => {
                last.push_str(rest);
                *gap = separator;
            }
            None if !rest.is_empty() => kept.push((rest.to_string(), separator)),
            None => {}
        }
    }
    kept.into_iter()
        .flat_map(|(word, separator)| [word, separator.to_string()])
        .collect()
}

/// `(11020)`: a thread's id after its name.
fn is_thread_id(word: &str) -> bool {
    word.strip_prefix('(')
        .and_then(|rest| rest.strip_suffix(')'))
        .is_some_and(|id| !id.is_empty() && id.bytes().all(|byte| byte.is_ascii_digit()))
}

/// When `word` is a duration (`0.5s`, `12ms`, `(0.00s)`, `0.001s,`): what comes before and
/// after its number and unit.
fn duration(word: &str) -> Option<(&str, &str)> {
    let start = usize::from(word.starts_with('('));
    let core = word[start..].trim_end_matches([',', ';', ')', '.', ':']);
    let number = core.strip_suffix("ms").or_else(|| core.strip_suffix('s'))?;
    let (whole, fraction) = number.split_once('.').unwrap_or((number, "0"));
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit());
    (digits(whole) && digits(fraction)).then(|| (&word[..start], &word[start + core.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_noise_is_left_out_and_the_assertion_kept() {
        let output = "not ok 2 - peek leaves the item\n  ---\n  duration_ms: 0.19\n  failureType: 'testCodeFailure'\n  error: |-\n    Expected values to be strictly equal:\n    undefined !== 2\n  code: 'ERR_ASSERTION'\n  stack: |-\n    TestContext.<anonymous> (/p/test/stack.test.js:14:10)\n    Test.run (node:internal/test_runner/test:796:25)\n  ...\n# suites 0\nnpm warn Unknown user config\n";
        let kept = without_noise(output);
        assert_eq!(
            kept,
            "not ok 2 - peek leaves the item\n  error: |-\n    Expected values to be strictly equal:\n    undefined !== 2\n  stack: |-\n    TestContext.<anonymous> (/p/test/stack.test.js:14:10)\n"
        );
    }

    #[test]
    fn durations_and_thread_ids_read_the_same_in_every_run() {
        let cases = [
            ("exit code 101 · 0.4s", "exit code 101"),
            (
                "thread 'tests::odd' (15477) panicked at src/lib.rs:20:9:",
                "thread 'tests::odd' panicked at src/lib.rs:20:9:",
            ),
            (
                "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.07s",
                "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished",
            ),
            ("Ran 3 tests in 0.001s", "Ran 3 tests"),
            (
                "==== 1 failed, 2 passed in 0.12s ====",
                "==== 1 failed, 2 passed ====",
            ),
            ("1 failed in 0.12s.", "1 failed."),
            ("--- FAIL: TestReverse (0.00s)", "--- FAIL: TestReverse"),
            ("FAIL\texample.com/words\t0.005s", "FAIL\texample.com/words"),
            ("  ✔ trims (12ms), then", "  ✔ trims, then"),
            ("(3ms) first", "first"),
        ];
        for (line, expected) in cases {
            assert_eq!(steady(line), expected, "{line}");
        }
    }

    #[test]
    fn numbers_that_are_not_durations_are_kept() {
        for line in [
            "assertion `left == right` failed: left: 3 right: 4",
            "expected \"2s\" got \"3s\"",
            "version v1.5s (12) and 1.2.3s",
            "called `foo` (42) times",
            "assertion failed: elapsed < 2s",
            "the request took 3.5s, 1.2s (0.5s",
            "thread 'main' panicked at src/main.rs:2:5:",
            "- hello  ",
            "\t+ hello\t",
        ] {
            assert_eq!(steady(line), line);
        }
    }

    #[test]
    fn rust_backtraces_keep_only_the_projects_frames() {
        let output = "thread 'tests::odd' (11020) panicked at src/lib.rs:20:9:\nassertion failed: odd(3)\nstack backtrace:\n   0: __rustc::rust_begin_unwind\n             at /rustc/5980/library/std/src/panicking.rs:689:5\n   2: core::panicking::panic\n   3: words::tests::odd\n             at ./src/lib.rs:20:9\n   6: <fn() -> core::result::Result<(), String> as core::ops::function::FnOnce<()>>::call_once\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n";
        assert_eq!(
            without_noise(output),
            "thread 'tests::odd' panicked at src/lib.rs:20:9:\nassertion failed: odd(3)\n   3: words::tests::odd\n             at ./src/lib.rs:20:9\n"
        );
    }
}
