//! `[context]`: how the agent keeps long sessions inside the model's context window.
//!
//! ```toml
//! [context]
//! compact_threshold = 0.8          # compact when a request passes this share of the window; 0 disables
//! recent_turns = 4                 # turns kept whole by compaction (1 to 100)
//! compaction_model = "gpt-4.1-mini" # optional: a cheaper model of the same provider for summaries
//! instructions_max_bytes = 32768   # cap on AGENTS.md/HONE.md text put into the prompt
//! prompt_profile = "auto"          # auto | compact | full: tool set and system prompt size
//! localize = "auto"                # auto | on | off: attach the code a request names
//! localize_budget_tokens = 1500    # token budget of that code (100 to 32000)
//! mode = "auto"                    # auto | guided | agent: purpose-made steps for small models
//! ```
//!
//! Each key is layered on its own: the project file's value wins over the user file's. None
//! of them can send anything anywhere, so a project needs no trust to set them.

use std::ops::RangeInclusive;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

pub use crate::context_modes::{FlowSetting, LocalizeSetting};
use crate::error::ConfigError;
use crate::file::line_and_column;
use crate::load::Config;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};

/// `compact_threshold` when nothing sets it.
pub const DEFAULT_COMPACT_THRESHOLD: f64 = 0.8;
/// `recent_turns` when nothing sets it.
pub const DEFAULT_RECENT_TURNS: usize = 4;
/// `instructions_max_bytes` when nothing sets it.
pub const DEFAULT_INSTRUCTIONS_MAX_BYTES: usize = 32 * 1024;
/// The values `recent_turns` accepts.
pub const RECENT_TURNS_RANGE: RangeInclusive<usize> = 1..=100;
/// `localize_budget_tokens` when nothing sets it.
pub const DEFAULT_LOCALIZE_BUDGET_TOKENS: usize = 1_500;
/// The values `localize_budget_tokens` accepts.
pub const LOCALIZE_BUDGET_RANGE: RangeInclusive<usize> = 100..=32_000;
/// The values `instructions_max_bytes` accepts (0 leaves the instructions out).
pub const INSTRUCTIONS_MAX_BYTES_RANGE: RangeInclusive<usize> = 0..=1024 * 1024;

/// `prompt_profile`: which tools and how long a system prompt the model gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PromptProfileSetting {
    /// Compact for the embedded model and models named as 4B parameters or fewer, full
    /// otherwise.
    #[default]
    Auto,
    /// The few tools a small model needs, terse descriptions, a short system prompt.
    Compact,
    /// Every tool with full descriptions and the full system prompt.
    Full,
}

impl PromptProfileSetting {
    /// The name used in configuration files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Compact => "compact",
            Self::Full => "full",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Self::Auto),
            "compact" => Some(Self::Compact),
            "full" => Some(Self::Full),
            _ => None,
        }
    }
}

/// The `[context]` settings in effect.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextSettings {
    /// Share of the context window at which older turns are compacted (0 disables
    /// automatic compaction).
    pub compact_threshold: f64,
    /// Turns kept whole when compacting.
    pub recent_turns: usize,
    /// Model for summaries; `None` uses the session's model.
    pub compaction_model: Option<String>,
    /// Cap on the project instructions' size in bytes.
    pub instructions_max_bytes: usize,
    /// Tool set and system prompt size.
    pub prompt_profile: PromptProfileSetting,
    /// Whether the code a request names is attached to it.
    pub localize: LocalizeSetting,
    /// Token budget of the attached code.
    pub localize_budget_tokens: usize,
    /// Guided flow or agent loop.
    pub mode: FlowSetting,
}

impl Default for ContextSettings {
    fn default() -> Self {
        Self {
            compact_threshold: DEFAULT_COMPACT_THRESHOLD,
            recent_turns: DEFAULT_RECENT_TURNS,
            compaction_model: None,
            instructions_max_bytes: DEFAULT_INSTRUCTIONS_MAX_BYTES,
            prompt_profile: PromptProfileSetting::Auto,
            localize: LocalizeSetting::Auto,
            localize_budget_tokens: DEFAULT_LOCALIZE_BUDGET_TOKENS,
            mode: FlowSetting::Auto,
        }
    }
}

/// `[context]` as written in a file; spans locate values for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContextSection {
    compact_threshold: Option<Spanned<f64>>,
    recent_turns: Option<Spanned<i64>>,
    compaction_model: Option<Spanned<String>>,
    instructions_max_bytes: Option<Spanned<i64>>,
    prompt_profile: Option<Spanned<String>>,
    localize: Option<Spanned<String>>,
    localize_budget_tokens: Option<Spanned<i64>>,
    mode: Option<Spanned<String>>,
    /// The values above, checked; filled in by [`validate`].
    #[serde(skip)]
    checked: CheckedContext,
}

#[derive(Debug, Default)]
struct CheckedContext {
    compact_threshold: Option<f64>,
    recent_turns: Option<usize>,
    compaction_model: Option<String>,
    instructions_max_bytes: Option<usize>,
    prompt_profile: Option<PromptProfileSetting>,
    localize: Option<LocalizeSetting>,
    localize_budget_tokens: Option<usize>,
    mode: Option<FlowSetting>,
}

/// Checks `section`, from the contents `text` of `path`; errors name the file and line.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    section: &mut ContextSection,
) -> Result<(), ConfigError> {
    let error = |start: usize, message: String| {
        let (line, column) = line_and_column(text, start);
        ConfigError::Parse {
            path: path.to_path_buf(),
            line: Some(line),
            column: Some(column),
            message,
        }
    };
    if let Some(value) = &section.compact_threshold {
        let threshold = *value.get_ref();
        if !(0.0..1.0).contains(&threshold) {
            return Err(error(
                value.span().start,
                format!(
                    "invalid `context.compact_threshold` {threshold}: expected a share of the \
                     window from 0 (never compact) to below 1, e.g. 0.8"
                ),
            ));
        }
        section.checked.compact_threshold = Some(threshold);
    }
    let ranged = |value: &Spanned<i64>, key: &str, range: &RangeInclusive<usize>| {
        usize::try_from(*value.get_ref())
            .ok()
            .filter(|number| range.contains(number))
            .ok_or_else(|| {
                error(
                    value.span().start,
                    format!(
                        "invalid `context.{key}` {}: expected a whole number from {} to {}",
                        value.get_ref(),
                        range.start(),
                        range.end()
                    ),
                )
            })
    };
    if let Some(value) = &section.recent_turns {
        section.checked.recent_turns = Some(ranged(value, "recent_turns", &RECENT_TURNS_RANGE)?);
    }
    if let Some(value) = &section.instructions_max_bytes {
        section.checked.instructions_max_bytes = Some(ranged(
            value,
            "instructions_max_bytes",
            &INSTRUCTIONS_MAX_BYTES_RANGE,
        )?);
    }
    if let Some(value) = &section.compaction_model {
        let model = value.get_ref().trim();
        if model.is_empty() {
            return Err(error(
                value.span().start,
                "`context.compaction_model` must not be empty; leave it out to use the \
                 session's model"
                    .to_string(),
            ));
        }
        section.checked.compaction_model = Some(model.to_string());
    }
    if let Some(value) = &section.prompt_profile {
        let profile = PromptProfileSetting::parse(value.get_ref()).ok_or_else(|| {
            error(
                value.span().start,
                format!(
                    "invalid `context.prompt_profile` {:?}: expected \"auto\", \"compact\" or \
                     \"full\"",
                    value.get_ref()
                ),
            )
        })?;
        section.checked.prompt_profile = Some(profile);
    }
    if let Some(value) = &section.localize_budget_tokens {
        section.checked.localize_budget_tokens = Some(ranged(
            value,
            "localize_budget_tokens",
            &LOCALIZE_BUDGET_RANGE,
        )?);
    }
    if let Some(value) = &section.localize {
        section.checked.localize =
            Some(LocalizeSetting::parse(value.get_ref()).ok_or_else(|| {
                error(
                    value.span().start,
                    format!(
                        "invalid `context.localize` {:?}: expected \"auto\", \"on\" or \"off\"",
                        value.get_ref()
                    ),
                )
            })?);
    }
    if let Some(value) = &section.mode {
        section.checked.mode = Some(FlowSetting::parse(value.get_ref()).ok_or_else(|| {
            error(
                value.span().start,
                format!(
                    "invalid `context.mode` {:?}: expected \"auto\", \"guided\" or \"agent\"",
                    value.get_ref()
                ),
            )
        })?);
    }
    Ok(())
}

/// `[context]` merged over the files.
#[derive(Debug, Clone, Default)]
pub(crate) struct ContextLayers {
    compact_threshold: Option<Sourced<f64>>,
    recent_turns: Option<Sourced<usize>>,
    compaction_model: Option<Sourced<String>>,
    instructions_max_bytes: Option<Sourced<usize>>,
    prompt_profile: Option<Sourced<PromptProfileSetting>>,
    localize: Option<Sourced<LocalizeSetting>>,
    localize_budget_tokens: Option<Sourced<usize>>,
    mode: Option<Sourced<FlowSetting>>,
}

fn set<T: Clone>(slot: &mut Option<Sourced<T>>, value: Option<&T>, source: &Source) {
    if let Some(value) = value {
        *slot = Some(Sourced::new(value.clone(), source.clone()));
    }
}

impl ContextSection {
    /// Drops what an untrusted project may not set (see the `untrusted` module): a compaction
    /// model file, and limits above `below`'s.
    pub(crate) fn restrict_untrusted(
        &mut self,
        below: &ContextSettings,
        ignored: &mut Vec<String>,
    ) {
        let checked = &mut self.checked;
        if let Some(model) = checked
            .compaction_model
            .take_if(|model| crate::untrusted::is_model_file(model))
        {
            ignored.push(format!(
                "[context] compaction_model = {model:?} (chooses a model file)"
            ));
        }
        crate::untrusted::cap(
            &mut checked.instructions_max_bytes,
            below.instructions_max_bytes,
            "[context] instructions_max_bytes",
            ignored,
        );
        crate::untrusted::cap(
            &mut checked.localize_budget_tokens,
            below.localize_budget_tokens,
            "[context] localize_budget_tokens",
            ignored,
        );
        crate::untrusted::cap(
            &mut checked.recent_turns,
            below.recent_turns,
            "[context] recent_turns",
            ignored,
        );
    }
}

impl ContextLayers {
    /// Layers `section`, read from `source`, over the files merged so far.
    pub(crate) fn merge(&mut self, section: &ContextSection, source: &Source) {
        let checked = &section.checked;
        set(
            &mut self.compact_threshold,
            checked.compact_threshold.as_ref(),
            source,
        );
        set(
            &mut self.recent_turns,
            checked.recent_turns.as_ref(),
            source,
        );
        set(
            &mut self.compaction_model,
            checked.compaction_model.as_ref(),
            source,
        );
        set(
            &mut self.instructions_max_bytes,
            checked.instructions_max_bytes.as_ref(),
            source,
        );
        set(
            &mut self.prompt_profile,
            checked.prompt_profile.as_ref(),
            source,
        );
        set(&mut self.localize, checked.localize.as_ref(), source);
        set(
            &mut self.localize_budget_tokens,
            checked.localize_budget_tokens.as_ref(),
            source,
        );
        set(&mut self.mode, checked.mode.as_ref(), source);
    }
}

fn source_of<T>(slot: &Option<Sourced<T>>) -> Source {
    slot.as_ref()
        .map_or(Source::Default, |value| value.source.clone())
}

impl Config {
    /// The `[context]` settings: compaction threshold, recent turns kept, compaction model,
    /// the cap on project instructions and the prompt profile.
    pub fn context_settings(&self) -> ContextSettings {
        let layers = &self.context;
        let defaults = ContextSettings::default();
        ContextSettings {
            compact_threshold: layers
                .compact_threshold
                .as_ref()
                .map_or(defaults.compact_threshold, |value| value.value),
            recent_turns: layers
                .recent_turns
                .as_ref()
                .map_or(defaults.recent_turns, |value| value.value),
            compaction_model: layers
                .compaction_model
                .as_ref()
                .map(|value| value.value.clone()),
            instructions_max_bytes: layers
                .instructions_max_bytes
                .as_ref()
                .map_or(defaults.instructions_max_bytes, |value| value.value),
            prompt_profile: layers
                .prompt_profile
                .as_ref()
                .map_or(defaults.prompt_profile, |value| value.value),
            localize: layers
                .localize
                .as_ref()
                .map_or(defaults.localize, |value| value.value),
            localize_budget_tokens: layers
                .localize_budget_tokens
                .as_ref()
                .map_or(defaults.localize_budget_tokens, |value| value.value),
            mode: layers
                .mode
                .as_ref()
                .map_or(defaults.mode, |value| value.value),
        }
    }

    /// The `[context]` values as `hone config show` lists them.
    pub(crate) fn show_context(&self, values: &mut Vec<ShownValue>) {
        let settings = self.context_settings();
        let layers = &self.context;
        let mut shown = |key: &str, value: String, source: Source| {
            values.push(ShownValue {
                section: "context".to_string(),
                key: key.to_string(),
                value,
                source: Some(source),
            });
        };
        shown(
            "compact_threshold",
            settings.compact_threshold.to_string(),
            source_of(&layers.compact_threshold),
        );
        shown(
            "recent_turns",
            settings.recent_turns.to_string(),
            source_of(&layers.recent_turns),
        );
        if let Some(model) = &settings.compaction_model {
            shown(
                "compaction_model",
                format!("{model:?}"),
                source_of(&layers.compaction_model),
            );
        }
        shown(
            "instructions_max_bytes",
            settings.instructions_max_bytes.to_string(),
            source_of(&layers.instructions_max_bytes),
        );
        shown(
            "prompt_profile",
            format!("{:?}", settings.prompt_profile.as_str()),
            source_of(&layers.prompt_profile),
        );
        shown(
            "localize",
            format!("{:?}", settings.localize.as_str()),
            source_of(&layers.localize),
        );
        shown(
            "localize_budget_tokens",
            settings.localize_budget_tokens.to_string(),
            source_of(&layers.localize_budget_tokens),
        );
        shown(
            "mode",
            format!("{:?}", settings.mode.as_str()),
            source_of(&layers.mode),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CliOverrides, ConfigSources};

    fn parse(text: &str) -> Result<ContextSection, ConfigError> {
        let file = crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        )?;
        Ok(file.context)
    }

    #[test]
    fn values_are_checked_with_their_line() {
        let section = parse(
            "[context]\ncompact_threshold = 0.5\nrecent_turns = 2\ncompaction_model = \"small\"\n\
             instructions_max_bytes = 0\nprompt_profile = \"Compact\"\n",
        )
        .unwrap();
        assert_eq!(
            section.checked.prompt_profile,
            Some(PromptProfileSetting::Compact)
        );
        assert_eq!(section.checked.compact_threshold, Some(0.5));
        assert_eq!(section.checked.recent_turns, Some(2));
        assert_eq!(section.checked.compaction_model.as_deref(), Some("small"));
        assert_eq!(section.checked.instructions_max_bytes, Some(0));
        assert_eq!(
            parse("[context]\ncompact_threshold = 0\n")
                .unwrap()
                .checked
                .compact_threshold,
            Some(0.0)
        );
        for (bad, expected) in [
            ("compact_threshold = 80", "below 1"),
            ("compact_threshold = -0.1", "below 1"),
            ("recent_turns = 0", "from 1 to 100"),
            ("instructions_max_bytes = -1", "from 0 to"),
            ("compaction_model = \" \"", "must not be empty"),
            (
                "prompt_profile = \"tiny\"",
                "expected \"auto\", \"compact\" or \"full\"",
            ),
        ] {
            match parse(&format!("model = \"m\"\n[context]\n{bad}\n")) {
                Err(ConfigError::Parse { line, message, .. }) => {
                    assert_eq!(line, Some(3), "{bad}");
                    assert!(message.contains(expected), "{bad}: {message}");
                }
                other => panic!("expected a parse error for {bad}, got {other:?}"),
            }
        }
        assert!(parse("[context]\nthreshold = 0.5\n").is_err());
    }

    #[test]
    fn localisation_and_mode_keys_are_checked() {
        let section = parse(
            "[context]\nlocalize = \"On\"\nlocalize_budget_tokens = 800\nmode = \"guided\"\n",
        )
        .unwrap();
        assert_eq!(section.checked.localize, Some(LocalizeSetting::On));
        assert_eq!(section.checked.localize_budget_tokens, Some(800));
        assert_eq!(section.checked.mode, Some(FlowSetting::Guided));
        for (bad, expected) in [
            ("localize = \"yes\"", "expected \"auto\", \"on\" or \"off\""),
            ("localize_budget_tokens = 10", "from 100 to 32000"),
            (
                "mode = \"fast\"",
                "expected \"auto\", \"guided\" or \"agent\"",
            ),
        ] {
            match parse(&format!("[context]\n{bad}\n")) {
                Err(ConfigError::Parse { line, message, .. }) => {
                    assert_eq!(line, Some(2), "{bad}");
                    assert!(message.contains(expected), "{bad}: {message}");
                }
                other => panic!("expected a parse error for {bad}, got {other:?}"),
            }
        }
        let defaults = ContextSettings::default();
        assert_eq!(defaults.localize, LocalizeSetting::Auto);
        assert_eq!(defaults.mode, FlowSetting::Auto);
        assert_eq!(
            defaults.localize_budget_tokens,
            DEFAULT_LOCALIZE_BUDGET_TOKENS
        );
    }

    #[test]
    fn the_project_file_wins_key_by_key() {
        let (_dir, config) = crate::test_support::load_layered(
            "[context]\ncompact_threshold = 0.7\nrecent_turns = 6\n",
            "[context]\nrecent_turns = 2\n",
        );
        let settings = config.context_settings();
        assert_eq!(settings.compact_threshold, 0.7);
        assert_eq!(settings.recent_turns, 2);
        assert_eq!(settings.compaction_model, None);
        assert_eq!(
            settings.instructions_max_bytes,
            DEFAULT_INSTRUCTIONS_MAX_BYTES
        );
        let shown = config.render_show();
        assert!(shown.contains("[context]"), "{shown}");
        let defaults = crate::load(&ConfigSources::default(), &CliOverrides::default()).unwrap();
        assert_eq!(defaults.context_settings(), ContextSettings::default());
    }
}
