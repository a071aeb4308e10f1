//! `hone context`: the project instructions and chosen files as one markdown document, and
//! the context settings every agent session starts from.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;
use hone_config::{Config, ProviderConfig};
use hone_context::{
    ContextConfig, ContextSettings, Instructions, Outliner, TrackMode, render_document,
};
use hone_index::Language;
use hone_protocol::HoneError;

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

/// Outlines from the code index's tree-sitter extractors, for the languages it knows.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct IndexOutliner;

impl Outliner for IndexOutliner {
    fn outline(&self, path: &str, source: &str) -> Option<String> {
        let language = Language::from_path(path)?;
        let outline = hone_index::parse::outline(language, source);
        let rendered = hone_index::repomap::render_file(path, &outline);
        let body = rendered
            .strip_prefix(&format!("{path}:\n"))
            .unwrap_or(&rendered);
        Some(body.trim_end().to_string()).filter(|body| !body.trim().is_empty())
    }
}

/// The model's context window: the provider's `context_window`, else `[context_windows]`
/// or the known-models table.
pub(crate) fn context_window(config: &Config, provider: &ProviderConfig) -> Option<u32> {
    provider
        .context_window
        .or_else(|| config.known_context_window(&provider.model))
}

/// The user's own instructions directory: `hone` under the config directory
/// (`~/.config/hone` on Linux).
fn user_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|dir| dir.join("hone"))
}

/// The project instructions for `root` within the configured cap.
fn instructions(config: &Config, root: &Path) -> Instructions {
    let max_bytes = config.context_settings().instructions_max_bytes;
    if max_bytes == 0 {
        return Instructions::default();
    }
    Instructions::discover(root, user_dir().as_deref(), max_bytes)
}

/// What a session's context manager starts from: the window, `[context]`, the project
/// instructions and the index outliner.
pub(crate) fn session_context(config: &Config, window: Option<u32>, root: &Path) -> ContextConfig {
    let settings = config.context_settings();
    ContextConfig {
        window,
        settings: ContextSettings {
            compact_threshold: settings.compact_threshold,
            recent_turns: settings.recent_turns,
            compaction_model: settings.compaction_model,
            instructions_max_bytes: settings.instructions_max_bytes,
            ..ContextSettings::default()
        },
        instructions: instructions(config, root),
        outliner: Some(Arc::new(IndexOutliner)),
    }
}

/// One line telling the user about a context event (compaction, tracked files).
pub(crate) fn notice(event: &hone_api::Event) -> Option<String> {
    match event {
        hone_api::Event::ContextCompacted {
            before_tokens,
            after_tokens,
            method,
        } => Some(format!(
            "hone: context compacted ({}): ~{before_tokens} → ~{after_tokens} tokens",
            match method {
                hone_api::CompactionMethod::Model => "summary by the model",
                hone_api::CompactionMethod::Rules => "summary by rules",
            }
        )),
        hone_api::Event::FilesTracked {
            files,
            unmatched,
            skipped,
            ..
        } => {
            let tokens: u64 = files.iter().map(|file| file.tokens).sum();
            let mut line = format!("hone: tracking {} file(s), ~{tokens} tokens", files.len());
            for pattern in unmatched {
                line.push_str(&format!("; `{pattern}` matches no file"));
            }
            for reason in skipped {
                line.push_str(&format!("; skipped {reason}"));
            }
            Some(line)
        }
        hone_api::Event::ContextLocalized { items, tokens } => Some(format!(
            "hone: attached {} · ~{tokens} tokens",
            items
                .iter()
                .map(hone_api::LocalizedItem::describe)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        hone_api::Event::TurnStep { task, guided } => {
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

    #[test]
    fn the_index_outliner_shows_signatures_only() {
        let outline = IndexOutliner
            .outline(
                "src/a.rs",
                "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
            )
            .unwrap();
        assert!(outline.contains("add(a: i32, b: i32) -> i32"), "{outline}");
        assert!(!outline.contains("a + b"), "{outline}");
        assert_eq!(IndexOutliner.outline("notes.txt", "text"), None);
    }
}
