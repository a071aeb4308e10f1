//! [`LocalProvider`]: the engine behind hone's `Provider` trait.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError, TryLockError, Weak};
use std::time::Duration;

use futures::StreamExt;
use futures::channel::mpsc::unbounded;
use futures::future::BoxFuture;
use hone_protocol::{ChatRequest, HoneError, StopReason, StreamEvent, Usage};
use hone_provider_api::{EventStream, ModelInfo, Provider};
use tokio_util::sync::CancellationToken;

use crate::engine::{Engine, Finish, Flow, GenerationStats, Job, Loaded, Settings};
use crate::respond::Responder;
use crate::{LocalError, LocalOptions};

/// How often a request waiting for the engine (busy with another request) checks for cancellation.
const BUSY_POLL: Duration = Duration::from_millis(20);

/// Engines loaded in this process, by canonical model path. Weak, so a model nobody
/// uses any more is freed; loading again while one is alive shares it.
static ENGINES: LazyLock<Mutex<HashMap<PathBuf, Weak<Loaded>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// A GGUF model running inside the hone process.
///
/// Requests run one at a time on a dedicated thread; their tokens stream back as
/// [`StreamEvent`]s like any remote provider's, with `<tool_call>` blocks turned into
/// tool-call events; generation stops when the model repeats a call it already made in
/// the same answer. Consecutive requests that share a prefix (an agent's turns) only
/// compute the tokens after it.
pub struct LocalProvider {
    loaded: Arc<Loaded>,
    model_name: String,
    options: LocalOptions,
    context_size: usize,
    /// Chat requests served so far: each samples with its own seed (see
    /// [`LocalOptions::seed`]).
    requests: AtomicU64,
}

impl std::fmt::Debug for LocalProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalProvider")
            .field("model_name", &self.model_name)
            .field("options", &self.options)
            .field("context_size", &self.context_size)
            .finish_non_exhaustive()
    }
}

impl LocalProvider {
    /// Loads a GGUF model (architecture `qwen2`, `qwen3` or `llama`), or shares the one
    /// this process already loaded from the same file. Blocking: reading the weights takes seconds. The file
    /// is trusted to be the verified model; this only checks that it can be run.
    ///
    /// The context size is capped at the model's own. Threads and the weight layout are
    /// those of the first load of the file.
    pub fn load(
        model_path: &Path,
        model_name: &str,
        options: LocalOptions,
    ) -> Result<Arc<Self>, LocalError> {
        let path = model_path.canonicalize().map_err(|source| LocalError::Io {
            path: model_path.to_owned(),
            source,
        })?;
        let mut engines = ENGINES.lock().unwrap_or_else(PoisonError::into_inner);
        engines.retain(|_, engine| engine.strong_count() > 0);
        let loaded = match engines.get(&path).and_then(Weak::upgrade) {
            Some(loaded) => loaded,
            None => {
                let started = std::time::Instant::now();
                let loaded = Arc::new(Loaded::load(&path, &options)?);
                tracing::info!(
                    path = %path.display(),
                    seconds = started.elapsed().as_secs_f64(),
                    "loaded local model"
                );
                engines.insert(path, Arc::downgrade(&loaded));
                loaded
            }
        };
        drop(engines);
        let context_size = (options.context_size as usize).clamp(1, loaded.max_positions);
        Ok(Arc::new(Self {
            loaded,
            model_name: model_name.to_owned(),
            options,
            context_size,
            requests: AtomicU64::new(0),
        }))
    }

    /// The context window in tokens.
    pub fn context_size(&self) -> usize {
        self.context_size
    }

    /// The options this provider was loaded with.
    pub fn options(&self) -> &LocalOptions {
        &self.options
    }

    /// Counters of the most recent generation on this model (shared by every provider
    /// of the same file): prompt tokens, how many came from the cache, tokens generated,
    /// times. Waits while a request is running.
    pub fn last_stats(&self) -> GenerationStats {
        lock(&self.loaded.engine).last_stats()
    }

    /// The prompt text a request renders to with the model's chat template.
    pub fn render_prompt(&self, request: &ChatRequest) -> Result<String, LocalError> {
        self.loaded.template.render(request)
    }

    /// Number of prompt tokens a request takes.
    pub fn count_prompt_tokens(&self, request: &ChatRequest) -> Result<usize, LocalError> {
        Ok(self.prompt_tokens(request)?.len())
    }

    fn prompt_tokens(&self, request: &ChatRequest) -> Result<Vec<u32>, LocalError> {
        let prompt = self.loaded.template.render(request)?;
        self.loaded.tokenizer.encode(&prompt)
    }

    /// Fill-in-the-middle: the code that belongs between `request.prefix` and
    /// `request.suffix`, at most `request.max_tokens` tokens. Blocking; runs on the same
    /// engine (and cache) as chat. The other files come first in the prompt (with
    /// `<|file_sep|>` when the vocabulary has it, as in a repository-level prompt), so
    /// while the user types at the cursor they stay the start the engine reuses from the
    /// previous request; [`Self::last_stats`] then says how few tokens were computed.
    pub fn complete_fim(
        &self,
        request: &FimRequest<'_>,
        cancel: CancellationToken,
    ) -> Result<String, LocalError> {
        let tokenizer = &self.loaded.tokenizer;
        let fim = tokenizer.fim_tokens().ok_or_else(|| {
            LocalError::Tokenizer(format!(
                "{} has no fill-in-the-middle tokens (<|fim_prefix|>, <|fim_suffix|>, <|fim_middle|>)",
                self.model_name
            ))
        })?;
        let mut prompt = Vec::new();
        let mut prefix = String::new();
        for (path, text) in request.files {
            let text = text.trim_end_matches('\n');
            match fim.file_separator {
                Some(separator) => {
                    prompt.push(separator);
                    prompt.extend(tokenizer.encode(&format!("{path}\n{text}\n"))?);
                }
                None => prefix.push_str(&format!("{text}\n\n")),
            }
        }
        if let (Some(separator), false) = (fim.file_separator, request.files.is_empty()) {
            prompt.push(separator);
            prompt.extend(tokenizer.encode(&format!("{}\n", request.path))?);
        }
        prefix.push_str(request.prefix);
        prompt.push(fim.prefix);
        prompt.extend(tokenizer.encode(&prefix)?);
        prompt.push(fim.suffix);
        prompt.extend(tokenizer.encode(request.suffix)?);
        prompt.push(fim.middle);
        let settings = self.settings(Some(request.max_tokens), None);
        let mut middle = String::new();
        let mut engine = wait_for(&self.loaded.engine, &cancel)?;
        let job = Job {
            prompt: &prompt,
            stops: tokenizer.fim_stops(),
            guide: None,
            stable_start: 0,
        };
        engine.generate(tokenizer, job, &settings, &cancel, &mut |text| {
            middle.push_str(text);
            match request.finished {
                Some(finished) if finished(&middle) => Flow::Stop,
                _ => Flow::Continue,
            }
        })?;
        Ok(middle)
    }

    fn settings(&self, max_tokens: Option<u32>, temperature: Option<f32>) -> Settings {
        Settings {
            temperature: temperature.map_or(self.options.temperature, f64::from),
            top_p: self.options.top_p,
            seed: self.options.seed,
            max_tokens: max_tokens.unwrap_or(self.options.max_output_tokens) as usize,
            context_size: self.context_size,
            prompt_batch: self.options.prompt_batch,
            constrained_tools: self.options.constrained_tools,
            speculative: self.options.speculative_decoding,
            draft_row_cost: self.options.draft_row_cost,
        }
    }
}

/// A fill-in-the-middle request: the code around the cursor, and other files of the
/// project as context.
#[derive(Clone, Copy)]
pub struct FimRequest<'a> {
    /// Other files as `(path, text)` (whole or in part), in the order they are given.
    pub files: &'a [(String, String)],
    /// The path of the file being completed (named after the other files).
    pub path: &'a str,
    /// The code before the cursor.
    pub prefix: &'a str,
    /// The code after the cursor.
    pub suffix: &'a str,
    /// Tokens generated at most.
    pub max_tokens: u32,
    /// Told the middle written so far after each piece of it; generation stops as soon
    /// as it answers `true` (the caller has all it will use).
    pub finished: Option<&'a (dyn Fn(&str) -> bool + Sync)>,
}

impl std::fmt::Debug for FimRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FimRequest")
            .field("files", &self.files)
            .field("path", &self.path)
            .field("prefix", &self.prefix)
            .field("suffix", &self.suffix)
            .field("max_tokens", &self.max_tokens)
            .finish_non_exhaustive()
    }
}

/// The sampling seed of a provider's `index`th chat request (from 0): `base` for the
/// first, then the next ones. A request asked again (a retry after a failed answer) then
/// samples differently even with the same prompt, while a session asking the same
/// requests in the same order gets the same answers.
fn request_seed(base: u64, index: u64) -> u64 {
    base.wrapping_add(index)
}

impl Provider for LocalProvider {
    fn name(&self) -> &str {
        "local"
    }

    fn default_model(&self) -> &str {
        &self.model_name
    }

    fn stream(&self, request: ChatRequest, cancel: CancellationToken) -> EventStream {
        let known_tools: Vec<String> = request.tools.iter().map(|t| t.name.clone()).collect();
        let (sender, receiver) = unbounded();
        let loaded = Arc::clone(&self.loaded);
        let mut settings = self.settings(request.max_tokens, request.temperature);
        settings.seed = request_seed(
            self.options.seed,
            self.requests.fetch_add(1, Ordering::Relaxed),
        );
        let mut responder = Responder::new(sender.clone(), known_tools);
        let spawned = std::thread::Builder::new()
            .name("hone-local-request".into())
            .spawn(move || serve(&loaded, &request, &settings, &cancel, &mut responder));
        if let Err(error) = spawned {
            let error =
                HoneError::provider(format!("cannot start the local model thread: {error}"));
            let _ = sender.unbounded_send(StreamEvent::Failed { error });
        }
        drop(sender);
        receiver.boxed()
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, HoneError>> {
        let info = ModelInfo {
            id: self.model_name.clone(),
            display_name: None,
            context_window: u32::try_from(self.context_size).ok(),
        };
        Box::pin(async move { Ok(vec![info]) })
    }

    /// The embedded engine reads text only.
    fn accepts_images(&self, _model: &str) -> Option<bool> {
        Some(false)
    }
}

/// Runs one chat request and sends its events, always ending with exactly one terminal event.
fn serve(
    loaded: &Loaded,
    request: &ChatRequest,
    settings: &Settings,
    cancel: &CancellationToken,
    responder: &mut Responder,
) {
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let prompt = loaded.template.render(request)?;
        let tokens = loaded.tokenizer.encode(&prompt)?;
        let guide = if settings.constrained_tools {
            loaded
                .guidance
                .tool_calls(&loaded.tokenizer, &request.tools)
        } else {
            None
        };
        let stable_start = match loaded.template.render_system(request)? {
            Some(system) => {
                crate::engine::common_prefix(&loaded.tokenizer.encode(&system)?, &tokens)
            }
            None => 0,
        };
        let job = Job {
            prompt: &tokens,
            stops: loaded.tokenizer.chat_stops(),
            guide,
            stable_start,
        };
        let mut engine = wait_for(&loaded.engine, cancel)?;
        engine.generate(&loaded.tokenizer, job, settings, cancel, &mut |text| {
            responder.text(text)
        })
    }));
    let terminal = match outcome {
        Ok(Ok((finish, stats))) => {
            let usage = Usage {
                input_tokens: stats.prompt_tokens as u64,
                output_tokens: stats.generated_tokens as u64,
                cached_input_tokens: stats.reused_tokens as u64,
                drafted_tokens: stats.drafted_tokens as u64,
                accepted_tokens: stats.accepted_tokens as u64,
                ..Usage::default()
            };
            responder.send(StreamEvent::Usage { usage });
            let stop_reason = match finish {
                Finish::Stop => StopReason::EndTurn,
                Finish::MaxTokens => StopReason::MaxTokens,
            };
            StreamEvent::Completed {
                stop_reason,
                usage: Some(usage),
            }
        }
        Ok(Err(LocalError::Cancelled)) => StreamEvent::Cancelled,
        Ok(Err(error)) => StreamEvent::Failed {
            error: error.into(),
        },
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            StreamEvent::Failed {
                error: HoneError::provider("the local model crashed while answering")
                    .with_detail(detail),
            }
        }
    };
    responder.send(terminal);
}

/// Locks the engine, waiting while another request runs, unless `cancel` fires first.
fn wait_for<'a>(
    engine: &'a Mutex<Engine>,
    cancel: &CancellationToken,
) -> Result<MutexGuard<'a, Engine>, LocalError> {
    loop {
        if cancel.is_cancelled() {
            return Err(LocalError::Cancelled);
        }
        match engine.try_lock() {
            Ok(guard) => return Ok(guard),
            Err(TryLockError::Poisoned(poisoned)) => {
                engine.clear_poison();
                let mut guard = poisoned.into_inner();
                guard.reset();
                return Ok(guard);
            }
            Err(TryLockError::WouldBlock) => std::thread::sleep(BUSY_POLL),
        }
    }
}

/// Locks the engine for a quick look, recovering from a request that panicked.
fn lock(engine: &Mutex<Engine>) -> MutexGuard<'_, Engine> {
    engine.lock().unwrap_or_else(|poisoned| {
        engine.clear_poison();
        let mut guard = poisoned.into_inner();
        guard.reset();
        guard
    })
}
