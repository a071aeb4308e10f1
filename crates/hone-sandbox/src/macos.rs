//! macOS: a Seatbelt profile run through `/usr/bin/sandbox-exec`. Untested: hone's CI runs
//! on Linux only.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{ALWAYS_WRITABLE, Support};

/// The Seatbelt front end.
const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// Whether `sandbox-exec` is there.
pub(crate) fn support() -> Support {
    if Path::new(SANDBOX_EXEC).exists() {
        Support::Seatbelt
    } else {
        Support::Unavailable(format!("{SANDBOX_EXEC} is missing"))
    }
}

/// `program args` under `sandbox-exec` with a profile that allows everything but writes
/// outside `writable` (and, without `network`, network access).
pub(crate) fn command(
    writable: &[PathBuf],
    network: bool,
    program: &OsString,
    args: &[OsString],
) -> Command {
    let mut profile = String::from("(version 1)\n(allow default)\n(deny file-write*)\n");
    let mut parameters = Vec::new();
    for (index, path) in writable
        .iter()
        .map(|path| path.canonicalize().unwrap_or_else(|_| path.clone()))
        .chain(ALWAYS_WRITABLE.iter().map(PathBuf::from))
        .enumerate()
    {
        profile.push_str(&format!(
            "(allow file-write* (subpath (param \"WRITABLE_{index}\")))\n"
        ));
        parameters.push(format!("-DWRITABLE_{index}={}", path.display()));
    }
    if !network {
        profile.push_str("(deny network*)\n(allow network* (remote unix-socket))\n");
    }
    let mut command = Command::new(SANDBOX_EXEC);
    command
        .arg("-p")
        .arg(profile)
        .args(parameters)
        .arg("--")
        .arg(program)
        .args(args);
    command
}
