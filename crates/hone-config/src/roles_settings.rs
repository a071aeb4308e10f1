//! `[roles]`: which profile or model plays each role.
//!
//! ```toml
//! [roles]
//! chat = "deep"                                       # a profile: the session's requests
//! coder = "qwen2.5-coder-7b"                          # a model: the guided change and create steps
//! planner = { model = "gpt-4.1-mini", provider = "openai" } # classifies unclear requests
//! compaction = { profile = "cheap" }                  # compaction summaries (alias: summary)
//! checker = "gpt-4.1-mini"                            # reviews check results
//! completion = "qwen2.5-coder-0.5b"                   # `hone lsp` code completion
//! ```
//!
//! A role is a profile name (`[profiles.NAME]` or `agents/NAME.toml`), a model name of the
//! session's provider, a table `{ profile = "NAME" }`, or a table with `model` and the
//! `provider` instance serving it. A name is a profile when such a profile is defined, else a
//! model. A profile brings its provider, model and request settings (thinking, temperature,
//! …); what it leaves unset is the session's. An unset role uses the session's model;
//! `compaction` (or its old name `summary`) wins over `[context] compaction_model`. Each role
//! layers on its own: the project file's wins.
//!
//! `chat` is the session itself: when no `profile` (`HONE_PROFILE`, `--profile`) is selected,
//! a chat profile is selected in its place, in the file that names it; a chat model is the
//! session's model there unless that file sets `model`. `completion` is the exception among
//! the others: unset, `hone lsp` completes with the embedded small catalog model, not the
//! session's model.

use std::path::Path;

use hone_protocol::GenerationSettings;
use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::file::line_and_column;
use crate::load::Config;
use crate::profiles::ProfileLayers;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};
use crate::suggest::closest;

/// The roles, in the order `hone config show` lists them.
pub const ROLE_NAMES: [&str; 8] = [
    "chat",
    "completion",
    "compaction",
    "refactor",
    "planner",
    "coder",
    "checker",
    "explore",
];

/// The number of roles.
const ROLES: usize = ROLE_NAMES.len();

/// The model and settings of one role.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleSetting {
    /// The model name; `None`: the model of the role's provider (the session's model when
    /// the provider is the session's).
    pub model: Option<String>,
    /// The provider instance serving it; `None`: the session's provider.
    pub provider: Option<String>,
    /// The profile the role names, if it names one.
    pub profile: Option<String>,
    /// The profile's request settings (none for a bare model).
    pub generation: GenerationSettings,
}

/// The `[roles]` in effect; `None` is the session's model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RolesSettings {
    /// The session's own requests (applied through the profile selection, see the module docs).
    pub chat: Option<RoleSetting>,
    /// Completes code in the editor (`hone lsp`); `None`: the embedded small model.
    pub completion: Option<RoleSetting>,
    /// Writes compaction summaries.
    pub compaction: Option<RoleSetting>,
    /// Quick refactors in the editor (`hone lsp`).
    pub refactor: Option<RoleSetting>,
    /// Classifies requests the rules are unsure about.
    pub planner: Option<RoleSetting>,
    /// Writes code in the guided flow.
    pub coder: Option<RoleSetting>,
    /// Reviews check results.
    pub checker: Option<RoleSetting>,
    /// Explores the code base for context.
    pub explore: Option<RoleSetting>,
}

/// What a role's value names, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RoleValue {
    /// A bare name: a profile when one is defined with it, else a model.
    Name(String),
    /// `{ profile = "NAME" }`.
    Profile(String),
    /// `{ model = "NAME", provider = "INSTANCE" }`.
    Model {
        model: String,
        provider: Option<String>,
    },
}

/// `[roles]` as written in a file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RolesSection {
    chat: Option<Spanned<toml::Value>>,
    completion: Option<Spanned<toml::Value>>,
    compaction: Option<Spanned<toml::Value>>,
    refactor: Option<Spanned<toml::Value>>,
    planner: Option<Spanned<toml::Value>>,
    coder: Option<Spanned<toml::Value>>,
    checker: Option<Spanned<toml::Value>>,
    explore: Option<Spanned<toml::Value>>,
    /// The old name of `compaction`.
    summary: Option<Spanned<toml::Value>>,
    /// The values above, checked, in [`ROLE_NAMES`] order; filled in by [`validate`].
    #[serde(skip)]
    checked: [Option<RoleValue>; ROLES],
}

/// Checks `section`, from the contents `text` of `path`: no empty names.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    section: &mut RolesSection,
) -> Result<(), ConfigError> {
    let compaction = section.compaction.as_ref().or(section.summary.as_ref());
    let values = [
        &section.chat,
        &section.completion,
        &compaction.cloned(),
        &section.refactor,
        &section.planner,
        &section.coder,
        &section.checker,
        &section.explore,
    ];
    for (slot, (name, value)) in ROLE_NAMES.iter().zip(values).enumerate() {
        let Some(value) = value else {
            continue;
        };
        let Some(role) = read_role(value.get_ref()) else {
            let (line, column) = line_and_column(text, value.span().start);
            return Err(ConfigError::Parse {
                path: path.to_path_buf(),
                line: Some(line),
                column: Some(column),
                message: format!(
                    "invalid `roles.{name}`: expected a profile or model name, \
                     {{ profile = \"NAME\" }}, or {{ model = \"NAME\", provider = \"INSTANCE\" }}; \
                     leave the role out to use the session's model"
                ),
            });
        };
        section.checked[slot] = Some(role);
    }
    Ok(())
}

/// What a role's value names; `None` when it is not a non-empty name, a table of exactly
/// `profile`, or a table of `model` (and `provider`) names.
fn read_role(value: &toml::Value) -> Option<RoleValue> {
    let name = |value: &toml::Value| {
        value
            .as_str()
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string)
    };
    match value {
        toml::Value::String(_) => Some(RoleValue::Name(name(value)?)),
        toml::Value::Table(table) if table.contains_key("profile") => {
            (table.len() == 1).then_some(())?;
            Some(RoleValue::Profile(name(table.get("profile")?)?))
        }
        toml::Value::Table(table) => {
            if table.keys().any(|key| key != "model" && key != "provider") {
                return None;
            }
            let model = name(table.get("model")?)?;
            let provider = match table.get("provider") {
                Some(provider) => Some(name(provider)?),
                None => None,
            };
            Some(RoleValue::Model { model, provider })
        }
        _ => None,
    }
}

/// `[roles]` merged over the files.
#[derive(Debug, Clone, Default)]
pub(crate) struct RolesLayers {
    roles: [Option<Sourced<RoleValue>>; ROLES],
}

impl RolesSection {
    /// The `chat` role this file sets, if any.
    pub(crate) fn chat(&self) -> Option<&RoleValue> {
        self.checked[0].as_ref()
    }

    /// Drops the roles an untrusted project may not assign: `chat` (like `profile`), and those
    /// naming a provider, a model file, or a profile of `below` (the configuration without the
    /// project file) that names a provider. A role with another model of the session's
    /// provider stays.
    pub(crate) fn restrict_untrusted(&mut self, below: &Config, ignored: &mut Vec<String>) {
        if let Some(chat) = self.checked[0].take() {
            let shown = match chat {
                RoleValue::Name(name) | RoleValue::Profile(name) => format!("{name:?}"),
                RoleValue::Model { model, .. } => format!("{model:?}"),
            };
            ignored.push(format!(
                "[roles] chat = {shown} (chooses the session's profile or model)"
            ));
        }
        for (name, slot) in ROLE_NAMES.iter().zip(&mut self.checked) {
            if let Some(role) = slot.take_if(|role| match role {
                RoleValue::Model { model, provider } => {
                    provider.is_some() || crate::untrusted::is_model_file(model)
                }
                RoleValue::Name(named) | RoleValue::Profile(named) => {
                    crate::untrusted::is_model_file(named)
                        || below
                            .profile(named)
                            .is_some_and(|profile| profile.provider.is_some())
                }
            }) {
                let shown = match role {
                    RoleValue::Model { model, provider } => format!(
                        "{model:?}{}",
                        provider
                            .map(|provider| format!(" on {provider:?}"))
                            .unwrap_or_default()
                    ),
                    RoleValue::Name(named) | RoleValue::Profile(named) => format!("{named:?}"),
                };
                ignored.push(format!(
                    "[roles] {name} = {shown} (chooses the provider or a model file)"
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

    /// Checks that every `{ profile = "NAME" }` names a defined profile.
    pub(crate) fn check(&self, profiles: &ProfileLayers) -> Result<(), ConfigError> {
        for (name, role) in ROLE_NAMES.iter().zip(&self.roles) {
            if let Some(Sourced {
                value: RoleValue::Profile(profile),
                source,
            }) = role
                && !profiles.contains(profile)
            {
                return Err(ConfigError::UnknownProfile {
                    name: profile.clone(),
                    origin: Source::Profile {
                        name: format!("roles.{name}"),
                        defined_in: Box::new(source.clone()),
                    },
                    suggestion: closest(profile, profiles.names()),
                    known: profiles.names().map(str::to_string).collect(),
                });
            }
        }
        Ok(())
    }
}

/// The profile a role names, when it names a defined one.
pub(crate) fn role_profile<'a>(role: &'a RoleValue, profiles: &ProfileLayers) -> Option<&'a str> {
    match role {
        RoleValue::Name(name) | RoleValue::Profile(name) if profiles.contains(name) => {
            Some(name.as_str())
        }
        _ => None,
    }
}

impl Config {
    /// The `[roles]` settings, with the profiles they name resolved.
    pub fn roles(&self) -> RolesSettings {
        let [
            chat,
            completion,
            compaction,
            refactor,
            planner,
            coder,
            checker,
            explore,
        ] = self
            .roles
            .roles
            .clone()
            .map(|role| role.map(|role| self.role_setting(&role.value)));
        RolesSettings {
            chat,
            completion,
            compaction,
            refactor,
            planner,
            coder,
            checker,
            explore,
        }
    }

    fn role_setting(&self, role: &RoleValue) -> RoleSetting {
        if let Some(name) = role_profile(role, &self.profiles)
            && let Some(profile) = self.profile(name)
        {
            return RoleSetting {
                model: profile.model,
                provider: profile.provider,
                profile: Some(name.to_string()),
                generation: profile.generation,
            };
        }
        let (model, provider) = match role {
            RoleValue::Name(model) | RoleValue::Profile(model) => (model.clone(), None),
            RoleValue::Model { model, provider } => (model.clone(), provider.clone()),
        };
        RoleSetting {
            model: Some(model),
            provider,
            profile: None,
            generation: GenerationSettings::default(),
        }
    }

    /// The `[roles]` values as `hone config show` lists them (the set ones).
    pub(crate) fn show_roles(&self, values: &mut Vec<ShownValue>) {
        for (name, role) in ROLE_NAMES.iter().zip(&self.roles.roles) {
            let Some(role) = role else {
                continue;
            };
            let value = match &role.value {
                RoleValue::Name(named) if !self.profiles.contains(named) => format!("{named:?}"),
                RoleValue::Name(profile) | RoleValue::Profile(profile) => {
                    format!("{{ profile = {profile:?} }}")
                }
                RoleValue::Model {
                    model,
                    provider: Some(provider),
                } => format!("{{ model = {model:?}, provider = {provider:?} }}"),
                RoleValue::Model {
                    model,
                    provider: None,
                } => format!("{{ model = {model:?} }}"),
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

    /// The slot of role `name` in [`ROLE_NAMES`].
    fn slot(name: &str) -> usize {
        ROLE_NAMES.iter().position(|role| *role == name).unwrap()
    }

    #[test]
    fn roles_are_names_or_tables() {
        let section = parse(
            "[roles]\ncoder = \"big\"\nplanner = { model = \"tiny\", provider = \"other\" }\n\
             explore = { profile = \"fast\" }\n",
        )
        .unwrap();
        assert_eq!(
            section.checked[slot("coder")],
            Some(RoleValue::Name("big".to_string()))
        );
        assert_eq!(
            section.checked[slot("planner")],
            Some(RoleValue::Model {
                model: "tiny".to_string(),
                provider: Some("other".to_string())
            })
        );
        assert_eq!(
            section.checked[slot("explore")],
            Some(RoleValue::Profile("fast".to_string()))
        );
        assert_eq!(section.checked[slot("compaction")], None);
        let old = parse("[roles]\nsummary = \"s\"\n").unwrap();
        assert_eq!(
            old.checked[slot("compaction")],
            Some(RoleValue::Name("s".to_string()))
        );
        match parse("[roles]\nsummary = \" \"\n") {
            Err(ConfigError::Parse { line, message, .. }) => {
                assert_eq!(line, Some(2));
                assert!(message.contains("roles.compaction"), "{message}");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
        for bad in [
            "3",
            "{ model = \"m\", extra = 1 }",
            "{ provider = \"p\" }",
            "{ profile = \"p\", model = \"m\" }",
        ] {
            assert!(
                parse(&format!("[roles]\ncoder = {bad}\n")).is_err(),
                "{bad}"
            );
        }
        let message = parse("[roles]\nreviewer = \"m\"\n")
            .unwrap_err()
            .to_string();
        assert!(message.contains("reviewer"), "{message}");
    }

    #[test]
    fn the_project_file_wins_role_by_role() {
        let (_dir, config) = crate::test_support::load_layered(
            "[roles]\ncoder = \"a\"\nsummary = \"s\"\n",
            "[roles]\ncoder = \"b\"\n",
        );
        let roles = config.roles();
        assert_eq!(roles.coder.unwrap().model.as_deref(), Some("b"));
        assert_eq!(roles.compaction.unwrap().model.as_deref(), Some("s"));
        assert_eq!(roles.planner, None);
        assert_eq!(roles.completion, None);
        let shown = config.render_show();
        assert!(shown.contains("[roles]"), "{shown}");
        let none = crate::load(&ConfigSources::default(), &CliOverrides::default()).unwrap();
        assert_eq!(none.roles(), RolesSettings::default());
    }

    #[test]
    fn a_role_naming_a_profile_takes_its_model_and_settings() {
        let (_dir, config) = crate::test_support::load_layered(
            "[profiles.cheap]\nprovider = \"ollama\"\nmodel = \"qwen3\"\nthinking = \"off\"\n\
             [profiles.deep]\nthinking = 4096\n\
             [roles]\ncompaction = \"cheap\"\nplanner = { profile = \"deep\" }\ncoder = \"plain\"\n",
            "",
        );
        let roles = config.roles();
        let compaction = roles.compaction.unwrap();
        assert_eq!(compaction.model.as_deref(), Some("qwen3"));
        assert_eq!(compaction.provider.as_deref(), Some("ollama"));
        assert_eq!(compaction.profile.as_deref(), Some("cheap"));
        assert_eq!(
            compaction.generation.thinking,
            Some(hone_protocol::Thinking::Off)
        );
        let planner = roles.planner.unwrap();
        assert_eq!(planner.model, None);
        assert_eq!(
            planner.generation.thinking,
            Some(hone_protocol::Thinking::Budget(4096))
        );
        let coder = roles.coder.unwrap();
        assert_eq!(coder.profile, None);
        assert!(coder.generation.is_empty());
        let shown = config.render_show();
        assert!(
            shown.contains("compaction = { profile = \"cheap\" }"),
            "{shown}"
        );
    }

    #[test]
    fn a_role_naming_an_undefined_profile_table_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("config.toml");
        std::fs::write(
            &user,
            "[profiles.fast]\nmodel = \"m\"\n[roles]\nplanner = { profile = \"fsat\" }\n",
        )
        .unwrap();
        let sources = ConfigSources {
            user_file: Some(user),
            ..ConfigSources::default()
        };
        let message = crate::load(&sources, &CliOverrides::default())
            .unwrap_err()
            .to_string();
        assert!(message.contains("fsat"), "{message}");
        assert!(message.contains("Did you mean `fast`?"), "{message}");
    }

    #[test]
    fn the_chat_role_selects_the_session_profile_when_none_is_chosen() {
        let user = "[profiles.deep]\nmodel = \"big\"\nthinking = \"high\"\n\
                    [profiles.fast]\nmodel = \"small\"\n[roles]\nchat = \"deep\"\n";
        let (_dir, config) = crate::test_support::load_layered(user, "");
        assert_eq!(config.profile_name(), Some("deep"));
        assert_eq!(
            config.generation().thinking,
            Some(hone_protocol::Thinking::High)
        );
        assert_eq!(config.provider().unwrap().model, "big");
        let (_dir, config) =
            crate::test_support::load_layered(&format!("profile = \"fast\"\n{user}"), "");
        assert_eq!(config.profile_name(), Some("fast"));
        let (_dir, config) = crate::test_support::load_layered(
            "provider = \"ollama\"\n[roles]\nchat = \"llama3.2\"\n",
            "",
        );
        assert_eq!(config.profile_name(), None);
        assert_eq!(config.provider().unwrap().model, "llama3.2");
    }
}
