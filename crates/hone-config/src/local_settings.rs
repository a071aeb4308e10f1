//! `[local]`: settings of the embedded model (provider kind `local`).
//!
//! ```toml
//! [local]
//! model = "qwen2.5-coder-1.5b"  # catalog name (hone model list) or a path to a .gguf file
//! threads = 4                   # CPU threads; default: chosen from the machine
//! context_size = 8192           # tokens of context
//! temperature = 0.2             # 0 = greedy
//! top_p = 0.9
//! seed = 42                     # the first request's; each later one uses the next
//! constrained_tools = true      # tool calls constrained to the offered tools' schemas
//! speculative_decoding = true   # drafts from the context verified in batches (same answers)
//! prompt_cache = true           # the prompt's stable start kept on disk for the next run
//! ```
//!
//! Every key is optional; unset keys use the local provider's own defaults. The user file
//! and the project file are merged key by key, the project file winning. `model` is the
//! local provider's model when nothing else picks one (`model`, `HONE_MODEL`, `--model`,
//! `[providers.local] model` all win over it).

use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::load::Config;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};

/// The resolved `[local]` settings; `None` means "the local provider's default".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LocalSettings {
    /// CPU threads for inference.
    pub threads: Option<usize>,
    /// Context size in tokens.
    pub context_size: Option<u32>,
    /// Sampling temperature (0 = greedy).
    pub temperature: Option<f64>,
    /// Nucleus sampling threshold, in (0, 1].
    pub top_p: Option<f64>,
    /// Sampling seed of the first request; each later request uses the next number.
    pub seed: Option<u64>,
    /// Default model of the local provider: a catalog name or a path to a GGUF file.
    pub model: Option<String>,
    /// Whether tool calls are constrained to valid JSON matching the offered tools.
    pub constrained_tools: Option<bool>,
    /// Whether drafts from the context are verified in batches (speculative decoding;
    /// the answers are the same, only faster when they repeat the context).
    pub speculative_decoding: Option<bool>,
    /// Whether the keys and values of the prompt's stable start (system prompt, tools,
    /// repository map) are kept on disk, so the next process reads them back.
    pub prompt_cache: Option<bool>,
}

/// `[local]` as written in a file; spans locate values for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LocalSection {
    threads: Option<Spanned<i64>>,
    context_size: Option<Spanned<i64>>,
    temperature: Option<Spanned<f64>>,
    top_p: Option<Spanned<f64>>,
    seed: Option<Spanned<i64>>,
    model: Option<Spanned<String>>,
    constrained_tools: Option<bool>,
    speculative_decoding: Option<bool>,
    prompt_cache: Option<bool>,
}

/// The accepted ranges, for validation and messages.
const THREADS: std::ops::RangeInclusive<i64> = 1..=1024;
const CONTEXT_SIZE: std::ops::RangeInclusive<i64> = 256..=1_048_576;
const TEMPERATURE: std::ops::RangeInclusive<f64> = 0.0..=2.0;

/// Checks `[local]` of the file `path` whose contents are `text`; errors carry the line.
pub(crate) fn validate(path: &Path, text: &str, section: &LocalSection) -> Result<(), ConfigError> {
    let error = |span: Range<usize>, message: String| {
        crate::file::error_at(path, text, span.start, message)
    };
    let integer = |key: &str, value: &Option<Spanned<i64>>, range| match out_of_range(value, range)
    {
        Some(span) => Err(error(
            span,
            format!(
                "invalid `local.{key}`: expected a whole number from {} to {}",
                range.start(),
                range.end()
            ),
        )),
        None => Ok(()),
    };
    integer("threads", &section.threads, &THREADS)?;
    integer("context_size", &section.context_size, &CONTEXT_SIZE)?;
    integer("seed", &section.seed, &(0..=i64::MAX))?;
    if let Some(value) = &section.temperature
        && !TEMPERATURE.contains(value.get_ref())
    {
        let message = format!(
            "invalid `local.temperature` {}: expected a number from 0 to 2 (0 = greedy)",
            value.get_ref()
        );
        return Err(error(value.span(), message));
    }
    if let Some(value) = &section.top_p
        && !(*value.get_ref() > 0.0 && *value.get_ref() <= 1.0)
    {
        let message = format!(
            "invalid `local.top_p` {}: expected a number above 0 and at most 1",
            value.get_ref()
        );
        return Err(error(value.span(), message));
    }
    if let Some(value) = &section.model
        && value.get_ref().trim().is_empty()
    {
        let message = "`local.model` must not be empty".to_string();
        return Err(error(value.span(), message));
    }
    Ok(())
}

/// The span of `value` when it lies outside `range`.
fn out_of_range(
    value: &Option<Spanned<i64>>,
    range: &std::ops::RangeInclusive<i64>,
) -> Option<Range<usize>> {
    value
        .as_ref()
        .filter(|value| !range.contains(value.get_ref()))
        .map(Spanned::span)
}

/// `[local]` merged over the files, each value with its source.
#[derive(Debug, Clone, Default)]
pub(crate) struct LocalLayers {
    threads: Option<Sourced<usize>>,
    context_size: Option<Sourced<u32>>,
    temperature: Option<Sourced<f64>>,
    top_p: Option<Sourced<f64>>,
    seed: Option<Sourced<u64>>,
    pub(crate) model: Option<Sourced<String>>,
    constrained_tools: Option<Sourced<bool>>,
    speculative_decoding: Option<Sourced<bool>>,
    prompt_cache: Option<Sourced<bool>>,
}

/// The largest `context_size` an untrusted project may set when the user chose none: the
/// embedded engine's default.
const UNTRUSTED_CONTEXT_SIZE: u32 = 8192;

impl LocalSection {
    /// Drops what an untrusted project may not set (see the `untrusted` module): a model file,
    /// and a context size above `below`'s (or the engine's default).
    pub(crate) fn restrict_untrusted(&mut self, below: &LocalSettings, ignored: &mut Vec<String>) {
        if let Some(model) = self
            .model
            .take_if(|model| crate::untrusted::is_model_file(model.get_ref()))
        {
            ignored.push(format!(
                "[local] model = {:?} (chooses a model file)",
                model.get_ref()
            ));
        }
        let limit = i64::from(below.context_size.unwrap_or(UNTRUSTED_CONTEXT_SIZE));
        let mut size = self.context_size.as_ref().map(|size| *size.get_ref());
        crate::untrusted::cap(&mut size, limit, "[local] context_size", ignored);
        if size.is_none() {
            self.context_size = None;
        }
    }
}

impl LocalLayers {
    /// Applies a validated section from `source` over the lower layers.
    pub(crate) fn merge(&mut self, section: LocalSection, source: &Source) {
        let sourced = |value| Sourced::new(value, source.clone());
        let integer = |value: Option<Spanned<i64>>| value.map(Spanned::into_inner);
        if let Some(value) = integer(section.threads).and_then(|v| usize::try_from(v).ok()) {
            self.threads = Some(sourced(value));
        }
        if let Some(value) = integer(section.context_size).and_then(|v| u32::try_from(v).ok()) {
            self.context_size = Some(Sourced::new(value, source.clone()));
        }
        if let Some(value) = integer(section.seed).and_then(|v| u64::try_from(v).ok()) {
            self.seed = Some(Sourced::new(value, source.clone()));
        }
        if let Some(value) = section.temperature {
            self.temperature = Some(Sourced::new(value.into_inner(), source.clone()));
        }
        if let Some(value) = section.top_p {
            self.top_p = Some(Sourced::new(value.into_inner(), source.clone()));
        }
        if let Some(value) = section.constrained_tools {
            self.constrained_tools = Some(Sourced::new(value, source.clone()));
        }
        if let Some(value) = section.speculative_decoding {
            self.speculative_decoding = Some(Sourced::new(value, source.clone()));
        }
        if let Some(value) = section.prompt_cache {
            self.prompt_cache = Some(Sourced::new(value, source.clone()));
        }
        if let Some(value) = section.model {
            let model = value.into_inner().trim().to_string();
            self.model = Some(Sourced::new(model, source.clone()));
        }
    }

    /// The values without their sources.
    fn settings(&self) -> LocalSettings {
        LocalSettings {
            threads: self.threads.as_ref().map(|value| value.value),
            context_size: self.context_size.as_ref().map(|value| value.value),
            temperature: self.temperature.as_ref().map(|value| value.value),
            top_p: self.top_p.as_ref().map(|value| value.value),
            seed: self.seed.as_ref().map(|value| value.value),
            model: self.model.as_ref().map(|value| value.value.clone()),
            constrained_tools: self.constrained_tools.as_ref().map(|value| value.value),
            speculative_decoding: self.speculative_decoding.as_ref().map(|value| value.value),
            prompt_cache: self.prompt_cache.as_ref().map(|value| value.value),
        }
    }

    /// The `[local]` lines of `hone config show`.
    pub(crate) fn show(&self, values: &mut Vec<ShownValue>) {
        let mut push = |key: &str, value: Option<(String, Source)>| {
            let (value, source) = match value {
                Some((value, source)) => (value, Some(source)),
                None => ("not set (local provider default)".to_string(), None),
            };
            values.push(ShownValue {
                section: "local".to_string(),
                key: key.to_string(),
                value,
                source,
            });
        };
        let shown = |value: &Option<Sourced<String>>| {
            value
                .as_ref()
                .map(|value| (format!("{:?}", value.value), value.source.clone()))
        };
        push("model", shown(&self.model));
        push("threads", text(&self.threads));
        push("context_size", text(&self.context_size));
        push("temperature", text(&self.temperature));
        push("top_p", text(&self.top_p));
        push("seed", text(&self.seed));
        push("constrained_tools", text(&self.constrained_tools));
        push("speculative_decoding", text(&self.speculative_decoding));
        push("prompt_cache", text(&self.prompt_cache));
    }
}

fn text<T: ToString>(value: &Option<Sourced<T>>) -> Option<(String, Source)> {
    value
        .as_ref()
        .map(|value| (value.value.to_string(), value.source.clone()))
}

impl Config {
    /// The `[local]` settings of the embedded model (provider kind `local`).
    pub fn local_settings(&self) -> LocalSettings {
        self.local.settings()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LocalSection, ConfigError> {
        #[derive(Deserialize)]
        struct Wrapper {
            local: LocalSection,
        }
        let wrapper: Wrapper = toml::from_str(text).unwrap();
        validate(Path::new("/c.toml"), text, &wrapper.local).map(|()| wrapper.local)
    }

    #[test]
    fn valid_sections_merge_with_sources() {
        let section = parse("[local]\nthreads = 3\ntemperature = 0.5\nmodel = \"m\"\n").unwrap();
        let mut layers = LocalLayers::default();
        let source = Source::UserFile("/u.toml".into());
        layers.merge(section, &source);
        let later = parse(
            "[local]\nthreads = 2\nseed = 9\nconstrained_tools = false\nspeculative_decoding = false\nprompt_cache = false\n",
        )
        .unwrap();
        layers.merge(later, &Source::ProjectFile("/p.toml".into()));
        let settings = layers.settings();
        assert_eq!(settings.threads, Some(2));
        assert_eq!(settings.temperature, Some(0.5));
        assert_eq!(settings.seed, Some(9));
        assert_eq!(settings.model.as_deref(), Some("m"));
        assert_eq!(settings.context_size, None);
        assert_eq!(settings.constrained_tools, Some(false));
        assert_eq!(settings.speculative_decoding, Some(false));
        assert_eq!(settings.prompt_cache, Some(false));
        let mut values = Vec::new();
        layers.show(&mut values);
        let threads = values.iter().find(|value| value.key == "threads").unwrap();
        assert_eq!(threads.value, "2");
        assert_eq!(threads.source, Some(Source::ProjectFile("/p.toml".into())));
        let top_p = values.iter().find(|value| value.key == "top_p").unwrap();
        assert!(top_p.value.starts_with("not set"), "{}", top_p.value);
    }

    #[test]
    fn out_of_range_values_name_the_key_and_line() {
        for (text, key) in [
            ("[local]\nthreads = 0\n", "local.threads"),
            ("[local]\n\ncontext_size = 10\n", "local.context_size"),
            ("[local]\ntemperature = 3.0\n", "local.temperature"),
            ("[local]\ntop_p = 0.0\n", "local.top_p"),
            ("[local]\nseed = -1\n", "local.seed"),
            ("[local]\nmodel = \" \"\n", "local.model"),
        ] {
            match parse(text) {
                Err(ConfigError::Parse { line, message, .. }) => {
                    assert!(message.contains(key), "{message}");
                    assert!(line.unwrap() >= 2);
                }
                other => panic!("{text}: expected an error, got {other:?}"),
            }
        }
    }
}
