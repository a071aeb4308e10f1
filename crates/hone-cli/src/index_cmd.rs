//! `hone index [--watch]`, `hone index status`, `hone symbols`, `hone deps`: the code index from the shell.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use hone_config::IndexSettings;
use hone_index::tools::SharedIndex;
use hone_index::{IndexError, IndexWatcher, Indexer, UpdateCallback, normalize_scope};
use hone_protocol::HoneError;
use hone_runtime::report::index as report;

use crate::cli::{DepsArgs, GlobalArgs, IndexArgs, IndexCommand, MapArgs, SymbolsArgs};
use hone_runtime::index::{
    LargeRepoAction, files_to_add, large_repository_action, large_repository_warning,
};

use crate::index_prompt::{LargeRepoChoice, ask_large_repository, progress_line};

/// Exit code when the user cancels at the large-repository question.
const CANCELLED: u8 = 130;

fn index_error(error: IndexError) -> HoneError {
    HoneError::from(error)
}

/// The project's index, opened as the `[index]` settings say, and those settings.
fn open(global: &GlobalArgs) -> Result<(Indexer, IndexSettings), HoneError> {
    let root = crate::project_dir(global)?;
    let settings = crate::load_config(global)?.index_settings();
    let indexer = hone_runtime::index::open_index(&root, &settings)?;
    Ok((indexer, settings))
}

/// Runs `hone index [status] [--watch] [--scope DIR] [--yes]`.
pub(crate) async fn run_index(
    global: &GlobalArgs,
    args: &IndexArgs,
) -> Result<ExitCode, HoneError> {
    if matches!(args.command, Some(IndexCommand::Status)) {
        let root = crate::project_dir(global)?;
        let settings = crate::load_config(global)?.index_settings();
        if !report::index_exists(&root, &settings)? {
            // Looking creates nothing: no .hone/ and no database for a project never indexed.
            print_summary(&report::empty_status(), args.json, None);
            if !args.json {
                eprintln!("hone: no index yet; `hone index` builds it");
            }
            return Ok(ExitCode::SUCCESS);
        }
    }
    let (mut indexer, settings) = open(global)?;
    if matches!(args.command, Some(IndexCommand::Status)) {
        let stats = indexer.store().stats().map_err(index_error)?;
        let summary = report::status(&stats, indexer.scope());
        print_summary(&summary, args.json, None);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(scope) = &args.scope {
        indexer.set_scope(Some(scope)).map_err(index_error)?;
    } else if !confirm_large_index(&mut indexer, args)? {
        eprintln!(
            "hone: cancelled; nothing was indexed (`hone index --scope DIR` indexes one \
             sub-directory)"
        );
        return Ok(ExitCode::from(CANCELLED));
    }
    let show_progress = !args.json && std::io::stderr().is_terminal() && !crate::term::quiet();
    let mut last_percent = usize::MAX;
    let started = Instant::now();
    let update = indexer
        .update(&mut |progress| {
            if !show_progress || progress.total == 0 {
                return;
            }
            let percent = progress.done * 100 / progress.total;
            if percent != last_percent {
                last_percent = percent;
                let line = progress_line(progress.done, progress.total, started.elapsed());
                eprint!("\r{line}\x1b[K");
            }
        })
        .map_err(index_error)?;
    if show_progress {
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

/// Before an update that would add more than `LARGE_REPOSITORY_FILES` files: asks on a
/// terminal (continue, one sub-directory, cancel), otherwise warns; `--yes` skips both.
/// Returns `false` when the user cancelled.
fn confirm_large_index(indexer: &mut Indexer, args: &IndexArgs) -> Result<bool, HoneError> {
    if args.yes {
        // Nothing to ask or warn about: no walk to count the files (the update walks anyway).
        return Ok(true);
    }
    let new_files = files_to_add(indexer);
    let interactive =
        !args.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    match large_repository_action(new_files, interactive, args.yes) {
        LargeRepoAction::Proceed => Ok(true),
        LargeRepoAction::Warn => {
            eprintln!(
                "hone: warning: {}; indexing all of them (`hone index --scope DIR` indexes one \
                 sub-directory, --yes skips this warning)",
                large_repository_warning(new_files)
            );
            Ok(true)
        }
        LargeRepoAction::Ask => {
            let root = indexer.root().to_path_buf();
            let mut check = |typed: &str| normalize_scope(&root, typed).map_err(|e| e.to_string());
            let choice = ask_large_repository(
                &mut std::io::stdin().lock(),
                &mut std::io::stderr(),
                new_files,
                &mut check,
            )
            .map_err(|error| HoneError::config(format!("cannot read the answer: {error}")))?;
            match choice {
                LargeRepoChoice::Continue => Ok(true),
                LargeRepoChoice::Cancel => Ok(false),
                LargeRepoChoice::Subdirectory(directory) => {
                    indexer.set_scope(Some(&directory)).map_err(index_error)?;
                    eprintln!(
                        "hone: indexing {directory} only; later updates keep to it (`hone index \
                         --scope .` indexes the whole project)"
                    );
                    Ok(true)
                }
            }
        }
    }
}

/// `hone index --watch`: keeps the index up to date, one line per update, until Ctrl-C.
async fn watch(indexer: Indexer, as_json: bool, debounce: Duration) -> Result<(), HoneError> {
    let root = indexer.root().display().to_string();
    let index = SharedIndex::new(indexer);
    let on_update: UpdateCallback = Box::new(move |paths, result| match result {
        Ok(done) => {
            println!("{}", report::watch_line(paths, done, as_json));
            for warning in &done.warnings {
                eprintln!("hone: {warning}");
            }
        }
        Err(error) => eprintln!("hone: the index could not be updated: {error}"),
    });
    let _watcher =
        IndexWatcher::start_with_callback(index, debounce, Some(on_update)).map_err(index_error)?;
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
    let (mut indexer, _) = open(global)?;
    indexer.update(&mut |_| {}).map_err(index_error)?;
    let found = indexer
        .store()
        .search_symbols(&args.query, args.limit)
        .map_err(index_error)?;
    if found.is_empty() {
        eprintln!("no symbol matches `{}`", args.query);
        return Ok(ExitCode::from(1));
    }
    print!("{}", report::symbol_lines(&found));
    Ok(ExitCode::SUCCESS)
}

/// Runs `hone deps PATH [--reverse]`.
pub(crate) fn run_deps(global: &GlobalArgs, args: &DepsArgs) -> Result<ExitCode, HoneError> {
    let (mut indexer, _) = open(global)?;
    indexer.update(&mut |_| {}).map_err(index_error)?;
    print!(
        "{}",
        report::dependency_lines(&indexer, &args.path, args.reverse)?
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `hone map [--budget N] [--focus NAME…]`.
pub(crate) fn run_map(global: &GlobalArgs, args: &MapArgs) -> Result<ExitCode, HoneError> {
    let (mut indexer, settings) = open(global)?;
    indexer.update(&mut |_| {}).map_err(index_error)?;
    let budget = args.budget.unwrap_or(settings.map_budget);
    let request = report::map_request(&args.focus, budget);
    let map = hone_index::tools::repo_map_for(&indexer, &request).map_err(index_error)?;
    print!("{}", map.text);
    if !map.text.ends_with('\n') {
        println!();
    }
    if !crate::term::quiet() {
        eprintln!(
            "hone: {} files with outlines, {} listed, {} omitted, ~{} tokens (budget {})",
            map.files.len(),
            map.listed.len(),
            map.omitted,
            map.tokens,
            budget
        );
    }
    Ok(ExitCode::SUCCESS)
}
