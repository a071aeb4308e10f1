//! Which provider hone uses when no file, variable or flag selects one.
//!
//! The rule: the first preset that needs a key and whose key variable is set
//! (`OPENAI_API_KEY` → `openai`, `ANTHROPIC_API_KEY` → `anthropic`, `GEMINI_API_KEY` →
//! `gemini`, then `openrouter`, `mistral`, `deepseek`, `groq`, and `azure` when
//! `AZURE_OPENAI_ENDPOINT` is set too), in the order of [`crate::PRESETS`]; with no such key,
//! [`DEFAULT_PROVIDER`], the embedded model. Keys in files (`api_key_file`) do not count.

use crate::preset::PRESETS;
use crate::source::{Source, Sourced};
use crate::sources::Env;

/// Provider used when nothing selects one and no vendor key is set: `local`, the embedded
/// model, which needs no server and no key.
pub const DEFAULT_PROVIDER: &str = "local";

/// The provider a configuration without a selection uses, and why.
pub(crate) fn default_provider(env: &Env) -> Sourced<String> {
    for preset in PRESETS {
        let Some(variable) = preset.api_key_env else {
            continue;
        };
        let base_url_known = !preset.base_url.is_empty()
            || preset
                .base_url_env
                .is_some_and(|variable| env.get(variable).is_some());
        if preset.key_required && base_url_known && env.get(variable).is_some() {
            return Sourced::new(preset.name.to_string(), Source::Env(variable.to_string()));
        }
    }
    Sourced::new(DEFAULT_PROVIDER.to_string(), Source::Default)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env::new(
            vars.iter()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect::<BTreeMap<_, _>>(),
        )
    }

    #[test]
    fn no_key_means_the_embedded_model() {
        let chosen = default_provider(&env(&[("OLLAMA_HOST", "x"), ("VLLM_API_KEY", "k")]));
        assert_eq!(chosen.value, "local");
        assert_eq!(chosen.source, Source::Default);
    }

    #[test]
    fn a_vendor_key_picks_its_vendor_in_preset_order() {
        let chosen = default_provider(&env(&[("GEMINI_API_KEY", "g"), ("ANTHROPIC_API_KEY", "a")]));
        assert_eq!(chosen.value, "anthropic");
        assert_eq!(chosen.source, Source::Env("ANTHROPIC_API_KEY".into()));
        assert_eq!(
            default_provider(&env(&[("OPENAI_API_KEY", "o")])).value,
            "openai"
        );
        assert_eq!(
            default_provider(&env(&[("GROQ_API_KEY", " ")])).value,
            "local"
        );
    }

    #[test]
    fn azure_needs_its_endpoint_as_well() {
        assert_eq!(
            default_provider(&env(&[("AZURE_OPENAI_API_KEY", "k")])).value,
            "local"
        );
        let both = env(&[
            ("AZURE_OPENAI_API_KEY", "k"),
            ("AZURE_OPENAI_ENDPOINT", "https://r.openai.azure.com"),
        ]);
        assert_eq!(default_provider(&both).value, "azure");
    }
}
