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

/// `output` without its [noise](is_noise) lines.
pub(super) fn without_noise(output: &str) -> String {
    output
        .lines()
        .filter(|line| !is_noise(line))
        .map(|line| format!("{line}\n"))
        .collect()
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
    fn rust_backtraces_keep_only_the_projects_frames() {
        let output = "thread 'tests::odd' (11020) panicked at src/lib.rs:20:9:\nassertion failed: odd(3)\nstack backtrace:\n   0: __rustc::rust_begin_unwind\n             at /rustc/5980/library/std/src/panicking.rs:689:5\n   2: core::panicking::panic\n   3: words::tests::odd\n             at ./src/lib.rs:20:9\n   6: <fn() -> core::result::Result<(), String> as core::ops::function::FnOnce<()>>::call_once\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n";
        assert_eq!(
            without_noise(output),
            "thread 'tests::odd' (11020) panicked at src/lib.rs:20:9:\nassertion failed: odd(3)\n   3: words::tests::odd\n             at ./src/lib.rs:20:9\n"
        );
    }
}
