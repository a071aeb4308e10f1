//! One completion at a time: a request waits a moment (the debounce) and gives way to a
//! newer one; the running one is cancelled when a newer one starts or the editor cancels
//! it (`$/cancelRequest` drops its future, which cancels the model's work); answers are
//! cached by the code around the cursor, so asking again at the same place is free.

use std::collections::VecDeque;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::lock;
use crate::model::{CompletionError, CompletionModel, FimPrompt};

/// How long a request waits for a newer keystroke before it asks the model.
const DEBOUNCE: Duration = Duration::from_millis(75);
/// Completions remembered.
const CACHE_SIZE: usize = 64;

/// Completions from one model.
pub(crate) struct Completer {
    model: CompletionModel,
    /// The number of the newest request.
    latest: AtomicU64,
    /// The token of the request that is asking the model.
    running: Mutex<Option<CancellationToken>>,
    cache: Mutex<VecDeque<(u64, String)>>,
}

/// Cancels its token when dropped (the request's future was dropped: `$/cancelRequest`).
struct CancelOnDrop(CancellationToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

impl Completer {
    /// Completions from `model`.
    pub(crate) fn new(model: CompletionModel) -> Self {
        Self {
            model,
            latest: AtomicU64::new(0),
            running: Mutex::new(None),
            cache: Mutex::new(VecDeque::new()),
        }
    }

    /// How completions are made (for the log).
    pub(crate) fn describe(&self) -> String {
        self.model.describe()
    }

    /// The completion for `prompt`, cut to end well after `line_before` (the cursor's
    /// line up to the cursor) and before `suffix` (the document after the cursor).
    /// [`CompletionError::Cancelled`] when a newer request came.
    pub(crate) async fn complete(
        &self,
        prompt: FimPrompt,
        line_before: &str,
        suffix: &str,
    ) -> Result<String, CompletionError> {
        let key = cache_key(&prompt);
        if let Some((_, cached)) = lock(&self.cache).iter().find(|(found, _)| *found == key) {
            return Ok(cached.clone());
        }
        let number = self.latest.fetch_add(1, Ordering::SeqCst) + 1;
        tokio::time::sleep(DEBOUNCE).await;
        if self.latest.load(Ordering::SeqCst) != number {
            return Err(CompletionError::Cancelled);
        }
        let token = CancellationToken::new();
        if let Some(previous) = lock(&self.running).replace(token.clone()) {
            previous.cancel();
        }
        let _guard = CancelOnDrop(token.clone());
        let filled = self.model.fill(prompt, token).await?;
        let cut = crate::trim::cut(&filled, line_before, suffix);
        let mut cache = lock(&self.cache);
        if cache.len() == CACHE_SIZE {
            cache.pop_front();
        }
        cache.push_back((key, cut.clone()));
        Ok(cut)
    }
}

fn cache_key(prompt: &FimPrompt) -> u64 {
    let mut hasher = DefaultHasher::new();
    prompt.files.hash(&mut hasher);
    prompt.prefix.hash(&mut hasher);
    prompt.suffix.hash(&mut hasher);
    hasher.finish()
}
