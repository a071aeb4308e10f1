//! Context-window sizes of well-known models.
//!
//! Model names are matched by the longest prefix in [`KNOWN_CONTEXT_WINDOWS`],
//! case-insensitively and ignoring an organisation prefix such as `openai/` or
//! `Qwen/`, so `gpt-4.1-mini`, `openai/gpt-4o` and `qwen2.5-coder:7b` are all found.

/// `(lower-case model-name prefix, context window in tokens)`; the longest matching prefix wins.
pub const KNOWN_CONTEXT_WINDOWS: &[(&str, u32)] = &[
    // OpenAI
    ("gpt-3.5-turbo", 16_385),
    ("gpt-4", 8_192),
    ("gpt-4-turbo", 128_000),
    ("gpt-4o", 128_000),
    ("chatgpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("gpt-oss", 131_072),
    ("o1", 200_000),
    ("o1-mini", 128_000),
    ("o1-preview", 128_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    // Anthropic
    ("claude-", 200_000),
    // Google
    ("gemini-1.5-pro", 2_097_152),
    ("gemini-1.5-flash", 1_048_576),
    ("gemini-2", 1_048_576),
    // Qwen
    ("qwen2.5", 32_768),
    ("qwen2.5-coder", 32_768),
    ("qwen-2.5", 32_768),
    ("qwen-2.5-coder", 32_768),
    ("qwen3", 40_960),
    ("qwen3-coder", 262_144),
    // Meta Llama
    ("llama3", 8_192),
    ("llama-3", 8_192),
    ("llama3.1", 131_072),
    ("llama-3.1", 131_072),
    ("llama3.2", 131_072),
    ("llama-3.2", 131_072),
    ("llama3.3", 131_072),
    ("llama-3.3", 131_072),
    // Mistral
    ("mistral-large", 131_072),
    ("codestral", 256_000),
    ("devstral", 131_072),
    // DeepSeek
    ("deepseek-chat", 65_536),
    ("deepseek-coder", 65_536),
    ("deepseek-reasoner", 65_536),
];

/// The context window of `model` from the built-in table, if the model is known.
///
/// ```
/// assert_eq!(hone_config::known_context_window("openai/GPT-4o-mini"), Some(128_000));
/// assert_eq!(hone_config::known_context_window("my-own-model"), None);
/// ```
pub fn known_context_window(model: &str) -> Option<u32> {
    let name = model.rsplit('/').next().unwrap_or(model).to_lowercase();
    KNOWN_CONTEXT_WINDOWS
        .iter()
        .filter(|(prefix, _)| name.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, tokens)| *tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefix_wins() {
        assert_eq!(known_context_window("gpt-4"), Some(8_192));
        assert_eq!(
            known_context_window("gpt-4-turbo-2024-04-09"),
            Some(128_000)
        );
        assert_eq!(known_context_window("gpt-4o-mini"), Some(128_000));
        assert_eq!(known_context_window("gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(known_context_window("gpt-5-codex"), Some(400_000));
        assert_eq!(known_context_window("qwen3:8b"), Some(40_960));
        assert_eq!(known_context_window("qwen3-coder:30b"), Some(262_144));
        assert_eq!(known_context_window("llama3.1:8b"), Some(131_072));
        assert_eq!(known_context_window("llama3:8b"), Some(8_192));
    }

    #[test]
    fn ignores_case_and_organisation_prefix() {
        assert_eq!(known_context_window("openai/gpt-4o"), Some(128_000));
        assert_eq!(
            known_context_window("Qwen/Qwen2.5-Coder-7B-Instruct"),
            Some(32_768)
        );
        assert_eq!(
            known_context_window("meta-llama/Llama-3.3-70B-Instruct"),
            Some(131_072)
        );
        assert_eq!(
            known_context_window("models/gemini-2.5-pro"),
            Some(1_048_576)
        );
        assert_eq!(known_context_window("Claude-Sonnet-4-5"), Some(200_000));
    }

    #[test]
    fn unknown_models_are_none() {
        assert_eq!(known_context_window(""), None);
        assert_eq!(known_context_window("my-finetune"), None);
    }

    #[test]
    fn table_prefixes_are_lower_case_and_unique() {
        let mut prefixes: Vec<_> = KNOWN_CONTEXT_WINDOWS.iter().map(|(p, _)| *p).collect();
        assert!(prefixes.iter().all(|p| *p == p.to_lowercase()));
        let count = prefixes.len();
        prefixes.sort_unstable();
        prefixes.dedup();
        assert_eq!(prefixes.len(), count);
    }
}
