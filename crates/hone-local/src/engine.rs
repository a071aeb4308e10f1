//! One loaded model with its key/value cache: prompt reading with prefix reuse, and
//! token-by-token generation.

use std::collections::VecDeque;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use candle_core::quantized::gguf_file;
use tokio_util::sync::CancellationToken;

use crate::draft::{DraftPlanner, lookup};
use crate::guide::{Guidance, ToolGuide};
use crate::model::{MAX_VERIFY_ROWS, Transformer};
use crate::prompt_cache::PromptCache;
use crate::sampler::Sampler;
use crate::template::ChatTemplate;
use crate::tokenizer::ModelTokenizer;
use crate::{LocalError, LocalOptions};

/// What happened during one generation, for usage reports, tests and benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GenerationStats {
    /// Tokens in the prompt.
    pub prompt_tokens: usize,
    /// Prompt tokens whose keys and values were reused from the previous request.
    pub reused_tokens: usize,
    /// Prompt tokens computed for this request (`prompt_tokens - reused_tokens`).
    pub computed_tokens: usize,
    /// Of the reused tokens, those whose keys and values were read from the prompt cache
    /// on disk (a prompt start an earlier process computed).
    pub disk_tokens: usize,
    /// Tokens generated (stop tokens not counted).
    pub generated_tokens: usize,
    /// Time spent reading the prompt.
    pub prompt_time: Duration,
    /// Time spent generating after the prompt.
    pub decode_time: Duration,
    /// Generated tokens chosen under the tool-call constraint.
    pub constrained_tokens: usize,
    /// Part of `decode_time` spent in the tool-call constraint (computing and applying
    /// token masks, advancing the grammar, watching for `<tool_call>`).
    pub constraint_time: Duration,
    /// Forward passes while generating (one per generated token without speculation).
    pub decode_passes: usize,
    /// Tokens drafted from the context for speculative decoding.
    pub drafted_tokens: usize,
    /// Drafted tokens the model confirmed (each one a token generated without a pass).
    pub accepted_tokens: usize,
}

/// Why a generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finish {
    /// The model produced a stop token, or the receiver of the text had all it wanted.
    Stop,
    /// The token limit (or the end of the context) was reached.
    MaxTokens,
}

/// What the receiver of generated text wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// More text.
    Continue,
    /// Nothing more: the answer is complete (the model started repeating itself).
    Stop,
    /// Nobody is listening any more: the generation is cancelled.
    Disconnected,
}

/// Sampling and limits of one generation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    pub(crate) temperature: f64,
    pub(crate) top_p: Option<f64>,
    pub(crate) seed: u64,
    pub(crate) max_tokens: usize,
    pub(crate) context_size: usize,
    pub(crate) prompt_batch: usize,
    /// Whether tool calls are constrained to the offered tools' schemas.
    pub(crate) constrained_tools: bool,
    /// Whether drafts from the context are verified in batches (speculative decoding).
    pub(crate) speculative: bool,
    /// A fixed cost of a drafted row instead of the measured one (see `LocalOptions`).
    pub(crate) draft_row_cost: Option<f64>,
}

/// What one generation reads from and stops at.
pub(crate) struct Job<'a> {
    /// The prompt's tokens.
    pub(crate) prompt: &'a [u32],
    /// Tokens that end the answer.
    pub(crate) stops: &'a [u32],
    /// The constraint on tool calls, if any.
    pub(crate) guide: Option<ToolGuide>,
    /// How many of the prompt's first tokens are its stable start (the system prompt
    /// with the tools), worth keeping on disk for later processes; 0 for none.
    pub(crate) stable_start: usize,
}

/// A loaded model file: the parts requests only read, and the engine they take turns on.
pub(crate) struct Loaded {
    pub(crate) tokenizer: ModelTokenizer,
    /// Constrained decoding of tool calls (built at the first request with tools).
    pub(crate) guidance: Guidance,
    pub(crate) template: ChatTemplate,
    /// Most positions the cache can hold (the model's context length).
    pub(crate) max_positions: usize,
    pub(crate) engine: std::sync::Mutex<Engine>,
}

/// A model and what its key/value cache holds.
pub(crate) struct Engine {
    model: Transformer,
    /// The tokens whose keys and values are in the model's cache, in order.
    cached: Vec<u32>,
    pool: Arc<rayon::ThreadPool>,
    last: GenerationStats,
    /// Draft lengths for speculative decoding, from the pass times measured so far.
    planner: DraftPlanner,
    /// Prompt starts kept on disk between processes, if enabled.
    prompt_cache: Option<PromptCache>,
}

/// A stored prompt start is read from disk only when it saves this many more tokens than
/// the in-memory cache (reading costs a little too).
const MIN_DISK_GAIN: usize = 64;
/// Prompt starts shorter than this are not worth a file.
const MIN_STORED_START: usize = 128;
/// Most bytes the prompt cache of one model keeps on disk.
const PROMPT_CACHE_BUDGET: u64 = 2 << 30;

impl Loaded {
    /// Reads a GGUF file: metadata, tokenizer, chat template and weights.
    pub(crate) fn load(path: &Path, options: &LocalOptions) -> Result<Self, LocalError> {
        let invalid = |reason: String| LocalError::InvalidModel {
            path: path.to_owned(),
            reason,
        };
        let file = File::open(path).map_err(|source| LocalError::Io {
            path: path.to_owned(),
            source,
        })?;
        let content = gguf_file::Content::read(&mut BufReader::new(&file))
            .map_err(|error| invalid(format!("not a GGUF file ({error})")))?;
        // The architecture first: an unsupported model's tokenizer may fail to build too,
        // with a less helpful message.
        crate::model::architecture(&content).map_err(|error| invalid(error.to_string()))?;
        let tokenizer = ModelTokenizer::from_gguf(&content)?;
        let source = content
            .metadata
            .get("tokenizer.chat_template")
            .and_then(|value| value.to_string().ok())
            .ok_or_else(|| invalid("it has no chat template (tokenizer.chat_template)".into()))?;
        let token_text = |key: &str| {
            content
                .metadata
                .get(key)
                .and_then(|value| value.to_u32().ok())
                .and_then(|id| tokenizer.decode(&[id]).ok())
                .unwrap_or_default()
        };
        let template = ChatTemplate::new(
            source,
            &token_text("tokenizer.ggml.bos_token_id"),
            &token_text("tokenizer.ggml.eos_token_id"),
        )?;
        // The cache grows as it is used, so allowing the model's whole context costs nothing
        // up front; each provider enforces its own context size per request.
        let max_positions = crate::model::Config::from_gguf(&content)
            .map_err(|error| invalid(error.to_string()))?
            .context_length
            .max(1);
        let model = Transformer::load(&content, file, max_positions, options.weight_layout)
            .map_err(|error| invalid(error.to_string()))?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(options.effective_threads())
            .thread_name(|index| format!("hone-local-{index}"))
            .build()
            .map_err(LocalError::inference)?;
        let prompt_cache = options.prompt_cache.as_deref().and_then(|root| {
            PromptCache::open(root, path, model.cache_geometry(), PROMPT_CACHE_BUDGET)
                .inspect_err(|error| {
                    tracing::warn!(dir = %root.display(), %error, "the prompt cache is off: its directory is not usable");
                })
                .ok()
        });
        let engine = Engine {
            model,
            cached: Vec::new(),
            pool: Arc::new(pool),
            last: GenerationStats::default(),
            planner: DraftPlanner::new(MAX_VERIFY_ROWS - 1),
            prompt_cache,
        };
        Ok(Self {
            tokenizer,
            guidance: Guidance::new(),
            template,
            max_positions,
            engine: std::sync::Mutex::new(engine),
        })
    }
}

impl Engine {
    /// Counters of the most recent generation.
    pub(crate) fn last_stats(&self) -> GenerationStats {
        self.last
    }

    /// Forgets the cache (after a failure left it in an unknown state).
    pub(crate) fn reset(&mut self) {
        self.model.truncate_cache(0);
        self.cached.clear();
    }

    /// Generates after the job's prompt, stopping at any of its stops, constraining tool
    /// calls with its guide. `on_text` receives the text as it is produced and says
    /// whether to go on.
    pub(crate) fn generate(
        &mut self,
        tokenizer: &ModelTokenizer,
        job: Job<'_>,
        settings: &Settings,
        cancel: &CancellationToken,
        on_text: &mut (dyn FnMut(&str) -> Flow + Send),
    ) -> Result<(Finish, GenerationStats), LocalError> {
        let pool = Arc::clone(&self.pool);
        let result = pool.install(|| self.run(tokenizer, job, settings, cancel, on_text));
        if let Err(error) = &result
            && !matches!(
                error,
                LocalError::Cancelled | LocalError::ContextOverflow { .. }
            )
        {
            self.reset();
        }
        result
    }

    fn run(
        &mut self,
        tokenizer: &ModelTokenizer,
        job: Job<'_>,
        settings: &Settings,
        cancel: &CancellationToken,
        on_text: &mut (dyn FnMut(&str) -> Flow + Send),
    ) -> Result<(Finish, GenerationStats), LocalError> {
        let Job {
            prompt,
            stops,
            mut guide,
            stable_start,
        } = job;
        let context_size = settings.context_size.min(self.model.max_positions());
        if prompt.is_empty() || prompt.len() >= context_size {
            return Err(LocalError::ContextOverflow {
                prompt_tokens: prompt.len(),
                context_size,
            });
        }
        let budget = settings.max_tokens.min(context_size - prompt.len());
        self.model
            .reserve_cache(context_size)
            .map_err(LocalError::inference)?;
        let mut stats = GenerationStats {
            prompt_tokens: prompt.len(),
            ..GenerationStats::default()
        };
        let started = Instant::now();
        let logits = self.read_prompt(prompt, settings.prompt_batch, cancel, &mut stats)?;
        self.store_start(&prompt[..stable_start.min(prompt.len())]);
        stats.prompt_time = started.elapsed();
        self.last = stats;

        let started = Instant::now();
        let mut sampler = Sampler::new(settings.temperature, settings.top_p, settings.seed);
        let mut decoder = tokenizer.stream_decoder();
        let mut finish = Finish::MaxTokens;
        // Whether the receiver wants no more text (then held-back text is not flushed).
        let mut satisfied = false;
        // The prompt and the tokens generated so far, where drafts are looked up.
        let mut context = prompt.to_vec();
        // Logits still to sample from (after the last token fed, and after each draft
        // token fed with it), and the draft tokens not yet confirmed.
        let mut pending: VecDeque<Vec<f32>> = VecDeque::from([logits]);
        let mut drafts: VecDeque<u32> = VecDeque::new();
        let speculative = settings.speculative && self.model.verifies_exactly();
        self.planner.begin(settings.draft_row_cost);
        // The last pass: tokens fed, drafted tokens accepted so far, seconds it took.
        let (mut pass_rows, mut accepted_in_pass, mut pass_time) = (0, 0, 0.0);
        while stats.generated_tokens < budget {
            let Some(mut logits) = pending.pop_front() else {
                return Err(LocalError::Inference("the model produced no logits".into()));
            };
            if let Some(guide) = &mut guide {
                let guide_started = Instant::now();
                if guide.in_call() {
                    stats.constrained_tokens += 1;
                }
                guide.constrain(&mut logits);
                stats.constraint_time += guide_started.elapsed();
            }
            let Some(mut token) = sampler.sample(&logits) else {
                return Err(LocalError::Inference("the model produced no logits".into()));
            };
            if let Some(guide) = &mut guide {
                token = guide.redirect(token, tokenizer);
            }
            // A draft token the model agrees with is already in the cache, with the logits
            // after it pending; at the first disagreement, the rest is dropped.
            match drafts.pop_front() {
                Some(draft) if draft == token => {
                    accepted_in_pass += 1;
                    stats.accepted_tokens += 1;
                }
                Some(_) => {
                    let keep = self.cached.len() - drafts.len() - 1;
                    drafts.clear();
                    pending.clear();
                    self.model.truncate_cache(keep);
                    self.cached.truncate(keep);
                }
                None => {}
            }
            if pending.is_empty() && pass_rows > 0 {
                self.planner.record(pass_rows, accepted_in_pass, pass_time);
                (pass_rows, accepted_in_pass) = (0, 0);
            }
            if stops.contains(&token) {
                finish = Finish::Stop;
                break;
            }
            stats.generated_tokens += 1;
            context.push(token);
            let text = decoder.push(token)?;
            if let Some(guide) = &mut guide {
                let guide_started = Instant::now();
                guide.accept(token, text.as_deref());
                stats.constraint_time += guide_started.elapsed();
            }
            if let Some(text) = text {
                match on_text(&text) {
                    Flow::Continue => {}
                    Flow::Stop => {
                        finish = Finish::Stop;
                        satisfied = true;
                        break;
                    }
                    Flow::Disconnected => return Err(LocalError::Cancelled),
                }
            }
            if stats.generated_tokens >= budget {
                break;
            }
            if cancel.is_cancelled() {
                return Err(LocalError::Cancelled);
            }
            if !pending.is_empty() {
                continue;
            }
            // The last token generated needs no pass of its own.
            let room = budget - stats.generated_tokens - 1;
            let draft = if speculative {
                lookup(&context, self.planner.next().min(room))
            } else {
                &[]
            };
            let mut fed = Vec::with_capacity(draft.len() + 1);
            fed.push(token);
            fed.extend_from_slice(draft);
            pass_rows = fed.len();
            stats.drafted_tokens += draft.len();
            drafts.extend(draft);
            stats.decode_passes += 1;
            let pass_started = Instant::now();
            if fed.len() == 1 {
                let logits = self
                    .model
                    .forward(&fed, true)
                    .map_err(LocalError::inference)?
                    .unwrap_or_default();
                pending.push_back(logits);
            } else {
                pending.extend(
                    self.model
                        .forward_each(&fed)
                        .map_err(LocalError::inference)?,
                );
            }
            pass_time = pass_started.elapsed().as_secs_f64();
            self.cached.extend_from_slice(&fed);
            stats.decode_time = started.elapsed();
            self.last = stats;
        }
        if !satisfied
            && let Some(text) = decoder.finish()?
            && on_text(&text) == Flow::Disconnected
        {
            return Err(LocalError::Cancelled);
        }
        stats.decode_time = started.elapsed();
        self.last = stats;
        tracing::debug!(
            prompt = stats.prompt_tokens,
            reused = stats.reused_tokens,
            from_disk = stats.disk_tokens,
            prompt_ms = stats.prompt_time.as_millis() as u64,
            generated = stats.generated_tokens,
            decode_ms = stats.decode_time.as_millis() as u64,
            passes = stats.decode_passes,
            drafted = stats.drafted_tokens,
            accepted = stats.accepted_tokens,
            tokens_per_pass = stats.generated_tokens as f64 / stats.decode_passes.max(1) as f64,
            speculative,
            "local generation"
        );
        Ok((finish, stats))
    }

    /// Brings the cache to `prompt`, computing only what differs from the cached tokens,
    /// and returns the logits after its last token.
    fn read_prompt(
        &mut self,
        prompt: &[u32],
        batch: usize,
        cancel: &CancellationToken,
        stats: &mut GenerationStats,
    ) -> Result<Vec<f32>, LocalError> {
        // At least the last prompt token is computed: its logits start the answer.
        let mut reuse = common_prefix(&self.cached, prompt).min(prompt.len() - 1);
        if let Some(loaded) = self.load_start(prompt, reuse) {
            stats.disk_tokens = loaded;
            reuse = loaded;
        }
        self.model.truncate_cache(reuse);
        self.cached.truncate(reuse);
        stats.reused_tokens = reuse;
        stats.computed_tokens = prompt.len() - reuse;
        let mut logits = None;
        let chunks: Vec<&[u32]> = prompt[reuse..].chunks(batch.max(1)).collect();
        let last = chunks.len().saturating_sub(1);
        for (index, chunk) in chunks.into_iter().enumerate() {
            if cancel.is_cancelled() {
                return Err(LocalError::Cancelled);
            }
            logits = self
                .model
                .forward(chunk, index == last)
                .map_err(LocalError::inference)?;
            self.cached.extend_from_slice(chunk);
        }
        logits.ok_or_else(|| LocalError::Inference("the prompt produced no logits".into()))
    }
}

impl Engine {
    /// Reads the stored prompt start sharing the most tokens with `prompt` into the
    /// cache when it saves more than the `reuse` tokens already cached; the tokens it
    /// brought. A file that cannot be read is removed and the prompt computed.
    fn load_start(&mut self, prompt: &[u32], reuse: usize) -> Option<usize> {
        let store = self.prompt_cache.as_ref()?;
        let found = store.best_match(prompt)?;
        let shared = found.shared.min(prompt.len() - 1);
        if shared < reuse + MIN_DISK_GAIN {
            return None;
        }
        let imported = store
            .read(&found.path, shared)
            .map_err(|error| error.to_string())
            .and_then(|(keys, values)| {
                self.model
                    .import_cache(shared, keys, values)
                    .map_err(|error| error.to_string())
            });
        match imported {
            Ok(()) => {
                self.cached.clear();
                self.cached.extend_from_slice(&prompt[..shared]);
                Some(shared)
            }
            Err(error) => {
                tracing::warn!(path = %found.path.display(), %error, "removing an unusable prompt cache file");
                let _ = std::fs::remove_file(&found.path);
                // The import may have replaced the cache: start from nothing.
                self.reset();
                None
            }
        }
    }

    /// Keeps the keys and values of the prompt start `start` (all in the cache after the
    /// prompt was read) on disk, unless it is short or already stored. A failure only
    /// costs the next process the time to compute it.
    fn store_start(&self, start: &[u32]) {
        let Some(store) = &self.prompt_cache else {
            return;
        };
        if start.len() < MIN_STORED_START
            || common_prefix(&self.cached, start) < start.len()
            || store.contains(start)
        {
            return;
        }
        let stored = self
            .model
            .export_cache(start.len())
            .map_err(|error| error.to_string())
            .and_then(|(keys, values)| {
                store
                    .write(start, &keys, &values)
                    .map_err(|error| error.to_string())
            });
        if let Err(error) = stored {
            tracing::warn!(%error, "could not keep the prompt's start on disk");
        }
    }
}

/// Length of the longest common prefix of `a` and `b`.
pub(crate) fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_prefix_stops_at_the_first_difference() {
        assert_eq!(common_prefix(&[1, 2, 3], &[1, 2, 4, 5]), 2);
        assert_eq!(common_prefix(&[1, 2], &[1, 2, 3]), 2);
        assert_eq!(common_prefix(&[], &[1]), 0);
    }
}
