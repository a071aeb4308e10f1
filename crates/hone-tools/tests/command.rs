//! The command tools end to end: planning, running, timeouts, cancellation, background jobs
//! and test-runner detection.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;
use std::time::{Duration, Instant};

use hone_tools::command::{execute, tools};
use hone_tools::{
    CommandPlan, Invocation, Plan, ToolContext, ToolError, ToolErrorKind, ToolKind, ToolOutput,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn project() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let context = ToolContext::new(dir.path()).unwrap();
    (dir, context)
}

fn plan(context: &ToolContext, name: &str, arguments: Value) -> Result<Plan, ToolError> {
    let tool = tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap();
    tool.plan(context, &arguments)
}

fn command_plan(context: &ToolContext, name: &str, arguments: Value) -> CommandPlan {
    match plan(context, name, arguments).unwrap() {
        Plan::Command(plan) => plan,
        other => panic!("expected a command plan, got {other:?}"),
    }
}

fn done(context: &ToolContext, name: &str, arguments: Value) -> ToolOutput {
    match plan(context, name, arguments).unwrap() {
        Plan::Done(output) => output,
        other => panic!("expected a finished tool, got {other:?}"),
    }
}

async fn run(context: &ToolContext, command: &str, timeout_secs: u64) -> ToolOutput {
    let plan = command_plan(
        context,
        "run_command",
        json!({"command": command, "timeout_secs": timeout_secs}),
    );
    execute(context, &plan, &CancellationToken::new()).await
}

/// Whether process `pid` still runs (zombies count as gone).
fn is_alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) if Path::new("/proc/self").exists() => false,
        Err(_) => std::process::Command::new("kill")
            .args(["-0", pid])
            .status()
            .is_ok_and(|status| status.success()),
    }
}

/// Waits up to five seconds for `pid` to be gone.
async fn is_gone_soon(pid: &str) -> bool {
    for _ in 0..50 {
        if !is_alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[test]
fn run_command_plans_a_shell_command_with_the_default_timeout() {
    let (_dir, context) = project();
    let plan = command_plan(&context, "run_command", json!({"command": "ls -la"}));
    assert_eq!(plan.display, "ls -la");
    assert_eq!(plan.invocation, Invocation::Shell("ls -la".to_string()));
    assert_eq!(plan.timeout, Duration::from_secs(120));
    assert!(!plan.background);
    let tool = tools()
        .into_iter()
        .find(|tool| tool.name() == "run_command")
        .unwrap();
    assert_eq!(tool.kind(), ToolKind::Command);
}

#[test]
fn run_command_refuses_out_of_range_timeouts_and_empty_commands() {
    let (_dir, context) = project();
    let too_long = plan(
        &context,
        "run_command",
        json!({"command": "make", "timeout_secs": 5000}),
    )
    .unwrap_err();
    assert!(too_long.message.contains("run_background"), "{too_long}");
    assert!(
        plan(
            &context,
            "run_command",
            json!({"command": "x", "timeout_secs": 0})
        )
        .is_err()
    );
    let empty = plan(&context, "run_command", json!({"command": "  "})).unwrap_err();
    assert_eq!(empty.kind, ToolErrorKind::InvalidArguments);
}

#[tokio::test]
async fn a_successful_command_reports_exit_code_duration_and_stdout() {
    let (dir, context) = project();
    std::fs::write(dir.path().join("marker.txt"), "").unwrap();
    let output = run(&context, "ls", 10).await;
    assert!(!output.is_error, "{}", output.content);
    assert!(
        output.content.starts_with("exit code 0 · "),
        "{}",
        output.content
    );
    assert!(
        output.content.contains("--- stdout ---\nmarker.txt\n"),
        "{}",
        output.content
    );
}

#[tokio::test]
async fn a_failing_command_is_an_error_showing_stderr_and_a_hint() {
    let (_dir, context) = project();
    let output = run(&context, "echo out; echo oops >&2; exit 3", 10).await;
    assert!(output.is_error);
    assert!(
        output.content.starts_with("exit code 3 · "),
        "{}",
        output.content
    );
    assert!(
        output
            .content
            .contains("--- stdout ---\nout\n--- stderr ---\noops\n")
    );
    assert!(
        output.content.contains("fix the cause"),
        "{}",
        output.content
    );
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_tree_promptly() {
    let (dir, context) = project();
    let started = Instant::now();
    let output = run(
        &context,
        "sleep 30 & echo $! > child.pid; echo started; sleep 30",
        1,
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(output.is_error);
    assert!(output.content.contains("started\n"), "{}", output.content);
    assert!(
        output.content.contains("[timed out after 1 s; killed]"),
        "{}",
        output.content
    );
    let pid = std::fs::read_to_string(dir.path().join("child.pid")).unwrap();
    assert!(is_gone_soon(pid.trim()).await, "background sleep survived");
}

#[tokio::test]
async fn processes_left_behind_by_a_finished_command_are_killed() {
    let (dir, context) = project();
    let started = Instant::now();
    let output = run(&context, "sleep 30 & echo $! > child.pid", 10).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(!output.is_error, "{}", output.content);
    assert!(
        output.content.contains("left running were killed"),
        "{}",
        output.content
    );
    let pid = std::fs::read_to_string(dir.path().join("child.pid")).unwrap();
    assert!(is_gone_soon(pid.trim()).await);
}

#[tokio::test]
async fn cancelling_kills_the_command_promptly() {
    let (_dir, context) = project();
    let plan = command_plan(&context, "run_command", json!({"command": "sleep 30"}));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let output = execute(&context, &plan, &cancel).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(output.is_error);
    assert!(output.content.contains("[cancelled]"), "{}", output.content);
}

#[tokio::test]
async fn long_output_is_truncated_for_the_model() {
    let (_dir, context) = project();
    let output = run(&context, "seq 1 5000; echo 'error: broke' >&2", 10).await;
    assert!(
        output
            .content
            .contains("[... 4840 lines omitted (5000 lines total); no error"),
        "{}",
        output.content
    );
    assert!(output.content.contains("--- stderr ---\nerror: broke\n"));
}

#[tokio::test]
async fn argv_plans_run_without_a_shell() {
    let (_dir, context) = project();
    let plan = CommandPlan {
        display: "printf".to_string(),
        invocation: Invocation::Argv(vec![
            "printf".to_string(),
            "%s".to_string(),
            "a; echo b $(id)".to_string(),
        ]),
        timeout: Duration::from_secs(10),
        background: false,
    };
    let output = execute(&context, &plan, &CancellationToken::new()).await;
    assert!(
        output.content.contains("--- stdout ---\na; echo b $(id)\n"),
        "{}",
        output.content
    );
}

#[tokio::test]
async fn a_missing_program_is_reported_as_an_error() {
    let (_dir, context) = project();
    let plan = CommandPlan {
        display: "no-such-program-hone".to_string(),
        invocation: Invocation::Argv(vec!["no-such-program-hone".to_string()]),
        timeout: Duration::from_secs(10),
        background: false,
    };
    let output = execute(&context, &plan, &CancellationToken::new()).await;
    assert!(output.is_error);
    assert!(
        output.content.contains("could not start"),
        "{}",
        output.content
    );
}

/// Checks job `id` until its new output contains `needle`, returning everything seen.
async fn check_until(context: &ToolContext, id: u64, needle: &str) -> String {
    let mut seen = String::new();
    for _ in 0..100 {
        seen.push_str(&done(context, "check_background", json!({"id": id})).content);
        if seen.contains(needle) {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("`{needle}` never appeared: {seen}");
}

#[tokio::test]
async fn background_jobs_start_report_new_output_and_stop() {
    let (dir, context) = project();
    let command = "echo first; while [ ! -f go ]; do sleep 0.05; done; echo second; sleep 30";
    let plan = command_plan(&context, "run_background", json!({"command": command}));
    assert!(plan.background);
    let started = execute(&context, &plan, &CancellationToken::new()).await;
    assert!(!started.is_error);
    assert!(
        started
            .content
            .starts_with(&format!("started background job 1: {command}\n")),
        "{}",
        started.content
    );

    let first = check_until(&context, 1, "--- new output ---\nfirst\n").await;
    assert!(first.contains("running for"), "{first}");
    std::fs::write(dir.path().join("go"), "").unwrap();
    let second = check_until(&context, 1, "--- new output ---\nsecond\n").await;
    assert!(!second.contains("first\n"), "{second}");

    let stopped = done(&context, "stop_background", json!({"id": 1}));
    assert!(
        stopped.content.starts_with("stopped background job 1"),
        "{}",
        stopped.content
    );
    let after = done(&context, "check_background", json!({"id": 1}));
    assert!(
        after.content.contains("stopped with stop_background"),
        "{}",
        after.content
    );
}

#[tokio::test]
async fn a_finished_background_job_reports_its_exit_code() {
    let (_dir, context) = project();
    let plan = command_plan(
        &context,
        "run_background",
        json!({"command": "echo done; exit 4"}),
    );
    execute(&context, &plan, &CancellationToken::new()).await;
    let seen = check_until(&context, 1, "exited with code 4").await;
    assert!(seen.contains("done"), "{seen}");
}

#[tokio::test]
async fn unknown_job_ids_list_the_known_ones() {
    let (_dir, context) = project();
    let none = plan(&context, "check_background", json!({"id": 1})).unwrap_err();
    assert!(none.message.contains("run_background"), "{none}");
    let plan_job = command_plan(&context, "run_background", json!({"command": "sleep 30"}));
    execute(&context, &plan_job, &CancellationToken::new()).await;
    let unknown = plan(&context, "stop_background", json!({"id": 7})).unwrap_err();
    assert_eq!(unknown.kind, ToolErrorKind::InvalidArguments);
    assert!(unknown.message.contains("1 (`sleep 30`)"), "{unknown}");
}

#[tokio::test]
async fn dropping_the_context_kills_background_jobs() {
    let (dir, context) = project();
    let plan = command_plan(
        &context,
        "run_background",
        json!({"command": "sleep 30 & echo $! > child.pid; wait"}),
    );
    execute(&context, &plan, &CancellationToken::new()).await;
    let pid_file = dir.path().join("child.pid");
    for _ in 0..50 {
        if std::fs::read_to_string(&pid_file).is_ok_and(|pid| !pid.trim().is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(is_alive(pid.trim()));
    drop(context);
    assert!(is_gone_soon(pid.trim()).await);
}

fn tests_plan(files: &[&str], arguments: Value) -> Result<CommandPlan, ToolError> {
    let (dir, context) = project();
    for file in files {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "").unwrap();
    }
    match plan(&context, "run_tests", arguments)? {
        Plan::Command(plan) => Ok(plan),
        other => panic!("expected a command plan, got {other:?}"),
    }
}

fn tests_command(files: &[&str], arguments: Value) -> String {
    let plan = tests_plan(files, arguments).unwrap();
    assert_eq!(plan.invocation, Invocation::Shell(plan.display.clone()));
    plan.display
}

#[test]
fn run_tests_uses_cargo_for_rust_projects() {
    let plan = tests_plan(&["Cargo.toml"], json!({})).unwrap();
    assert_eq!(plan.display, "cargo test");
    assert_eq!(plan.timeout, Duration::from_secs(600));
    assert_eq!(
        tests_command(&["Cargo.toml"], json!({"filter": "parser::"})),
        "cargo test parser::"
    );
}

#[test]
fn run_tests_picks_the_package_manager_by_lockfile() {
    assert_eq!(tests_command(&["package.json"], json!({})), "npm test");
    assert_eq!(
        tests_command(&["package.json"], json!({"filter": "login"})),
        "npm test -- login"
    );
    assert_eq!(
        tests_command(
            &["package.json", "pnpm-lock.yaml"],
            json!({"filter": "a b"})
        ),
        "pnpm test 'a b'"
    );
    assert_eq!(
        tests_command(&["package.json", "yarn.lock"], json!({})),
        "yarn test"
    );
}

#[test]
fn run_tests_uses_pytest_for_python_projects_or_unittest_without_it() {
    let probe = tempfile::tempdir().unwrap();
    let pytest = hone_tools::project::Installed::python_module(
        &hone_tools::project::ThisMachine,
        probe.path(),
        "python3",
        "pytest",
    );
    for markers in [
        &["pyproject.toml", "tests/test_parser.py"][..],
        &["pytest.ini", "tests/test_parser.py"],
        &["setup.cfg", "tests/test_parser.py"],
        &["tests/test_parser.py"],
    ] {
        let command = tests_command(markers, json!({"filter": "parse"}));
        assert!(command.starts_with("python"), "{command}");
        if pytest {
            assert!(command.ends_with(" -m pytest -k parse"), "{command}");
        } else {
            assert!(
                command.ends_with(" -m unittest discover -q -k parse -s tests"),
                "{command}"
            );
        }
    }
    let command = tests_command(
        &["pyproject.toml", "tests/test_parser.py"],
        json!({"path": "tests/test_parser.py"}),
    );
    let expected = if pytest {
        " -m pytest tests/test_parser.py"
    } else {
        " -m unittest -q tests/test_parser.py"
    };
    assert!(command.ends_with(expected), "{command}");
}

#[test]
fn run_tests_uses_go_test_for_go_modules() {
    assert_eq!(
        tests_command(&["go.mod"], json!({"filter": "TestParse"})),
        "go test ./... -run TestParse"
    );
}

#[test]
fn run_tests_enters_the_project_found_under_path() {
    assert_eq!(
        tests_command(
            &["web/package.json", "web/src/a.ts"],
            json!({"path": "web/src"})
        ),
        "cd web && npm test"
    );
}

#[test]
fn run_tests_quotes_a_hostile_filter_as_one_argument() {
    assert_eq!(
        tests_command(&["Cargo.toml"], json!({"filter": "foo; rm -rf /"})),
        "cargo test 'foo; rm -rf /'"
    );
    assert_eq!(
        tests_command(&["go.mod"], json!({"filter": "x' && reboot '"})),
        r"go test ./... -run 'x'\'' && reboot '\'''"
    );
}

#[test]
fn run_tests_without_a_known_project_suggests_run_command() {
    let error = tests_plan(&["README.md"], json!({})).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::NotFound);
    assert!(error.message.contains("Cargo.toml"), "{error}");
    assert!(error.message.contains("run_command"), "{error}");
}

#[test]
fn run_tests_refuses_paths_outside_the_project() {
    let error = tests_plan(&["Cargo.toml"], json!({"path": "../.."})).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::PathRefused);
}
