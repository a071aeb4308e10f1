//! Test runs that say nothing about the code: the runner could not collect or import the
//! tests, is not installed, found none, or could not fetch what the build needs. Before
//! any change such a run is hone's problem (the wrong command for the project), never the
//! bug the model is asked to fix; hone reports it and tries the next command.

/// Why `output` (a test command's output, stdout and stderr) shows that no test ran, as
/// a short note; `None` when tests ran, passing or failing.
pub(crate) fn harness_problem(output: &str, exit_code: Option<i32>) -> Option<String> {
    let lines: Vec<&str> = output.lines().map(str::trim).collect();
    let has = |needle: &str| lines.iter().any(|line| line.contains(needle));
    let line_with = |needle: &str| lines.iter().find(|line| line.contains(needle)).copied();
    // The last error line of the traceback after a marker (the cause, not the import
    // machinery's wrapper): `ModuleNotFoundError: No module named 'shop'`.
    let error_after = |marker: &str| {
        let start = lines.iter().position(|line| line.contains(marker))?;
        lines[start + 1..]
            .iter()
            .take_while(|line| !line.starts_with("Ran ") && !line.starts_with("====="))
            .filter(|line| is_python_error(line))
            .last()
            .map(|line| line.to_string())
    };
    let with_detail = |text: &str, detail: Option<String>| match detail {
        Some(detail) => format!("{text} ({detail})"),
        None => text.to_string(),
    };
    if has("unittest.loader._FailedTest") || has("ImportError: Failed to import test module") {
        return Some(with_detail(
            "a test module could not be imported",
            error_after("_FailedTest").or_else(|| error_after("Failed to import test module")),
        ));
    }
    if let Some(line) = lines
        .iter()
        .rev()
        .find(|line| line.starts_with("ImportError: Start directory is not importable"))
    {
        return Some(format!("unittest could not start: {line}"));
    }
    if has("error during collection")
        || has("errors during collection")
        || has("ImportError while loading conftest")
    {
        let detail = lines
            .iter()
            .find_map(|line| line.strip_prefix("E "))
            .map(|line| line.trim().to_string());
        return Some(with_detail("pytest could not collect the tests", detail));
    }
    if has("No module named pytest") {
        return Some("pytest is not installed".to_string());
    }
    if let Some(line) = line_with("ERROR: file or directory not found") {
        return Some(format!("pytest: {line}"));
    }
    if lines.iter().any(|line| {
        line.starts_with("ERROR: usage:") || line.contains("error: unrecognized arguments")
    }) {
        let detail = line_with("error:").map(str::to_string);
        return Some(with_detail("pytest refused its arguments", detail));
    }
    let no_tests = lines.iter().any(|line| {
        line.starts_with("Ran 0 tests")
            || *line == "NO TESTS RAN"
            || line.contains("= no tests ran")
            || *line == "# tests 0"
            || *line == "ℹ tests 0"
            || line.starts_with("No tests found")
            || line.contains("No test files found")
            || line.contains("No tests were executed")
            || line.contains("No tests found for given includes")
    });
    if no_tests {
        return Some("no tests were found".to_string());
    }
    if let Some(line) = lines
        .iter()
        .find(|line| line.contains("Missing script:") || line.contains("missing script:"))
    {
        let script = line.rsplit(':').next().unwrap_or_default().trim();
        return Some(format!("the package has no {script} script"));
    }
    if let Some(line) = lines.iter().find(|line| {
        line.contains("No rule to make target 'test'")
            || line.contains("No rule to make target `test'")
    }) {
        return Some(format!("make: {}", line.trim_start_matches("make: ")));
    }
    if let Some(program) = missing_program(&lines, exit_code) {
        return Some(format!("`{program}` is not installed"));
    }
    if let Some(package) = missing_package(&lines) {
        return Some(format!(
            "the package `{package}` is not installed (the project's dependencies are missing)"
        ));
    }
    const FETCHING: &[&str] = &[
        "Could not resolve dependencies",
        "Could not transfer artifact",
        "Non-resolvable parent POM",
        "could not be resolved",
        "Could not resolve all",
        "failed to get `",
        "no matching package named",
        "failed to download",
        "missing go.sum entry",
        "cannot find main module",
        "could not find `Cargo.toml`",
    ];
    if let Some(line) = lines
        .iter()
        .find(|line| FETCHING.iter().any(|marker| line.contains(marker)))
    {
        return Some(format!(
            "the build's dependencies are not available here: {}",
            shortened(line)
        ));
    }
    None
}

/// `ModuleNotFoundError: …`, `ImportError: …`, `SyntaxError: …`.
fn is_python_error(line: &str) -> bool {
    let name = line.split(':').next().unwrap_or_default();
    !name.is_empty()
        && !name.contains(' ')
        && (name.ends_with("Error") || name.ends_with("Exception"))
        && line.contains(": ")
}

/// The program the shell could not find (`sh: 1: jest: not found`, `bash: tox: command not
/// found`, exit code 127).
fn missing_program(lines: &[&str], exit_code: Option<i32>) -> Option<String> {
    let found = lines.iter().find_map(|line| {
        let rest = line
            .strip_suffix(": not found")
            .or_else(|| line.strip_suffix(": command not found"))?;
        Some(rest.rsplit(": ").next().unwrap_or(rest).trim().to_string())
    });
    match found {
        Some(program) if !program.is_empty() => Some(program),
        _ if exit_code == Some(127) => Some("the test program".to_string()),
        _ => None,
    }
}

/// A package Node could not find (`Cannot find module 'jest'`): not one of the project's
/// own files (`./x`, `../src/x`, an absolute path), which may be what the tests are about.
fn missing_package(lines: &[&str]) -> Option<String> {
    lines.iter().find_map(|line| {
        let (_, rest) = line.split_once("Cannot find module '")?;
        let name = rest.split('\'').next()?;
        (!name.is_empty() && !name.starts_with('.') && !name.starts_with('/'))
            .then(|| name.to_string())
    })
}

fn shortened(line: &str) -> String {
    line.trim_start_matches("[ERROR] ")
        .chars()
        .take(160)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> &'static str {
        match name {
            "unittest_failedtest" => include_str!("fixtures/unittest_failedtest.txt"),
            "unittest_not_importable" => include_str!("fixtures/unittest_not_importable.txt"),
            "unittest_no_tests" => include_str!("fixtures/unittest_no_tests.txt"),
            "pytest_collection_error" => include_str!("fixtures/pytest_collection_error.txt"),
            "pytest_missing" => include_str!("fixtures/pytest_missing.txt"),
            "pytest_no_tests" => include_str!("fixtures/pytest_no_tests.txt"),
            "npm_missing_script" => include_str!("fixtures/npm_missing_script.txt"),
            _ => panic!("no fixture {name}"),
        }
    }

    #[test]
    fn import_and_collection_failures_are_the_harness() {
        assert_eq!(
            harness_problem(fixture("unittest_failedtest"), Some(1)).as_deref(),
            Some(
                "a test module could not be imported (ModuleNotFoundError: No module named 'shop')"
            )
        );
        assert_eq!(
            harness_problem(fixture("pytest_collection_error"), Some(2)).as_deref(),
            Some(
                "pytest could not collect the tests (ModuleNotFoundError: No module named 'shop')"
            )
        );
        let not_importable = harness_problem(fixture("unittest_not_importable"), Some(1)).unwrap();
        assert!(
            not_importable.starts_with("unittest could not start: ImportError: Start directory"),
            "{not_importable}"
        );
    }

    #[test]
    fn missing_runners_scripts_and_tests_are_the_harness() {
        assert_eq!(
            harness_problem(fixture("pytest_missing"), Some(1)).as_deref(),
            Some("pytest is not installed")
        );
        assert_eq!(
            harness_problem(fixture("npm_missing_script"), Some(1)).as_deref(),
            Some("the package has no \"test\" script")
        );
        assert_eq!(
            harness_problem(fixture("pytest_no_tests"), Some(5)).as_deref(),
            Some("no tests were found")
        );
        assert_eq!(
            harness_problem(fixture("unittest_no_tests"), Some(0)).as_deref(),
            Some("no tests were found")
        );
        assert_eq!(
            harness_problem("sh: 1: jest: not found\n", Some(127)).as_deref(),
            Some("`jest` is not installed")
        );
        assert_eq!(
            harness_problem("make: *** No rule to make target 'test'.  Stop.\n", Some(2))
                .as_deref(),
            Some("make: *** No rule to make target 'test'.  Stop.")
        );
        assert_eq!(
            harness_problem("Error: Cannot find module 'vitest/config'\n", Some(1)).as_deref(),
            Some(
                "the package `vitest/config` is not installed (the project's dependencies are missing)"
            )
        );
        let offline =
            crate::checks::failures::strip_colors(include_str!("fixtures/mvn_offline.txt"));
        let note = harness_problem(&offline, Some(1)).unwrap();
        assert!(
            note.starts_with("the build's dependencies are not available here: Plugin org.apache.maven.plugins:maven-resources-plugin"),
            "{note}"
        );
    }

    #[test]
    fn failing_assertions_are_not_the_harness() {
        for name in [
            include_str!("fixtures/unittest_failure.txt"),
            include_str!("fixtures/pytest_failures.txt"),
            include_str!("fixtures/npm_node_test.txt"),
            include_str!("fixtures/npm_jest.txt"),
            include_str!("fixtures/cargo_test.txt"),
            include_str!("fixtures/go_test.txt"),
            include_str!("fixtures/junit4.txt"),
            include_str!("fixtures/mvn_surefire.txt"),
        ] {
            assert_eq!(harness_problem(name, Some(1)), None, "{name}");
        }
        // A relative module the tests import is the project's own: maybe the bug.
        assert_eq!(
            harness_problem("Error: Cannot find module '../src/math'\n", Some(1)),
            None
        );
    }
}
