//! The context manager of one session: its state, request building and compaction steps.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hone_config::ContextSettings;
use hone_protocol::{Message, Role, ToolCall, ToolSpec, Usage};
use serde::{Deserialize, Serialize};

use crate::build::{self, Built, SystemParts};
use crate::compaction::{
    self, CompactionMethod, SummaryPlan, append_summary, rule_summary, stale_results,
};
use crate::error::ContextError;
use crate::history::{is_request, request_text, turn_starts};
use crate::outline::Outliner;
use crate::settings::ContextConfig;
use crate::task::TaskMemory;
use crate::tokens::{Calibration, TokenCounter};
use crate::tracked::TrackedFile;

/// Version of the saved state's format.
const STATE_VERSION: u32 = 1;
/// Output room reserved in the window at most (when the request sets no limit).
const MAX_OUTPUT_RESERVE: u32 = 4_096;
/// Share of the window a summary may take (in characters, about 4 per token).
const SUMMARY_SHARE: f64 = 0.15;
/// After compaction the kept turns should use at most this share of the threshold.
const TARGET_SHARE_OF_THRESHOLD: f64 = 0.6;
/// Tokens a model-written summary may use at most.
const MAX_SUMMARY_TOKENS: u32 = 2_048;

/// Everything about a session's context that must survive a restart; saved with
/// [`ContextManager::snapshot`], put back with [`ContextManager::restore`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ContextState {
    pub(crate) version: u32,
    pub(crate) task: TaskMemory,
    /// Summary of the history before `boundary`.
    pub(crate) summary: Option<String>,
    pub(crate) summary_method: Option<CompactionMethod>,
    /// The task memory as rendered when the summary was written: shown with the summary
    /// until the next compaction, so the system prompt (the start of every request, which
    /// providers cache and the local model reuses) stays the same from one request to the
    /// next.
    #[serde(default)]
    pub(crate) task_at_summary: Option<String>,
    /// History messages covered by the summary (never sent again).
    pub(crate) boundary: usize,
    /// Stubs replacing stale tool results, by call id.
    pub(crate) stubbed: BTreeMap<String, String>,
    pub(crate) tracked: Vec<TrackedFile>,
    /// Tracked paths whose snapshot has to be added to the next message.
    pub(crate) pending: Vec<String>,
    pub(crate) calibration: Calibration,
    pub(crate) compactions: u32,
}

impl Default for ContextState {
    fn default() -> Self {
        Self {
            version: STATE_VERSION,
            task: TaskMemory::default(),
            summary: None,
            summary_method: None,
            task_at_summary: None,
            boundary: 0,
            stubbed: BTreeMap::new(),
            tracked: Vec::new(),
            pending: Vec::new(),
            calibration: Calibration::default(),
            compactions: 0,
        }
    }
}

/// How full the window is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContextUsage {
    /// Tokens in use: the provider's count of the last request and its answer when
    /// reported, else hone's estimate of the request.
    pub used: u64,
    /// The window, when known.
    pub window: Option<u32>,
    /// `used` as a percentage of `window`, one decimal.
    pub percent: Option<f64>,
}

/// Keeps one session's requests inside the model's window: task memory, summary memory,
/// recent history, tracked files and project instructions.
pub struct ContextManager {
    pub(crate) root: PathBuf,
    pub(crate) model: String,
    pub(crate) window: Option<u32>,
    pub(crate) settings: ContextSettings,
    pub(crate) instructions: String,
    pub(crate) outliner: Option<Arc<dyn Outliner>>,
    pub(crate) counter: TokenCounter,
    pub(crate) state: ContextState,
    /// Size and modification time of tracked files at their last snapshot, to skip
    /// re-hashing unchanged files.
    pub(crate) seen: BTreeMap<String, (u64, Option<std::time::SystemTime>)>,
    /// Files that may hold secrets: never tracked.
    pub(crate) secret_files: hone_policy::SecretFiles,
}

impl std::fmt::Debug for ContextManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextManager")
            .field("root", &self.root)
            .field("model", &self.model)
            .field("window", &self.window)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl ContextManager {
    /// A manager for a session in `root` talking to `model`.
    pub fn new(config: ContextConfig, root: &Path, model: &str) -> Self {
        Self {
            root: root.to_path_buf(),
            model: model.to_string(),
            window: config.window.filter(|window| *window > 0),
            settings: config.settings,
            instructions: config.instructions.render(),
            outliner: config.outliner,
            counter: TokenCounter::for_model(model),
            state: ContextState::default(),
            seen: BTreeMap::new(),
            secret_files: hone_policy::SecretFiles::default(),
        }
    }

    /// Uses `files` as the rule for files that may hold secrets, which are never tracked
    /// (the built-in rule by default).
    pub fn set_secret_files(&mut self, files: hone_policy::SecretFiles) {
        self.secret_files = files;
    }

    /// The model's window, when known.
    pub fn window(&self) -> Option<u32> {
        self.window
    }

    /// Tokens available for the prompt: the window minus room for the answer.
    pub fn budget(&self) -> Option<usize> {
        let window = self.window?;
        let reserve = (window / 8).min(MAX_OUTPUT_RESERVE);
        Some((window - reserve) as usize)
    }

    /// The settings in use.
    pub fn settings(&self) -> &ContextSettings {
        &self.settings
    }

    /// The task memory.
    pub fn task(&self) -> &TaskMemory {
        &self.state.task
    }

    /// The summary of compacted turns, if any.
    pub fn summary(&self) -> Option<&str> {
        self.state.summary.as_deref()
    }

    /// History messages covered by the summary.
    pub fn boundary(&self) -> usize {
        self.state.boundary
    }

    /// The tracked files.
    pub fn tracked(&self) -> &[TrackedFile] {
        &self.state.tracked
    }

    /// Calibrated tokens of `text` for this model.
    pub fn count(&self, text: &str) -> usize {
        self.counter.text(text)
    }

    /// The state as opaque JSON, for the session store.
    pub fn snapshot(&self) -> serde_json::Value {
        let mut state = self.state.clone();
        state.calibration = self.counter.calibration();
        serde_json::to_value(&state).unwrap_or(serde_json::Value::Null)
    }

    /// Puts back a state saved by [`ContextManager::snapshot`]; on error the current state
    /// is kept.
    pub fn restore(&mut self, saved: serde_json::Value) -> Result<(), ContextError> {
        let state: ContextState = serde_json::from_value(saved)
            .map_err(|error| ContextError::State(error.to_string()))?;
        if state.version != STATE_VERSION {
            return Err(ContextError::State(format!(
                "version {} is not {STATE_VERSION}",
                state.version
            )));
        }
        self.counter.set_calibration(state.calibration);
        self.state = state;
        self.seen.clear();
        Ok(())
    }

    /// Records a new user request (call before adding it to the history).
    pub fn on_request(&mut self, text: &str) {
        self.state.task.on_request(text);
    }

    /// Records a model reply.
    pub fn on_assistant(&mut self, message: &Message) {
        self.state.task.on_assistant(message);
    }

    /// Records a tool round: the calls and the message with their results.
    pub fn on_round(&mut self, calls: &[ToolCall], results: &Message) {
        self.state.task.on_round(calls, results);
    }

    /// Rebuilds the task memory from `history` (a resumed session without a saved state).
    pub fn replay(&mut self, history: &[Message]) {
        for (index, message) in history.iter().enumerate() {
            if is_request(message) {
                self.on_request(&request_text(message));
            } else if message.role == Role::Assistant {
                self.on_assistant(message);
            } else if let Some(previous) = index.checked_sub(1).map(|at| &history[at]) {
                let calls: Vec<ToolCall> = previous.tool_calls().cloned().collect();
                if !calls.is_empty() {
                    self.on_round(&calls, message);
                }
            }
        }
    }

    fn view(&self, history: &[Message]) -> Vec<Message> {
        let tracked: HashSet<&str> = self
            .state
            .tracked
            .iter()
            .map(|file| file.path.as_str())
            .collect();
        build::view(history, self.state.boundary, &self.state.stubbed, &tracked)
    }

    /// Estimated tokens of the request for `history` before any trimming.
    pub fn estimate(
        &mut self,
        base_system: &str,
        history: &[Message],
        tools: &[ToolSpec],
    ) -> usize {
        let view = self.view(history);
        let parts = system_parts(base_system, &self.instructions, &self.state);
        let raw = build::count(&mut self.counter, &parts, &view, tools);
        self.counter.calibrated(raw)
    }

    /// Whether a request of `tokens` passes the compaction threshold.
    pub fn needs_compaction(&self, tokens: usize) -> bool {
        let threshold = self.settings.compact_threshold;
        match self.window {
            Some(window) if threshold > 0.0 => tokens as f64 >= threshold * f64::from(window),
            _ => false,
        }
    }

    /// Builds the request for `history`: the system prompt with instructions (and the
    /// summary and task memory once older turns were compacted), and the messages trimmed
    /// so that the whole request fits the window (keeping the system prompt, the tools,
    /// the task memory and the latest user request).
    ///
    /// While the whole conversation is in view the task memory would only repeat it, so it
    /// is left out and the system prompt stays the same from request to request. When
    /// messages have to be trimmed without a summary, the current task memory is added.
    pub fn build(
        &mut self,
        base_system: &str,
        history: &[Message],
        tools: &[ToolSpec],
    ) -> Result<Built, ContextError> {
        let view = self.view(history);
        let budget = self.budget().zip(self.window);
        let parts = system_parts(base_system, &self.instructions, &self.state);
        let built = build::fit(&mut self.counter, &parts, view.clone(), tools, budget);
        let lost_messages = match &built {
            Ok(built) => built.trimmed > 0,
            Err(ContextError::WindowTooSmall { .. }) => true,
            Err(_) => false,
        };
        if !lost_messages || self.state.summary.is_some() {
            return built;
        }
        let parts = SystemParts {
            task: self.state.task.render(),
            ..parts
        };
        build::fit(&mut self.counter, &parts, view, tools, budget)
    }

    /// Stubs stale file contents (first step of compaction); returns how many.
    pub fn drop_stale(&mut self, history: &[Message]) -> usize {
        let stale = stale_results(
            history,
            self.state.boundary,
            &self.state.stubbed,
            crate::settings::STALE_AFTER_TURNS,
        );
        let count = stale.len();
        self.state.stubbed.extend(stale);
        count
    }

    /// Plans summarising older turns: all but the recent ones (`recent_turns`, fewer when
    /// they alone are too large; one for a manual compaction). `None` when there is nothing
    /// older to summarise.
    pub fn plan_summary(&mut self, history: &[Message], manual: bool) -> Option<SummaryPlan> {
        let boundary = self.state.boundary.min(history.len());
        let starts: Vec<usize> = turn_starts(history)
            .into_iter()
            .filter(|start| *start >= boundary)
            .collect();
        let mut keep = if manual {
            1
        } else {
            self.settings.recent_turns.max(1)
        };
        if let Some(target) = self.target() {
            while keep > 1 && starts.len() >= keep {
                let from = starts[starts.len() - keep];
                let tokens: usize = history[from..]
                    .iter()
                    .map(|message| self.counter.message_raw(message))
                    .sum();
                if self.counter.calibrated(tokens) <= target {
                    break;
                }
                keep -= 1;
            }
        }
        if starts.len() <= keep {
            return None;
        }
        let end = starts[starts.len() - keep];
        if end <= boundary {
            return None;
        }
        let model = self
            .settings
            .compaction_model
            .clone()
            .filter(|model| !model.trim().is_empty())
            .unwrap_or_else(|| self.model.clone());
        let max_tokens = self.window.map_or(MAX_SUMMARY_TOKENS, |window| {
            (window / 8).clamp(256, MAX_SUMMARY_TOKENS)
        });
        let request = compaction::summary_request(
            &model,
            self.state.summary.as_deref(),
            &history[boundary..end],
            max_tokens,
        );
        let system = request.system.clone().unwrap_or_default();
        let raw = self.counter.request_raw(&system, &request.messages, &[]);
        let needed = self.counter.calibrated(raw);
        let fits = self
            .window
            .is_none_or(|window| needed + max_tokens as usize <= window as usize);
        Some(SummaryPlan {
            end,
            request: fits.then_some(request),
        })
    }

    /// Tokens the kept turns should stay under after compaction.
    fn target(&self) -> Option<usize> {
        let window = f64::from(self.window?);
        let threshold = if self.settings.compact_threshold > 0.0 {
            self.settings.compact_threshold
        } else {
            hone_config::DEFAULT_COMPACT_THRESHOLD
        };
        Some((window * threshold * TARGET_SHARE_OF_THRESHOLD) as usize)
    }

    /// The rule-based summary of the history from the current boundary to `end`.
    pub fn rule_summary(&self, history: &[Message], end: usize) -> String {
        let start = self.state.boundary.min(history.len());
        let end = end.clamp(start, history.len());
        rule_summary(&history[start..end])
    }

    /// Replaces the history before `end` by `summary`. A model summary replaces the
    /// previous one (it was written from it); a rule summary is appended to it.
    pub fn apply_summary(&mut self, end: usize, summary: &str, method: CompactionMethod) {
        let max_chars = self.window.map_or(40_000, |window| {
            ((f64::from(window) * SUMMARY_SHARE * 4.0) as usize).max(2_000)
        });
        let previous = match method {
            CompactionMethod::Model => None,
            CompactionMethod::Rules => self.state.summary.as_deref(),
        };
        self.state.summary = Some(append_summary(previous, summary, max_chars));
        self.state.summary_method = Some(match (method, self.state.summary_method) {
            (CompactionMethod::Rules, _) | (_, Some(CompactionMethod::Rules)) => {
                CompactionMethod::Rules
            }
            _ => CompactionMethod::Model,
        });
        self.state.task_at_summary = Some(self.state.task.render());
        self.state.boundary = end.max(self.state.boundary);
        self.state.compactions = self.state.compactions.saturating_add(1);
    }

    /// Folds in the provider's usage report for `built` and says how full the window is.
    pub fn observe_usage(&mut self, built: &Built, usage: Option<Usage>) -> ContextUsage {
        let used = match usage {
            Some(usage) if usage.input_tokens > 0 => {
                self.counter.observe(built.raw_tokens, usage.input_tokens);
                usage.input_tokens + usage.output_tokens
            }
            _ => built.tokens as u64,
        };
        ContextUsage {
            used,
            window: self.window,
            percent: self
                .window
                .map(|window| (used as f64 * 1000.0 / f64::from(window)).round() / 10.0),
        }
    }
}

fn system_parts<'a>(
    base: &'a str,
    instructions: &'a str,
    state: &'a ContextState,
) -> SystemParts<'a> {
    SystemParts {
        base,
        instructions,
        task: state.task_at_summary.clone().unwrap_or_default(),
        summary: state.summary.as_deref().map(|summary| {
            let how = match state.summary_method {
                Some(CompactionMethod::Rules) => "by rules",
                _ => "by the model",
            };
            format!(
                "# Summary of earlier conversation\n\
                     Older turns were compacted {how} to fit the context window; file contents \
                     and long outputs are gone, so use the tools to look again when needed.\n\n{}",
                summary.trim()
            )
        }),
    }
}
