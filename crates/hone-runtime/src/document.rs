//! Where `hone context` saves its documents (`.hone/context/<time>.md`, kept out of git)
//! and the UTC time stamps that name them; [`write_context`] writes one.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use hone_config::Config;
use hone_context::TrackMode;
use hone_protocol::HoneError;

/// Where `hone context` saves its documents, relative to the project root.
pub const CONTEXT_DIR: &str = ".hone/context";

/// Writes `document` atomically to `.hone/context/<stem>.md` (with `-N` added when that
/// name is taken) and keeps the directory out of git.
pub fn save(root: &Path, stem: &str, document: &str) -> Result<PathBuf, HoneError> {
    let dir = root.join(CONTEXT_DIR);
    let failed = |error: std::io::Error| {
        HoneError::config(format!(
            "cannot save the document in {}: {error}",
            dir.display()
        ))
    };
    // Through real directories only: a `.hone` symlinked elsewhere is refused.
    hone_fs::hone_dir(root)
        .and_then(|_| hone_fs::create_dir_inside(root, Path::new(CONTEXT_DIR)))
        .map_err(failed)?;
    let ignore = dir.join(".gitignore");
    if std::fs::symlink_metadata(&ignore).is_err() {
        hone_fs::replace_regular(&ignore, b"*\n").map_err(failed)?;
    }
    let mut path = dir.join(format!("{stem}.md"));
    let mut suffix = 1;
    // A dangling symlink takes its name too: the document never goes through a link.
    while std::fs::symlink_metadata(&path).is_ok() {
        suffix += 1;
        path = dir.join(format!("{stem}-{suffix}.md"));
    }
    hone_fs::write_atomically(&path, document.as_bytes(), None).map_err(failed)?;
    Ok(path)
}

/// A UTC time of day, enough for file names and a heading.
pub struct Utc {
    year: i64,
    month: u32,
    day: u32,
    hour: u64,
    minute: u64,
    second: u64,
}

impl Utc {
    /// The current time.
    pub fn now() -> Self {
        let seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        Self::from_unix(seconds)
    }

    /// The time `seconds` after 1970-01-01 00:00:00 UTC.
    pub fn from_unix(seconds: u64) -> Self {
        let days = i64::try_from(seconds / 86_400).unwrap_or(0);
        let (year, month, day) = civil_from_days(days);
        let rest = seconds % 86_400;
        Self {
            year,
            month,
            day,
            hour: rest / 3_600,
            minute: rest % 3_600 / 60,
            second: rest % 60,
        }
    }

    /// `20250102-030405`.
    pub fn file_stem(&self) -> String {
        format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `2025-01-02 03:04:05 UTC`.
    pub fn display(&self) -> String {
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// Year, month and day of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

/// A `hone context` document, written and saved.
#[derive(Debug)]
pub struct ContextDocument {
    /// The markdown text.
    pub text: String,
    /// Where it was saved, relative to the project root.
    pub saved: PathBuf,
    /// How many instruction files it holds.
    pub instruction_files: usize,
    /// How many chosen files it holds.
    pub files: usize,
    /// Its estimated size in tokens.
    pub tokens: usize,
}

/// Writes the project's instructions (read from the root down to `working_dir`, as a session
/// reads them) and the files `globs` name (relative to `root`; none: only the instructions)
/// in `mode` into one markdown document and saves it under `.hone/context/`. `warn` hears
/// patterns that match nothing and files skipped.
pub fn write_context(
    config: &Config,
    root: &Path,
    working_dir: &Path,
    globs: &[String],
    mode: TrackMode,
    warn: &mut dyn FnMut(&str),
) -> Result<ContextDocument, HoneError> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let instructions = crate::context::instructions(config, &root, working_dir);
    let resolved = hone_context::resolve(&root, globs)
        .map_err(|error| HoneError::validation(error.to_string()))?;
    for pattern in &resolved.unmatched {
        warn(&format!("`{pattern}` matches no file"));
    }
    if resolved.truncated {
        warn(&format!(
            "more than {} files matched; only the first were included",
            hone_context::MAX_TRACKED_FILES
        ));
    }
    if !globs.is_empty() && resolved.files.is_empty() {
        return Err(HoneError::validation(
            "no file matches; give paths or globs relative to the project root, e.g. \
             'src/**/*.rs'",
        ));
    }
    let mut files = Vec::new();
    for path in &resolved.files {
        match hone_context::snapshot(&root, path, mode, Some(&crate::context::IndexOutliner)) {
            Ok(snapshot) => files.push(snapshot),
            Err(error) => warn(&format!("skipped: {error}")),
        }
    }
    let project = root.file_name().map_or_else(
        || root.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let now = Utc::now();
    let text = hone_context::render_document(&project, &now.display(), &instructions, &files);
    let saved = save(&root, &now.file_stem(), &text)?;
    Ok(ContextDocument {
        saved: saved.strip_prefix(&root).unwrap_or(&saved).to_path_buf(),
        tokens: hone_context::Tokenizer::Estimate.count(&text),
        text,
        instruction_files: instructions.files.len(),
        files: files.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_times_become_utc_dates() {
        let time = Utc::from_unix(1_735_787_045);
        assert_eq!(time.display(), "2025-01-02 03:04:05 UTC");
        assert_eq!(time.file_stem(), "20250102-030405");
        assert_eq!(Utc::from_unix(0).display(), "1970-01-01 00:00:00 UTC");
        assert_eq!(
            Utc::from_unix(951_782_400).display(),
            "2000-02-29 00:00:00 UTC"
        );
    }

    #[test]
    fn documents_get_free_names_inside_an_ignored_directory() {
        let dir = tempfile::tempdir().unwrap();
        let first = save(dir.path(), "20250102-030405", "# one").unwrap();
        let second = save(dir.path(), "20250102-030405", "# two").unwrap();
        assert!(
            first.ends_with(".hone/context/20250102-030405.md"),
            "{first:?}"
        );
        assert!(
            second.ends_with(".hone/context/20250102-030405-2.md"),
            "{second:?}"
        );
        assert_eq!(std::fs::read_to_string(&second).unwrap(), "# two");
        let ignore = dir.path().join(CONTEXT_DIR).join(".gitignore");
        assert_eq!(std::fs::read_to_string(ignore).unwrap(), "*\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_hone_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(".hone")).unwrap();
        let error = save(dir.path(), "stem", "# doc").unwrap_err();
        assert!(
            error.message.contains("cannot save the document"),
            "{error:?}"
        );
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }
}
