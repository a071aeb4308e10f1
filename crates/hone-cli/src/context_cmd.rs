//! `hone context`: the project instructions and chosen files as one markdown document, and
//! the one-line notices of context events.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;
use hone_context::{TrackMode, render_document};
use hone_protocol::HoneError;
use hone_runtime::context::{IndexOutliner, instructions};

use crate::cli::GlobalArgs;

/// Where `hone context` saves its documents, relative to the project root.
pub(crate) const CONTEXT_DIR: &str = ".hone/context";

/// `hone context`.
#[derive(Debug, Args)]
pub struct ContextArgs {
    /// Files to include: paths, directories or globs such as `src/**/*.rs` (relative to the
    /// project root; .gitignore is honoured). Without any, only the instructions.
    #[arg(value_name = "GLOB")]
    pub globs: Vec<String>,

    /// Outlines (declarations only) instead of full contents.
    #[arg(long)]
    pub summary: bool,
}

/// One line telling the user about a context event (compaction, tracked files).
pub(crate) fn notice(event: &hone_core::Event) -> Option<String> {
    match event {
        hone_core::Event::ContextCompacted {
            before_tokens,
            after_tokens,
            method,
        } => Some(format!(
            "hone: context compacted ({}): ~{before_tokens} → ~{after_tokens} tokens",
            match method {
                hone_core::CompactionMethod::Model => "summary by the model",
                hone_core::CompactionMethod::Rules => "summary by rules",
            }
        )),
        hone_core::Event::FilesTracked {
            files,
            unmatched,
            skipped,
            ..
        } => {
            let tokens: usize = files.iter().map(|file| file.tokens).sum();
            let mut line = format!("hone: tracking {} file(s), ~{tokens} tokens", files.len());
            for pattern in unmatched {
                line.push_str(&format!("; `{pattern}` matches no file"));
            }
            for reason in skipped {
                line.push_str(&format!("; skipped {reason}"));
            }
            Some(line)
        }
        hone_core::Event::ContextLocalized { items, tokens } => Some(format!(
            "hone: attached {} · ~{tokens} tokens",
            items
                .iter()
                .map(hone_core::LocalizedItem::describe)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        hone_core::Event::TurnStep { task, guided } => {
            hone_core::step_notice(*task, *guided).map(|line| format!("hone: {line}"))
        }
        _ => None,
    }
}

/// Runs `hone context [GLOB…] [--summary]`.
pub(crate) fn run(global: &GlobalArgs, args: &ContextArgs) -> Result<ExitCode, HoneError> {
    let root = crate::project_dir(global)?;
    let config = crate::load_config(global)?;
    let root = root.canonicalize().unwrap_or(root);
    let instructions = instructions(&config, &root);
    let resolved = hone_context::resolve(&root, &args.globs)
        .map_err(|error| HoneError::validation(error.to_string()))?;
    for pattern in &resolved.unmatched {
        eprintln!("hone: warning: `{pattern}` matches no file");
    }
    if resolved.truncated {
        eprintln!(
            "hone: warning: more than {} files matched; only the first were included",
            hone_context::MAX_TRACKED_FILES
        );
    }
    if !args.globs.is_empty() && resolved.files.is_empty() {
        return Err(HoneError::validation(
            "no file matches; give paths or globs relative to the project root, e.g. \
             'src/**/*.rs'",
        ));
    }
    let mode = if args.summary {
        TrackMode::Outline
    } else {
        TrackMode::Full
    };
    let mut files = Vec::new();
    for path in &resolved.files {
        match hone_context::snapshot(&root, path, mode, Some(&IndexOutliner)) {
            Ok(snapshot) => files.push(snapshot),
            Err(error) => eprintln!("hone: warning: skipped: {error}"),
        }
    }
    let project = root.file_name().map_or_else(
        || root.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let now = Utc::now();
    let document = render_document(&project, &now.display(), &instructions, &files);
    let saved = save(&root, &now.file_stem(), &document)?;
    print!("{document}");
    let shown = saved.strip_prefix(&root).unwrap_or(&saved);
    eprintln!(
        "hone: saved {} ({} instruction file(s), {} file(s), ~{} tokens)",
        shown.display(),
        instructions.files.len(),
        files.len(),
        hone_context::Tokenizer::Estimate.count(&document)
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `document` atomically to `.hone/context/<stem>.md` (with `-N` added when that
/// name is taken) and keeps the directory out of git.
fn save(root: &Path, stem: &str, document: &str) -> Result<PathBuf, HoneError> {
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
struct Utc {
    year: i64,
    month: u32,
    day: u32,
    hour: u64,
    minute: u64,
    second: u64,
}

impl Utc {
    fn now() -> Self {
        let seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        Self::from_unix(seconds)
    }

    fn from_unix(seconds: u64) -> Self {
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
    fn file_stem(&self) -> String {
        format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `2025-01-02 03:04:05 UTC`.
    fn display(&self) -> String {
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// Year, month and day of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
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
}
