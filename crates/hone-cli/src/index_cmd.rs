//! `hone index [--watch]`, `hone index status`, `hone symbols`, `hone deps`: the code index from the shell.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use hone_config::IndexSettings;
use hone_index::Indexer;
use hone_protocol::HoneError;
use hone_runtime::indexing::{self, WatchReport};
use hone_runtime::report::index as report;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::{DepsArgs, GlobalArgs, IndexArgs, IndexCommand, MapArgs, SymbolsArgs};

/// Exit code when the user cancels at the large-repository question.
const CANCELLED: u8 = 130;

/// The project root and its `[index]` settings.
fn settings(global: &GlobalArgs) -> Result<(std::path::PathBuf, IndexSettings), HoneError> {
    Ok((
        crate::project_dir(global)?,
        crate::load_config(global)?.index_settings(),
    ))
}

/// Runs `hone index [status] [--watch] [--scope DIR] [--yes]`.
pub(crate) async fn run_index(
    global: &GlobalArgs,
    args: &IndexArgs,
) -> Result<ExitCode, HoneError> {
    let (root, mut settings) = settings(global)?;
    if let Some(store) = &args.store {
        settings.store = settings
            .store
            .overridden(store)
            .map_err(|reason| HoneError::config(format!("invalid --store: {reason}")))?;
    }
    if matches!(args.command, Some(IndexCommand::Status)) {
        let summary = indexing::status(&root, &settings)?;
        print_summary(
            summary.as_ref().unwrap_or(&report::empty_status()),
            args.json,
            None,
        );
        if summary.is_none() && !args.json {
            eprintln!("hone: no index yet; `hone index` builds it");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut indexer = hone_runtime::index::open_index(&root, &settings)?;
    let interactive =
        !args.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if let Some(scope) = &args.scope {
        indexer.set_scope(Some(scope)).map_err(HoneError::from)?;
    } else if !args.yes
        && !indexing::confirm_large_index(
            &mut indexer,
            interactive,
            &mut std::io::stdin().lock(),
            &mut std::io::stderr(),
        )?
    {
        eprintln!(
            "hone: cancelled; nothing was indexed (`hone index --scope DIR` indexes one \
             sub-directory)"
        );
        return Ok(ExitCode::from(CANCELLED));
    }
    let show_progress = !args.json && std::io::stderr().is_terminal() && !crate::term::quiet();
    // One line on stderr, redrawn in place (indicatif), left showing the last progress.
    let bar = show_progress.then(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar
    });
    let mut draw = |line: &str| {
        if let Some(bar) = &bar {
            bar.set_message(line.to_string());
        }
    };
    let update = indexing::update(&mut indexer, bar.is_some().then_some(&mut draw as _))?;
    if let Some(bar) = bar {
        // The last progress stays; the cursor is left at its end.
        bar.finish();
        eprintln!();
    }
    for warning in &update.warnings {
        eprintln!("hone: {warning}");
    }
    let summary = report::update(&update, indexer.scope());
    print_summary(&summary, args.json, Some(update.duration.as_secs_f64()));
    if args.watch {
        watch(indexer, args.json, settings.watch_debounce).await?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `hone index --watch`: keeps the index up to date, one line per update, until Ctrl-C.
async fn watch(indexer: Indexer, as_json: bool, debounce: Duration) -> Result<(), HoneError> {
    let root = indexer.root().display().to_string();
    let _watcher = indexing::watch(indexer, debounce, as_json, |update| match update {
        WatchReport::Updated(line) => println!("{line}"),
        WatchReport::Warning(line) | WatchReport::Failed(line) => eprintln!("hone: {line}"),
    })?;
    if !as_json {
        eprintln!(
            "hone: watching {root} for changes (updating {} ms after they settle; Ctrl-C to \
             stop)",
            debounce.as_millis()
        );
    }
    tokio::signal::ctrl_c()
        .await
        .map_err(|error| HoneError::config(format!("cannot wait for Ctrl-C: {error}")))?;
    Ok(())
}

fn print_summary(summary: &serde_json::Value, as_json: bool, seconds: Option<f64>) {
    if as_json {
        println!("{summary}");
    } else {
        print!("{}", report::summary_text(summary, seconds));
    }
}

/// Runs `hone symbols QUERY`.
pub(crate) fn run_symbols(global: &GlobalArgs, args: &SymbolsArgs) -> Result<ExitCode, HoneError> {
    let (root, settings) = settings(global)?;
    let indexer = indexing::open_updated(&root, &settings)?;
    let found = indexer
        .store()
        .search_symbols(&args.query, args.limit)
        .map_err(HoneError::from)?;
    if found.is_empty() {
        eprintln!("no symbol matches `{}`", args.query);
        return Ok(ExitCode::from(1));
    }
    print!("{}", report::symbol_lines(&found));
    Ok(ExitCode::SUCCESS)
}

/// Runs `hone deps PATH [--reverse]`.
pub(crate) fn run_deps(global: &GlobalArgs, args: &DepsArgs) -> Result<ExitCode, HoneError> {
    let (root, settings) = settings(global)?;
    let indexer = indexing::open_updated(&root, &settings)?;
    print!(
        "{}",
        report::dependency_lines(&indexer, &args.path, args.reverse)?
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `hone map [--budget N] [--focus NAME…]`.
pub(crate) fn run_map(global: &GlobalArgs, args: &MapArgs) -> Result<ExitCode, HoneError> {
    let (root, settings) = settings(global)?;
    let indexer = indexing::open_updated(&root, &settings)?;
    let budget = args.budget.unwrap_or(settings.map_budget);
    let (map, account) = indexing::repo_map(&indexer, &args.focus, budget)?;
    print!("{}", map.text);
    if !map.text.ends_with('\n') {
        println!();
    }
    if !crate::term::quiet() {
        eprintln!("hone: {account}");
    }
    Ok(ExitCode::SUCCESS)
}
