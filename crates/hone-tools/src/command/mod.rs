//! Running commands: `run_command`, `run_tests`, and background jobs (`run_background`,
//! `check_background`, `stop_background`).
//!
//! Planning a command has no side effects: `run_command`, `run_background` and `run_tests`
//! return a [`CommandPlan`](crate::CommandPlan) that, once approved, [`execute`] runs. Every
//! command runs in the project root with stdin closed, as the leader of its own process
//! group, so a timeout, a cancellation or the end of the session kills everything it
//! started. Output reaches the model shortened by [`truncate_output`].

mod background;
mod buffer;
mod changes;
mod execute;
mod input;
mod launch;
mod process;
mod quote;
mod run_tests;
mod tools;
mod truncate;

use std::sync::Arc;

use crate::Tool;

pub use background::BackgroundJobs;
pub use changes::{ChangeTracking, ChangesState, CommandChanges};
pub use execute::{FullOutput, execute, execute_full};
pub use input::{InputRun, RunEnding, run_with_input};
pub(crate) use launch::Launcher;
pub use launch::{CommandSetup, SandboxHelper};
pub(crate) use quote::shell_quote;
pub(crate) use truncate::fits_whole;
pub use truncate::truncate_output;

/// The command tools.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(tools::RunCommand),
        Arc::new(tools::RunBackground),
        Arc::new(tools::CheckBackground),
        Arc::new(tools::StopBackground),
        Arc::new(run_tests::RunTests),
    ]
}
