//! `hone eval SUITE_DIR`: runs a suite of tasks against the configured model (hone-eval,
//! with this binary as the `hone exec` child and the same `--provider`, `--model`,
//! `--base-url` and `--profile`) and prints how many it solved.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use hone_eval::{EvalError, Outcome, Runner, Summary, Task};
use hone_protocol::{ErrorCategory, HoneError};

use crate::cli::GlobalArgs;

/// `hone eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The suite: a directory of tasks, each a directory with a task.toml (prompt, check,
    /// timeout, language, tags) and the repository snapshot repo/.
    #[arg(value_name = "SUITE_DIR")]
    pub suite: PathBuf,

    /// Print one JSON object per task, then a summary object.
    #[arg(long)]
    pub json: bool,

    /// Run only this task (repeatable).
    #[arg(long = "task", value_name = "NAME")]
    pub tasks: Vec<String>,

    /// Keep each task's working copy and print where it is.
    #[arg(long)]
    pub keep: bool,

    /// Check the suite instead of running the model: each task's check must fail on repo/
    /// and pass with solution/ copied over it.
    #[arg(long)]
    pub verify: bool,

    /// The approval mode of each task's turn: full-auto (the default) or auto-edit (edits
    /// apply, the model's commands are refused without a terminal; hone's checks still run).
    #[arg(
        long,
        value_name = "MODE",
        value_parser = ["auto-edit", "full-auto"],
        default_value = "full-auto"
    )]
    pub approval: String,
}

/// Runs `hone eval`.
pub(crate) async fn run(global: &GlobalArgs, args: &EvalArgs) -> Result<ExitCode, HoneError> {
    let tasks = hone_eval::load_suite(&args.suite, &args.tasks).map_err(|e| hone_error(&e))?;
    if args.verify {
        return verify(&tasks).await;
    }
    let hone = std::env::current_exe()
        .map_err(|error| HoneError::config(format!("cannot find the hone binary: {error}")))?;
    let mut flags: Vec<OsString> = Vec::new();
    for (flag, value) in [
        ("--provider", &global.provider),
        ("--model", &global.model),
        ("--base-url", &global.base_url),
        ("--profile", &global.profile),
    ] {
        if let Some(value) = value {
            flags.extend([flag.into(), value.into()]);
        }
    }
    let runner = Runner {
        hone,
        args: flags,
        approval: args.approval.clone(),
    };
    if !args.json {
        eprintln!(
            "hone eval: {} tasks from {}, --approval {}",
            tasks.len(),
            args.suite.display(),
            args.approval
        );
        println!("{}", hone_eval::report::header());
    }
    let mut outcomes = Vec::new();
    for task in &tasks {
        let outcome = runner
            .run_task(task, args.keep)
            .await
            .unwrap_or_else(|error| Outcome::error(&error));
        print_task(task, &outcome, args.json);
        outcomes.push(outcome);
    }
    let summary = Summary::of(&outcomes);
    println!("{}", hone_eval::report::summary_text(&summary, args.json));
    Ok(ExitCode::SUCCESS)
}

/// The exit category of an eval error: a bad suite is invalid input, the rest a failed tool.
fn hone_error(error: &EvalError) -> HoneError {
    let category = match error {
        _ if error.is_invalid_suite() => ErrorCategory::Validation,
        EvalError::Start(_) => ErrorCategory::Config,
        _ => ErrorCategory::Tool,
    };
    HoneError::new(category, error.to_string())
}

fn print_task(task: &Task, outcome: &Outcome, json: bool) {
    let mut stdout = std::io::stdout().lock();
    let _ = write!(
        stdout,
        "{}",
        hone_eval::report::task_text(task, outcome, json)
    );
    let _ = stdout.flush();
}

/// `--verify`: each check fails on the snapshot and passes with the solution.
async fn verify(tasks: &[Task]) -> Result<ExitCode, HoneError> {
    let mut broken = 0;
    for task in tasks {
        match hone_eval::verify_task(task)
            .await
            .map_err(|e| hone_error(&e))?
        {
            None => println!("ok      {}", task.name),
            Some(problem) => {
                broken += 1;
                println!("BROKEN  {}: {problem}", task.name);
            }
        }
    }
    println!("{} of {} tasks verified", tasks.len() - broken, tasks.len());
    Ok(if broken == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
