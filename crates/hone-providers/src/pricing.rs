//! What models cost: list prices of well-known hosted models, so front ends can show a
//! session's cost in money.
//!
//! Prices are the vendors' published list prices in US dollars per million tokens, as of
//! **2025-11-24** (standard tier, prompts up to 200k tokens where the price depends on the
//! length). Model names are matched by the longest prefix, case-insensitively and ignoring
//! an organisation prefix such as `openai/`, like the context-window table. The embedded
//! model and Ollama cost nothing; any other model not in the table has no price (front
//! ends show tokens only).

use hone_api::ModelPrice;
use hone_config::WireApi;

/// `(lower-case model-name prefix, input, cached input, output)` in US dollars per million
/// tokens, as of 2025-11-24; the longest matching prefix wins.
pub const KNOWN_PRICES: &[(&str, f64, f64, f64)] = &[
    // OpenAI
    ("gpt-5.1", 1.25, 0.125, 10.0),
    ("gpt-5", 1.25, 0.125, 10.0),
    ("gpt-5-codex", 1.25, 0.125, 10.0),
    ("gpt-5-mini", 0.25, 0.025, 2.0),
    ("gpt-5-nano", 0.05, 0.005, 0.40),
    ("gpt-4.1", 2.0, 0.50, 8.0),
    ("gpt-4.1-mini", 0.40, 0.10, 1.60),
    ("gpt-4.1-nano", 0.10, 0.025, 0.40),
    ("gpt-4o", 2.50, 1.25, 10.0),
    ("gpt-4o-mini", 0.15, 0.075, 0.60),
    ("o1", 15.0, 7.50, 60.0),
    ("o3", 2.0, 0.50, 8.0),
    ("o3-mini", 1.10, 0.55, 4.40),
    ("o4-mini", 1.10, 0.275, 4.40),
    // Anthropic (cache reads at a tenth of the input price)
    ("claude-opus-4-5", 5.0, 0.50, 25.0),
    ("claude-opus-4", 15.0, 1.50, 75.0),
    ("claude-sonnet-4", 3.0, 0.30, 15.0),
    ("claude-haiku-4-5", 1.0, 0.10, 5.0),
    ("claude-3-7-sonnet", 3.0, 0.30, 15.0),
    ("claude-3-5-sonnet", 3.0, 0.30, 15.0),
    ("claude-3-5-haiku", 0.80, 0.08, 4.0),
    ("claude-3-haiku", 0.25, 0.03, 1.25),
    // Google Gemini
    ("gemini-3-pro", 2.0, 0.20, 12.0),
    ("gemini-2.5-pro", 1.25, 0.125, 10.0),
    ("gemini-2.5-flash", 0.30, 0.03, 2.50),
    ("gemini-2.5-flash-lite", 0.10, 0.01, 0.40),
    ("gemini-2.0-flash", 0.10, 0.025, 0.40),
    ("gemini-2.0-flash-lite", 0.075, 0.075, 0.30),
    // DeepSeek
    ("deepseek-chat", 0.28, 0.028, 0.42),
    ("deepseek-reasoner", 0.28, 0.028, 0.42),
];

/// The list price of `model` from [`KNOWN_PRICES`], if the model is known.
///
/// ```
/// let price = hone_providers::pricing::known_price("openai/gpt-4o-mini").unwrap();
/// assert_eq!(price.input, 0.15);
/// assert!(hone_providers::pricing::known_price("my-finetune").is_none());
/// ```
pub fn known_price(model: &str) -> Option<ModelPrice> {
    let name = model.rsplit('/').next().unwrap_or(model).to_lowercase();
    KNOWN_PRICES
        .iter()
        .filter(|(prefix, ..)| name.starts_with(prefix))
        .max_by_key(|(prefix, ..)| prefix.len())
        .map(|&(_, input, cached_input, output)| ModelPrice {
            input,
            cached_input,
            output,
        })
}

/// The price of `model` spoken to over `wire`: the table's, else free for the embedded
/// model and Ollama, else unknown.
pub fn price(wire: WireApi, model: &str) -> Option<ModelPrice> {
    match wire {
        WireApi::Local | WireApi::Ollama => Some(ModelPrice::FREE),
        WireApi::OpenAiChat | WireApi::OpenAiResponses | WireApi::Anthropic | WireApi::Gemini => {
            known_price(model)
        }
    }
}

#[cfg(test)]
mod tests {
    use hone_api::Usage;

    use super::*;

    #[test]
    fn the_longest_prefix_wins_and_dated_names_match() {
        let input = |model: &str| known_price(model).map(|price| price.input);
        assert_eq!(input("gpt-4o-mini-2024-07-18"), Some(0.15));
        assert_eq!(input("gpt-4o-2024-08-06"), Some(2.50));
        assert_eq!(input("o3-mini"), Some(1.10));
        assert_eq!(input("claude-sonnet-4-5-20250929"), Some(3.0));
        assert_eq!(input("claude-opus-4-5"), Some(5.0));
        assert_eq!(input("claude-opus-4-1-20250805"), Some(15.0));
        assert_eq!(input("models/Gemini-2.5-Flash"), Some(0.30));
        assert_eq!(input("gemini-2.5-flash-lite"), Some(0.10));
    }

    #[test]
    fn local_models_are_free_and_unknown_hosted_ones_have_no_price() {
        assert_eq!(
            price(WireApi::Local, "qwen2.5-coder-1.5b"),
            Some(ModelPrice::FREE)
        );
        assert_eq!(
            price(WireApi::Ollama, "llama3.1:8b"),
            Some(ModelPrice::FREE)
        );
        assert_eq!(price(WireApi::OpenAiChat, "my-finetune"), None);
        assert_eq!(price(WireApi::OpenAiChat, ""), None);
        assert!(price(WireApi::Anthropic, "claude-haiku-4-5").is_some());
    }

    #[test]
    fn a_known_model_costs_its_tokens_at_list_price() {
        let price = known_price("gpt-4.1").unwrap();
        let usage = Usage {
            input_tokens: 10_000,
            cached_input_tokens: 4_000,
            output_tokens: 1_000,
            ..Usage::default()
        };
        // 6,000 × $2 + 4,000 × $0.50 + 1,000 × $8 per million.
        assert!((price.cost(&usage) - 0.022).abs() < 1e-12);
    }

    #[test]
    fn table_prefixes_are_lower_case_and_unique() {
        let mut prefixes: Vec<_> = KNOWN_PRICES.iter().map(|(prefix, ..)| *prefix).collect();
        assert!(
            prefixes
                .iter()
                .all(|prefix| *prefix == prefix.to_lowercase())
        );
        let count = prefixes.len();
        prefixes.sort_unstable();
        prefixes.dedup();
        assert_eq!(prefixes.len(), count);
    }
}
