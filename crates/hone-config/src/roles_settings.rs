//! `[roles]`: which model plays each role of a turn.
//!
//! ```toml
//! [roles]
//! coder = "qwen2.5-coder-7b"                          # the guided change and create steps
//! planner = { model = "gpt-4.1-mini", provider = "openai" } # classifies unclear requests
//! summary = "gpt-4.1-mini"                            # compaction summaries
//! checker = "gpt-4.1-mini"                            # reviews check results
//! completion = "qwen2.5-coder-0.5b"                   # `hone lsp` code completion
//! ```
//!
//! A role is a model name of the session's provider, or a table with `model` and the
//! `provider` instance serving it. An unset role uses the session's model; `summary` wins
//! over `[context] compaction_model`. Each role layers on its own: the project file's wins.
//! `completion` is the exception: unset, `hone lsp` completes with the embedded small
//! catalog model, not the session's model.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::file::line_and_column;
use crate::load::Config;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};

/// The roles, in the order `hone config show` lists them.
pub const ROLE_NAMES: [&str; 5] = ["coder", "planner", "summary", "checker", "completion"];

/// The model of one role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleSetting {
    /// The model name.
    pub model: String,
    /// The provider instance serving it; `None`: the session's provider.
    pub provider: Option<String>,
}

/// The `[roles]` in effect; `None` is the session's model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RolesSettings {
    /// Writes code in the guided flow.
    pub coder: Option<RoleSetting>,
    /// Classifies requests the rules are unsure about.
    pub planner: Option<RoleSetting>,
    /// Writes compaction summaries.
    pub summary: Option<RoleSetting>,
    /// Reviews check results.
    pub checker: Option<RoleSetting>,
    /// Completes code in the editor (`hone lsp`); `None`: the embedded small model.
    pub completion: Option<RoleSetting>,
}

/// `[roles]` as written in a file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RolesSection {
    coder: Option<Spanned<toml::Value>>,
    planner: Option<Spanned<toml::Value>>,
    summary: Option<Spanned<toml::Value>>,
    checker: Option<Spanned<toml::Value>>,
    completion: Option<Spanned<toml::Value>>,
    /// The values above, checked, in [`ROLE_NAMES`] order; filled in by [`validate`].
    #[serde(skip)]
    checked: [Option<RoleSetting>; 5],
}

/// Checks `section`, from the contents `text` of `path`: no empty names.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    section: &mut RolesSection,
) -> Result<(), ConfigError> {
    let values = [
        &section.coder,
        &section.planner,
        &section.summary,
        &section.checker,
        &section.completion,
    ];
    for (slot, (name, value)) in ROLE_NAMES.iter().zip(values).enumerate() {
        let Some(value) = value else {
            continue;
        };
        let role = read_role(value.get_ref());
        let Some((model, provider)) = role else {
            let (line, column) = line_and_column(text, value.span().start);
            return Err(ConfigError::Parse {
                path: path.to_path_buf(),
                line: Some(line),
                column: Some(column),
                message: format!(
                    "invalid `roles.{name}`: expected a model name, or {{ model = \"NAME\", \
                     provider = \"INSTANCE\" }}; leave the role out to use the session's model"
                ),
            });
        };
        section.checked[slot] = Some(RoleSetting { model, provider });
    }
    Ok(())
}

/// The model and provider of a role's value; `None` when it is not a non-empty name or a
/// table of exactly `model` (and `provider`) names.
fn read_role(value: &toml::Value) -> Option<(String, Option<String>)> {
    let name = |value: &toml::Value| {
        value
            .as_str()
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string)
    };
    match value {
        toml::Value::String(_) => Some((name(value)?, None)),
        toml::Value::Table(table) => {
            if table.keys().any(|key| key != "model" && key != "provider") {
                return None;
            }
            let model = name(table.get("model")?)?;
            let provider = match table.get("provider") {
                Some(provider) => Some(name(provider)?),
                None => None,
            };
            Some((model, provider))
        }
        _ => None,
    }
}

/// `[roles]` merged over the files.
#[derive(Debug, Clone, Default)]
pub(crate) struct RolesLayers {
    roles: [Option<Sourced<RoleSetting>>; 5],
}

impl RolesSection {
    /// Drops the roles an untrusted project may not assign: those naming a provider or a
    /// model file (a role with another model of the session's provider stays).
    pub(crate) fn restrict_untrusted(&mut self, ignored: &mut Vec<String>) {
        for (name, slot) in ROLE_NAMES.iter().zip(&mut self.checked) {
            if let Some(role) = slot.take_if(|role| {
                role.provider.is_some() || crate::untrusted::is_model_file(&role.model)
            }) {
                ignored.push(format!(
                    "[roles] {name} = {:?}{} (chooses the provider or a model file)",
                    role.model,
                    role.provider
                        .map(|provider| format!(" on {provider:?}"))
                        .unwrap_or_default()
                ));
            }
        }
    }
}

impl RolesLayers {
    /// Layers `section`, read from `source`, over the files merged so far.
    pub(crate) fn merge(&mut self, section: &RolesSection, source: &Source) {
        for (slot, checked) in self.roles.iter_mut().zip(&section.checked) {
            if let Some(role) = checked {
                *slot = Some(Sourced::new(role.clone(), source.clone()));
            }
        }
    }
}

impl Config {
    /// The `[roles]` settings.
    pub fn roles(&self) -> RolesSettings {
        let [coder, planner, summary, checker, completion] = self
            .roles
            .roles
            .clone()
            .map(|role| role.map(|role| role.value));
        RolesSettings {
            coder,
            planner,
            summary,
            checker,
            completion,
        }
    }

    /// The `[roles]` values as `hone config show` lists them (the set ones).
    pub(crate) fn show_roles(&self, values: &mut Vec<ShownValue>) {
        for (name, role) in ROLE_NAMES.iter().zip(&self.roles.roles) {
            let Some(role) = role else {
                continue;
            };
            let value = match &role.value.provider {
                Some(provider) => format!(
                    "{{ model = {:?}, provider = {provider:?} }}",
                    role.value.model
                ),
                None => format!("{:?}", role.value.model),
            };
            values.push(ShownValue {
                section: "roles".to_string(),
                key: (*name).to_string(),
                value,
                source: Some(role.source.clone()),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CliOverrides, ConfigSources};

    fn parse(text: &str) -> Result<RolesSection, ConfigError> {
        let file = crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        )?;
        Ok(file.roles)
    }

    #[test]
    fn roles_are_names_or_tables() {
        let section = parse(
            "[roles]\ncoder = \"big\"\nplanner = { model = \"tiny\", provider = \"other\" }\n",
        )
        .unwrap();
        assert_eq!(
            section.checked[0],
            Some(RoleSetting {
                model: "big".to_string(),
                provider: None
            })
        );
        assert_eq!(
            section.checked[1].as_ref().unwrap().provider.as_deref(),
            Some("other")
        );
        assert_eq!(section.checked[2], None);
        let completion = parse("[roles]\ncompletion = \"qwen2.5-coder-0.5b\"\n").unwrap();
        assert_eq!(
            completion.checked[4]
                .as_ref()
                .map(|role| role.model.as_str()),
            Some("qwen2.5-coder-0.5b")
        );
        match parse("[roles]\nsummary = \" \"\n") {
            Err(ConfigError::Parse { line, message, .. }) => {
                assert_eq!(line, Some(2));
                assert!(message.contains("roles.summary"), "{message}");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
        for bad in ["3", "{ model = \"m\", extra = 1 }", "{ provider = \"p\" }"] {
            assert!(
                parse(&format!("[roles]\ncoder = {bad}\n")).is_err(),
                "{bad}"
            );
        }
        assert!(parse("[roles]\nreviewer = \"m\"\n").is_err());
    }

    #[test]
    fn the_project_file_wins_role_by_role() {
        let (_dir, config) = crate::test_support::load_layered(
            "[roles]\ncoder = \"a\"\nsummary = \"s\"\n",
            "[roles]\ncoder = \"b\"\n",
        );
        let roles = config.roles();
        assert_eq!(roles.coder.unwrap().model, "b");
        assert_eq!(roles.summary.unwrap().model, "s");
        assert_eq!(roles.planner, None);
        assert_eq!(roles.completion, None);
        let shown = config.render_show();
        assert!(shown.contains("[roles]"), "{shown}");
        let none = crate::load(&ConfigSources::default(), &CliOverrides::default()).unwrap();
        assert_eq!(none.roles(), RolesSettings::default());
    }
}
