//! What `hone exec --json` and `hone ask --json` print: `hone-api` event frames, one JSON
//! object per line on stdout, ending with one `result` event (`docs/protocol.md`).

use std::io::Write;

use hone_api::{Event, EventFrame, RunStatus};
use hone_protocol::HoneError;

/// The request id of a run's prompt (its `user.message`); the turn's events carry it.
pub(crate) const PROMPT_ID: &str = "prompt";

/// The request id of `hone exec --file`'s `files.track`.
pub(crate) const FILES_ID: &str = "files";

/// Prints one frame as a line on stdout, every control character escaped
/// (`hone_api::display::json`).
pub(crate) fn print(frame: &EventFrame) {
    if let Ok(line) = hone_api::display::json(frame) {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
    }
}

pub(crate) use hone_runtime::RunRecord;

/// Prints an error that stopped a run (before its session started, or before its turn
/// ended) and the run's `result`.
pub(crate) fn print_failure(record: &RunRecord, error: &HoneError) {
    print(&EventFrame::new(
        None,
        Event::Error {
            error: hone_core::error_info(error.clone()),
        },
    ));
    print(&EventFrame::new(
        None,
        record.result(
            RunStatus::Failed,
            hone_runtime::exit_code(error.category),
            Some(error),
        ),
    ));
}
