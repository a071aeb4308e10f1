//! What every session derives from the configuration before it starts: the policy, the
//! secrets to redact, the prompt profile, localisation and the guided flow, the checks
//! after edits, and the models of each role.

use hone_config::{
    Config, FlowSetting, LocalizeSetting, PromptProfileSetting, ProviderConfig, RoleSetting,
};
use hone_core::{
    ChatSettings, FlowMode, Guidance, LocalizeMode, PromptProfile, RoleModel, RoleModels,
};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions, SecretFiles};
use hone_protocol::HoneError;

use crate::interaction::Interaction;

/// The session settings that come straight from the configuration.
pub struct AgentBasics {
    /// API keys, redacted from every log line.
    pub secrets: Vec<String>,
    /// The model.
    pub model: String,
    /// How much prompt to spend on rules and tool descriptions.
    pub prompt_profile: PromptProfile,
    /// Approval mode and `[permissions]` rules.
    pub permissions: Permissions,
    /// The approval mode's name.
    pub approval: String,
    /// Tool rounds per turn.
    pub max_tool_rounds: u32,
    /// How the model's commands are started (sandbox, environment).
    pub commands: hone_tools::command::CommandSetup,
    /// One line about the sandbox for `/status`.
    pub sandbox_status: String,
}

/// The basics for `provider` under `config`.
pub fn basics(
    config: &Config,
    provider: &ProviderConfig,
    interaction: &dyn Interaction,
) -> Result<AgentBasics, HoneError> {
    let mode = config.approval();
    let rules = config.permission_rules();
    let commands = CommandPolicy::new(&rules.allow, &rules.deny)
        .map_err(|error| HoneError::config(format!("invalid [permissions] rule: {error}")))?;
    let sandbox = crate::sandbox::command_sandbox(config, mode, interaction);
    // Without the OS sandbox it asked for, full-auto does not run commands unasked.
    let mode = if mode == ApprovalMode::FullAuto && sandbox.unavailable {
        ApprovalMode::AutoEdit
    } else {
        mode
    };
    Ok(AgentBasics {
        secrets: crate::sandbox::secrets(config, provider),
        model: provider.model.clone(),
        prompt_profile: match config.context_settings().prompt_profile {
            PromptProfileSetting::Auto => PromptProfile::for_model(&provider.kind, &provider.model),
            PromptProfileSetting::Compact => PromptProfile::Compact,
            PromptProfileSetting::Full => PromptProfile::Full,
        },
        permissions: Permissions::new(mode, commands)
            .with_secret_files(secret_files(config))
            .with_commands_sandboxed(sandbox.sandboxed)
            .with_commands_isolated(sandbox.isolated),
        approval: mode.as_str().to_string(),
        max_tool_rounds: config.max_tool_rounds(),
        commands: sandbox.setup,
        sandbox_status: sandbox.status,
    })
}

/// The files that may hold secrets: the built-in rule and `[permissions] secret_files`
/// (whose globs were checked when the configuration was loaded).
pub fn secret_files(config: &Config) -> SecretFiles {
    SecretFiles::new(&config.permission_rules().secret_files).unwrap_or_default()
}

/// Localisation and the flow as `[context]` sets them.
pub fn guidance(config: &Config) -> Guidance {
    let settings = config.context_settings();
    Guidance {
        localize: match settings.localize {
            LocalizeSetting::Auto => LocalizeMode::Auto,
            LocalizeSetting::On => LocalizeMode::On,
            LocalizeSetting::Off => LocalizeMode::Off,
        },
        localize_budget_tokens: settings.localize_budget_tokens,
        flow: match settings.mode {
            FlowSetting::Auto => FlowMode::Auto,
            FlowSetting::Guided => FlowMode::Guided,
            FlowSetting::Agent => FlowMode::Agent,
        },
    }
}

/// The model of `[roles] explore`, when set (with a provider of its own as for the other
/// roles).
pub(crate) async fn explore_role(
    config: &Config,
    session: &ProviderConfig,
    interaction: &dyn Interaction,
) -> Result<Option<RoleModel>, HoneError> {
    match config.roles().explore {
        Some(role) => Ok(Some(role_model(config, session, role, interaction).await?)),
        None => Ok(None),
    }
}

/// The models of `[roles]` and the settings of the session's own requests (the selected
/// profile's). A role on another provider instance, or on the embedded provider (which
/// serves one model file per provider), gets a provider of its own.
pub async fn roles(
    config: &Config,
    session: &ProviderConfig,
    interaction: &dyn Interaction,
) -> Result<RoleModels, HoneError> {
    let settings = config.roles();
    let mut built = Vec::new();
    for role in [
        settings.coder,
        settings.planner,
        settings.compaction,
        settings.checker,
    ] {
        built.push(match role {
            Some(role) => Some(role_model(config, session, role, interaction).await?),
            None => None,
        });
    }
    let [coder, planner, compaction, checker]: [Option<RoleModel>; 4] = built
        .try_into()
        .map_err(|_| HoneError::config("four roles expected"))?;
    Ok(RoleModels {
        chat: ChatSettings {
            generation: config.generation(),
            system_prompt: config.system_prompt(),
            tools: {
                let (only, disabled) = config.tool_selection();
                hone_core::ToolSelection { only, disabled }
            },
        },
        coder,
        planner,
        compaction,
        checker,
    })
}

/// The model of `role`: its own provider when it names another instance (or another model
/// file of the embedded provider), else the session's.
async fn role_model(
    config: &Config,
    session: &ProviderConfig,
    role: RoleSetting,
    interaction: &dyn Interaction,
) -> Result<RoleModel, HoneError> {
    let model = role.model.clone();
    let own_provider = role.provider.is_some()
        || (session.kind == "local" && model.as_ref().is_some_and(|model| *model != session.model));
    if !own_provider {
        return Ok(RoleModel {
            model: model.unwrap_or_else(|| session.model.clone()),
            provider: None,
            generation: role.generation,
        });
    }
    let instance = role
        .provider
        .clone()
        .unwrap_or_else(|| config.provider_name().to_string());
    let mut settings = config.provider_named(&instance)?;
    if let Some(model) = &model {
        settings.model.clone_from(model);
    }
    let model = settings.model.clone();
    let provider = crate::provider::build(config, settings, interaction).await?;
    Ok(RoleModel {
        model,
        provider: Some(provider),
        generation: role.generation,
    })
}

/// The checks after edits as `[checks]` sets them, with the code index's tree-sitter
/// syntax check.
pub fn checks(config: &Config) -> hone_core::ChecksConfig {
    let settings = config.checks_settings();
    hone_core::ChecksConfig {
        enabled: settings.enabled,
        run_tests: settings.run_tests,
        tests: settings.tests,
        max_repair_rounds: settings.max_repair_rounds,
        attempts: settings.attempts,
        configured: settings
            .commands
            .into_iter()
            .map(|entry| hone_core::ConfiguredCheck {
                target: match entry.key {
                    hone_config::CheckKey::Language { name, extensions } => {
                        hone_core::CheckTarget::Language { name, extensions }
                    }
                    hone_config::CheckKey::Glob(glob) => hone_core::CheckTarget::Glob(glob),
                },
                commands: entry.commands,
            })
            .collect(),
        syntax: Some(std::sync::Arc::new(hone_index::syntax::TreeSitterSyntax)),
    }
}

/// Warnings for the tools a profile's `tools` or `disabled_tools` name that no tool has: not
/// a built-in tool, not one of `extra` (the code index's), and not an MCP tool's
/// `server__tool` name (those are known only once their server runs).
pub(crate) fn unknown_profile_tools(
    selection: &hone_core::ToolSelection,
    extra: &[std::sync::Arc<dyn hone_tools::Tool>],
) -> Vec<String> {
    let known: Vec<String> = hone_tools::builtin_tools()
        .iter()
        .chain(extra)
        .map(|tool| tool.name().to_string())
        .collect();
    selection
        .only
        .iter()
        .flatten()
        .chain(&selection.disabled)
        .filter(|name| !name.contains("__") && !known.contains(name))
        .map(|name| {
            let hint = hone_config::closest(name, known.iter().map(String::as_str))
                .map(|close| format!(" (did you mean `{close}`?)"))
                .unwrap_or_default();
            format!(
                "the profile's tool list names `{name}`, which is no tool{hint}; tools: {}",
                known.join(", ")
            )
        })
        .collect()
}

/// The role called `name` (`refactor`, `explore`, …) when `roles` sets it.
pub(crate) fn role_named(
    roles: &hone_config::RolesSettings,
    name: &str,
) -> Option<hone_config::RoleSetting> {
    let role = match name {
        "chat" => &roles.chat,
        "completion" => &roles.completion,
        "compaction" => &roles.compaction,
        "refactor" => &roles.refactor,
        "planner" => &roles.planner,
        "coder" => &roles.coder,
        "checker" => &roles.checker,
        "explore" => &roles.explore,
        _ => return None,
    };
    role.clone()
}

/// The roles `roles` sets, one `role = what` line each: a profile, or a model with its
/// provider when it is not the session's.
pub(crate) fn role_lines(roles: &hone_config::RolesSettings) -> Vec<String> {
    [
        ("chat", &roles.chat),
        ("completion", &roles.completion),
        ("compaction", &roles.compaction),
        ("refactor", &roles.refactor),
        ("planner", &roles.planner),
        ("coder", &roles.coder),
        ("checker", &roles.checker),
        ("explore", &roles.explore),
    ]
    .into_iter()
    .filter_map(|(name, role)| {
        let role = role.as_ref()?;
        let what = match (&role.profile, &role.model, &role.provider) {
            (Some(profile), _, _) => format!("profile {profile}"),
            (None, Some(model), Some(provider)) => format!("{model} on {provider}"),
            (None, Some(model), None) => model.clone(),
            (None, None, Some(provider)) => format!("{provider}'s model"),
            (None, None, None) => "the session's model".to_string(),
        };
        Some(format!("{name} = {what}"))
    })
    .collect()
}

#[cfg(test)]
mod role_tests {
    use super::*;

    #[test]
    fn each_set_role_is_one_line() {
        let roles = hone_config::RolesSettings {
            coder: Some(hone_config::RoleSetting {
                model: Some("qwen2.5-coder-7b".into()),
                provider: None,
                profile: None,
                generation: Default::default(),
            }),
            checker: Some(hone_config::RoleSetting {
                model: Some("m".into()),
                provider: Some("work".into()),
                profile: Some("strict".into()),
                generation: Default::default(),
            }),
            ..Default::default()
        };
        assert_eq!(
            role_lines(&roles),
            ["coder = qwen2.5-coder-7b", "checker = profile strict"]
        );
        assert!(role_lines(&hone_config::RolesSettings::default()).is_empty());
    }
}
