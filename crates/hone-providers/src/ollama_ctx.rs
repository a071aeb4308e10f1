//! Sizing Ollama's `options.num_ctx` to the prompt.
//!
//! Ollama's default context (2–4 K tokens) silently truncates long prompts from the
//! front, which drops the system prompt and tool definitions first. hone therefore
//! asks for a window large enough for the prompt plus the answer.

use hone_protocol::ChatRequest;

/// Smallest window hone asks for.
const MIN_NUM_CTX: u32 = 8_192;
/// Windows are rounded up to a multiple of this, so consecutive turns reuse the loaded model.
const NUM_CTX_STEP: u32 = 4_096;
/// Output room assumed when the request sets no `max_tokens`.
const DEFAULT_OUTPUT_ROOM: u32 = 4_096;

/// The `num_ctx` for `request`: estimated prompt tokens plus room for the answer,
/// rounded up to a multiple of 4096, at least 8192 and at most `window` when known.
pub fn ollama_num_ctx(request: &ChatRequest, window: Option<u32>) -> u32 {
    let prompt_tokens = u32::try_from(request.estimated_tokens()).unwrap_or(u32::MAX);
    let wanted = prompt_tokens
        .saturating_add(request.max_tokens.unwrap_or(DEFAULT_OUTPUT_ROOM))
        .max(MIN_NUM_CTX);
    let rounded = wanted.div_ceil(NUM_CTX_STEP).saturating_mul(NUM_CTX_STEP);
    match window {
        Some(window) => rounded.min(window.max(MIN_NUM_CTX.min(window))),
        None => rounded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_prompts_get_the_minimum() {
        assert_eq!(ollama_num_ctx(&ChatRequest::new("m", "hi"), None), 8_192);
    }

    #[test]
    fn large_prompts_grow_in_steps_and_respect_the_window() {
        let request = ChatRequest::new("m", "x".repeat(160_000));
        // 20_000 prompt tokens (a piece per eight letters) + 4_096 output room → 24_096 → 24_576.
        assert_eq!(ollama_num_ctx(&request, None), 24_576);
        assert_eq!(ollama_num_ctx(&request, Some(16_384)), 16_384);
        assert_eq!(
            ollama_num_ctx(&ChatRequest::new("m", "hi"), Some(4_096)),
            4_096
        );
    }
}
