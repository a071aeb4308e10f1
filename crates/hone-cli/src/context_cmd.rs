//! `hone context`: the project instructions and chosen files as one markdown document, and
//! the one-line notices of context events.

use std::process::ExitCode;

use clap::Args;
use hone_context::{TrackMode, render_document};
use hone_protocol::HoneError;
use hone_runtime::context::{IndexOutliner, instructions};
use hone_runtime::document::{Utc, save};

use crate::cli::GlobalArgs;

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
