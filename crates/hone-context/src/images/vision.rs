//! Which well-known models accept images, for refusing an attached image before the request
//! rather than after the API's error.
//!
//! Matched like the context windows: the longest lower-case prefix of the model name without
//! an organisation prefix (`openai/`, `Qwen/`) wins. A model not in the table is `None`: the
//! image is sent and the API decides.

/// `(lower-case model-name prefix, whether the model accepts images)`.
pub const KNOWN_VISION: &[(&str, bool)] = &[
    // OpenAI
    ("gpt-3.5", false),
    ("gpt-4", false),
    ("gpt-4-turbo", true),
    ("gpt-4-vision", true),
    ("gpt-4o", true),
    ("chatgpt-4o", true),
    ("gpt-4.1", true),
    ("gpt-4.5", true),
    ("gpt-5", true),
    ("gpt-oss", false),
    ("o1", true),
    ("o1-mini", false),
    ("o1-preview", false),
    ("o3", true),
    ("o3-mini", false),
    ("o4-mini", true),
    // Anthropic: every model from Claude 3 on.
    ("claude-", true),
    ("claude-2", false),
    ("claude-instant", false),
    // Google
    ("gemini-", true),
    ("gemma3", true),
    ("gemma-3", true),
    // Open models that see
    ("llava", true),
    ("bakllava", true),
    ("llama3.2-vision", true),
    ("llama-3.2-vision", true),
    ("llama4", true),
    ("qwen2-vl", true),
    ("qwen2.5-vl", true),
    ("qwen2.5vl", true),
    ("pixtral", true),
    ("minicpm-v", true),
    ("moondream", true),
    // Open models that do not
    ("qwen2.5", false),
    ("qwen2.5-coder", false),
    ("qwen3", false),
    ("qwen3-coder", false),
    ("llama3", false),
    ("llama-3", false),
    ("codestral", false),
    ("devstral", false),
    ("deepseek", false),
    ("starcoder", false),
];

/// Whether `model` accepts images, from the built-in table; `None` for a model it does not
/// know.
///
/// ```
/// assert_eq!(hone_context::images::known_vision("openai/gpt-4o-mini"), Some(true));
/// assert_eq!(hone_context::images::known_vision("qwen2.5-coder:1.5b"), Some(false));
/// assert_eq!(hone_context::images::known_vision("my-own-model"), None);
/// ```
pub fn known_vision(model: &str) -> Option<bool> {
    let name = model.rsplit('/').next().unwrap_or(model).to_lowercase();
    KNOWN_VISION
        .iter()
        .filter(|(prefix, _)| name.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, sees)| *sees)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_prefix_decides() {
        assert_eq!(known_vision("gpt-4"), Some(false));
        assert_eq!(known_vision("gpt-4-turbo-2024-04-09"), Some(true));
        assert_eq!(known_vision("o3-mini"), Some(false));
        assert_eq!(known_vision("o3"), Some(true));
        assert_eq!(known_vision("claude-sonnet-4-5"), Some(true));
        assert_eq!(known_vision("claude-2.1"), Some(false));
        assert_eq!(known_vision("Qwen/Qwen2.5-VL-7B-Instruct"), Some(true));
        assert_eq!(known_vision("qwen2.5-coder:7b"), Some(false));
        assert_eq!(known_vision("llama3.2-vision:11b"), Some(true));
        assert_eq!(known_vision("llama3.2:3b"), Some(false));
    }
}
