//! `[profiles.NAME]` as written in a file (or a whole `agents/NAME.toml` file), and checking
//! its values.
//!
//! ```toml
//! [profiles.deep]
//! extends = "base"               # another profile, merged under this one
//! provider = "anthropic"
//! model = "claude-sonnet-4-5"
//! thinking = "high"              # off, low, medium, high, or a token budget
//! temperature = 0.2
//! top_p = 0.9
//! max_output_tokens = 4096
//! cache = "1h"                   # off, 5m, 1h
//! system_prompt = "Answer in French."
//! system_prompt_mode = "append"  # or "replace"
//! tools = ["read_file", "search"] # offer only these tools (MCP tools by their names too)
//! disabled_tools = ["run_command"] # never offer these
//!
//! [profiles.deep.body]           # merged into the request body
//! seed = 7
//! ```

use std::ops::RangeInclusive;
use std::path::Path;

use hone_protocol::{PROMPT_CACHE_NAMES, PromptCache, SystemPromptMode, THINKING_LEVELS, Thinking};
use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::file::error_at;
use crate::preset::ToolMode;
use crate::suggest::closest;

/// The largest thinking budget and output limit accepted, in tokens.
pub const MAX_PROFILE_TOKENS: u32 = 1_000_000;

/// The temperatures a profile accepts.
pub const TEMPERATURE_RANGE: RangeInclusive<f64> = 0.0..=2.0;

/// Request-body keys hone writes itself, which `body` may not replace.
const RESERVED_BODY_KEYS: [&str; 5] = ["model", "messages", "stream", "tools", "contents"];

/// `[profiles.NAME]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProfileSection {
    pub(crate) extends: Option<Spanned<String>>,
    pub(crate) provider: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) tool_mode: Option<ToolMode>,
    pub(crate) context_window: Option<u32>,
    pub(crate) approval: Option<Spanned<String>>,
    thinking: Option<Spanned<toml::Value>>,
    temperature: Option<Spanned<toml::Value>>,
    top_p: Option<Spanned<toml::Value>>,
    max_output_tokens: Option<Spanned<i64>>,
    cache: Option<Spanned<String>>,
    pub(crate) body: Option<Spanned<toml::Table>>,
    pub(crate) system_prompt: Option<String>,
    system_prompt_mode: Option<Spanned<String>>,
    pub(crate) tools: Option<Vec<String>>,
    pub(crate) disabled_tools: Option<Vec<String>>,
    /// The values above, checked; filled in by [`validate`].
    #[serde(skip)]
    pub(crate) checked: CheckedProfile,
}

/// The checked request settings of one `[profiles.NAME]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct CheckedProfile {
    pub(crate) thinking: Option<Thinking>,
    pub(crate) temperature: Option<f32>,
    pub(crate) top_p: Option<f32>,
    pub(crate) max_output_tokens: Option<u32>,
    pub(crate) cache: Option<PromptCache>,
    pub(crate) body: serde_json::Map<String, serde_json::Value>,
    pub(crate) system_prompt_mode: Option<SystemPromptMode>,
    /// Where `extends` is written: the file, line and column, for errors found later.
    pub(crate) extends_at: Option<(std::path::PathBuf, usize, usize)>,
}

/// `. Did you mean `high`?` when `value` is close to one of `names`.
fn hint<'a>(value: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    closest(value, names)
        .map(|name| format!(". Did you mean `{name}`?"))
        .unwrap_or_default()
}

/// A number written as a TOML integer or float.
fn number(value: &toml::Value) -> Option<f64> {
    match value {
        toml::Value::Float(number) => Some(*number),
        toml::Value::Integer(number) => Some(*number as f64),
        _ => None,
    }
}

/// Checks every profile of a file, the contents `text` of `path`, recording the checked values.
/// Errors name the file, line and column of the value.
pub(crate) fn validate<'a>(
    path: &Path,
    text: &str,
    profiles: impl IntoIterator<Item = (&'a String, &'a mut ProfileSection)>,
) -> Result<(), ConfigError> {
    for (name, section) in profiles {
        validate_one(path, text, name, section)?;
    }
    Ok(())
}

fn validate_one(
    path: &Path,
    text: &str,
    name: &str,
    section: &mut ProfileSection,
) -> Result<(), ConfigError> {
    let error =
        |span: std::ops::Range<usize>, message: String| error_at(path, text, span.start, message);
    let key = |field: &str| format!("profiles.{name}.{field}");
    let mut checked = CheckedProfile::default();
    if let Some(extends) = &section.extends {
        if extends.get_ref().trim().is_empty() || extends.get_ref() == name {
            let message = format!(
                "invalid `{}` {:?}: expected the name of another profile",
                key("extends"),
                extends.get_ref()
            );
            return Err(error(extends.span(), message));
        }
        let (line, column) = crate::file::line_and_column(text, extends.span().start);
        checked.extends_at = Some((path.to_path_buf(), line, column));
    }
    if let Some(value) = &section.thinking {
        let thinking = match value.get_ref() {
            toml::Value::String(level) => Thinking::parse(level).ok_or_else(|| {
                format!(
                    "invalid `{}` {level:?}: expected one of {} or a token budget{}",
                    key("thinking"),
                    THINKING_LEVELS.join(", "),
                    hint(level, THINKING_LEVELS)
                )
            }),
            toml::Value::Integer(tokens) => u32::try_from(*tokens)
                .ok()
                .filter(|tokens| *tokens <= MAX_PROFILE_TOKENS)
                .map(Thinking::Budget)
                .ok_or_else(|| {
                    format!(
                        "invalid `{}` {tokens}: a token budget goes from 0 to {MAX_PROFILE_TOKENS}",
                        key("thinking")
                    )
                }),
            _ => Err(format!(
                "invalid `{}`: expected one of {} or a token budget",
                key("thinking"),
                THINKING_LEVELS.join(", ")
            )),
        };
        checked.thinking = Some(thinking.map_err(|message| error(value.span(), message))?);
    }
    let ranged = |value: &Spanned<toml::Value>, field: &str, range: RangeInclusive<f64>| {
        number(value.get_ref())
            .filter(|number| range.contains(number))
            .map(|number| number as f32)
            .ok_or_else(|| {
                let message = format!(
                    "invalid `{}` {}: expected a number from {} to {}",
                    key(field),
                    value.get_ref(),
                    range.start(),
                    range.end()
                );
                error(value.span(), message)
            })
    };
    if let Some(value) = &section.temperature {
        checked.temperature = Some(ranged(value, "temperature", TEMPERATURE_RANGE)?);
    }
    if let Some(value) = &section.top_p {
        checked.top_p = Some(ranged(value, "top_p", 0.0..=1.0)?);
    }
    if let Some(value) = &section.max_output_tokens {
        checked.max_output_tokens = Some(crate::file::checked_range(
            (path, text),
            value,
            &(1..=MAX_PROFILE_TOKENS),
            &key("max_output_tokens"),
            "a number of tokens",
        )?);
    }
    if let Some(value) = &section.cache {
        let cache = PromptCache::parse(value.get_ref()).ok_or_else(|| {
            let message = format!(
                "invalid `{}` {:?}: expected one of {}{}",
                key("cache"),
                value.get_ref(),
                PROMPT_CACHE_NAMES.join(", "),
                hint(value.get_ref(), PROMPT_CACHE_NAMES)
            );
            error(value.span(), message)
        })?;
        checked.cache = Some(cache);
    }
    if let Some(body) = &section.body {
        if let Some(reserved) = RESERVED_BODY_KEYS
            .iter()
            .find(|reserved| body.get_ref().contains_key(**reserved))
        {
            let message = format!(
                "`{}` may not set `{reserved}`: hone writes it itself",
                key("body")
            );
            return Err(error(body.span(), message));
        }
        let json = serde_json::to_value(body.get_ref()).map_err(|problem| {
            error(body.span(), format!("invalid `{}`: {problem}", key("body")))
        })?;
        if let serde_json::Value::Object(map) = json {
            checked.body = map;
        }
    }
    if let Some(value) = &section.system_prompt_mode {
        let modes = [SystemPromptMode::Append, SystemPromptMode::Replace];
        let mode = modes
            .into_iter()
            .find(|mode| mode.as_str() == value.get_ref().trim())
            .ok_or_else(|| {
                let message = format!(
                    "invalid `{}` {:?}: expected append or replace{}",
                    key("system_prompt_mode"),
                    value.get_ref(),
                    hint(value.get_ref(), modes.map(SystemPromptMode::as_str))
                );
                error(value.span(), message)
            })?;
        checked.system_prompt_mode = Some(mode);
    }
    section.checked = checked;
    Ok(())
}

impl ProfileSection {
    /// Drops what an untrusted project's profile may not set: the provider, the request body
    /// and the system prompt. Each dropped setting is recorded in `ignored`.
    pub(crate) fn restrict_untrusted(&mut self, name: &str, ignored: &mut Vec<String>) {
        if let Some(provider) = self.provider.take() {
            ignored.push(format!(
                "[profiles.{name}] provider = {provider:?} (chooses the provider)"
            ));
        }
        if self.body.take().is_some() {
            self.checked.body.clear();
            ignored.push(format!(
                "[profiles.{name}.body] (changes the requests sent)"
            ));
        }
        if self.system_prompt.take().is_some() {
            ignored.push(format!(
                "[profiles.{name}] system_prompt (changes the system prompt)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::{FileRole, parse};

    fn error_of(profile: &str) -> (Option<usize>, String) {
        let text = format!("[profiles.p]\n{profile}\n");
        match parse(Path::new("/c.toml"), &text, FileRole::User) {
            Err(ConfigError::Parse { line, message, .. }) => (line, message),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn the_request_settings_are_checked_and_recorded() {
        let text = "[profiles.p]\nthinking = \"high\"\ntemperature = 1\ntop_p = 0.5\n\
                    max_output_tokens = 900\ncache = \"1h\"\nsystem_prompt = \"Be brief.\"\n\
                    system_prompt_mode = \"replace\"\n[profiles.p.body]\nseed = 7\n\
                    options = { num_gpu = 1 }\n[profiles.q]\nthinking = 2048\n";
        let file = parse(Path::new("/c.toml"), text, FileRole::User).unwrap();
        let checked = &file.profiles["p"].checked;
        assert_eq!(checked.thinking, Some(Thinking::High));
        assert_eq!(checked.temperature, Some(1.0));
        assert_eq!(checked.top_p, Some(0.5));
        assert_eq!(checked.max_output_tokens, Some(900));
        assert_eq!(checked.cache, Some(PromptCache::OneHour));
        assert_eq!(checked.system_prompt_mode, Some(SystemPromptMode::Replace));
        assert_eq!(checked.body["options"]["num_gpu"], 1);
        assert_eq!(
            file.profiles["q"].checked.thinking,
            Some(Thinking::Budget(2048))
        );
    }

    #[test]
    fn bad_values_name_their_line_and_a_close_name() {
        let (line, message) = error_of("model = \"m\"\nthinking = \"hgh\"");
        assert_eq!(line, Some(3));
        assert!(message.contains("profiles.p.thinking"), "{message}");
        assert!(message.contains("Did you mean `high`?"), "{message}");
        let (_, message) = error_of("cache = \"1hr\"");
        assert!(message.contains("Did you mean `1h`?"), "{message}");
        let (_, message) = error_of("system_prompt_mode = \"apend\"");
        assert!(message.contains("Did you mean `append`?"), "{message}");
        for bad in [
            "temperature = 3.5",
            "top_p = -0.1",
            "max_output_tokens = 0",
            "thinking = -5",
            "thinking = true",
            "extends = \"p\"",
            "body = { model = \"other\" }",
        ] {
            let (line, _) = error_of(bad);
            assert_eq!(line, Some(2), "{bad}");
        }
    }

    #[test]
    fn unknown_profile_keys_are_refused() {
        let (line, message) = error_of("thinkng = \"high\"");
        assert_eq!(line, Some(2));
        assert!(message.contains("thinkng"), "{message}");
    }
}
