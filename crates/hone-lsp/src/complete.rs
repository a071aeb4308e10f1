//! One completion at a time: a request waits a moment (the debounce) and gives way to a
//! newer one; the running one is cancelled when a newer one starts or the editor cancels
//! it (`$/cancelRequest` drops its future, which cancels the model's work); answers are
//! cached by the code around the cursor, so asking again at the same place is free, and
//! while the user types what the last completion proposed, the rest of it is the answer.

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
    /// The last completion the model made, with its prompt.
    shown: Mutex<Option<(FimPrompt, String)>>,
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
            shown: Mutex::new(None),
        }
    }

    /// How much code around the cursor the model is sent.
    pub(crate) fn budget(&self) -> crate::context::Budget {
        self.model.budget()
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
        if let Some((shown, text)) = &*lock(&self.shown)
            && let Some(rest) = typed_along(shown, text, &prompt)
        {
            return Ok(rest);
        }
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
        let filled = self.model.fill(prompt.clone(), token).await?;
        let cut = crate::trim::cut(&filled, line_before, suffix);
        *lock(&self.shown) = Some((prompt, cut.clone()));
        let mut cache = lock(&self.cache);
        if cache.len() == CACHE_SIZE {
            cache.pop_front();
        }
        cache.push_back((key, cut.clone()));
        Ok(cut)
    }
}

/// The rest of `text`, the completion made for `shown`, when `prompt` is `shown` with
/// the start of `text` typed at the cursor (on the same line, the same text after it).
fn typed_along(shown: &FimPrompt, text: &str, prompt: &FimPrompt) -> Option<String> {
    let typed = prompt.prefix.strip_prefix(&shown.prefix)?;
    let same_line_after = shown.suffix.split('\n').next() == prompt.suffix.split('\n').next();
    if typed.is_empty() || typed.contains('\n') || !same_line_after || shown.files != prompt.files {
        return None;
    }
    let rest = text.strip_prefix(typed)?;
    (!rest.trim().is_empty()).then(|| rest.to_string())
}

fn cache_key(prompt: &FimPrompt) -> u64 {
    let mut hasher = DefaultHasher::new();
    prompt.files.hash(&mut hasher);
    prompt.prefix.hash(&mut hasher);
    prompt.suffix.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(prefix: &str, suffix: &str) -> FimPrompt {
        FimPrompt {
            files: Vec::new(),
            path: "a.rs".into(),
            prefix: prefix.into(),
            suffix: suffix.into(),
            language: "rust".into(),
            max_tokens: 16,
        }
    }

    #[test]
    fn typing_what_was_proposed_keeps_the_rest_of_it() {
        let shown = prompt("let total = ", "\n}\n");
        let text = "items.len();";
        let typed = prompt("let total = ite", "\n}\n");
        assert_eq!(
            typed_along(&shown, text, &typed).as_deref(),
            Some("ms.len();")
        );
        // Something else typed, a new line, another place, other files: the model is asked.
        assert_eq!(
            typed_along(&shown, text, &prompt("let total = x", "\n}\n")),
            None
        );
        assert_eq!(
            typed_along(&shown, text, &prompt("let total = \n", "\n}\n")),
            None
        );
        assert_eq!(
            typed_along(&shown, text, &prompt("let total = ite", "x\n}\n")),
            None
        );
        let mut other_files = typed.clone();
        other_files.files = vec![("b.rs".into(), "fn b() {}\n".into())];
        assert_eq!(typed_along(&shown, text, &other_files), None);
        // All of it typed: nothing left to propose.
        assert_eq!(
            typed_along(&shown, text, &prompt("let total = items.len();", "\n}\n")),
            None
        );
        assert_eq!(typed_along(&shown, text, &shown), None);
    }
}
