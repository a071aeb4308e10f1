//! hone's evaluation harness (`hone eval SUITE_DIR`).
//!
//! A suite is a directory of tasks, each a directory with a `task.toml` (prompt, check,
//! timeout, language, tags), the repository snapshot `repo/` and the reference solution
//! `solution/` ([`load_suite`]). Each task runs in a temporary copy of its `repo/`
//! committed to a new git repository ([`WorkingCopy`]): one
//! `hone exec --approval MODE --json` turn (`full-auto` or `auto-edit`; the hone binary as a
//! child process, [`Runner`]), then the task's check command; the task is solved when the check exits 0
//! ([`Outcome`], [`Summary`]). [`verify_task`] checks the suite instead: every check must
//! fail on the snapshot and pass with `solution/` copied over it. Nothing here prints.

mod copy;
mod error;
pub mod report;
mod run;
mod task;

pub use copy::WorkingCopy;
pub use error::EvalError;
pub use run::{Outcome, Problem, Runner, Summary, telling_line, verify_task};
pub use task::{Task, TaskFile, load_suite};
