//! What every agent front end (`hone exec`, the terminal UI) derives from the configuration
//! before starting a session: the policy, the secrets to redact, the prompt profile, the
//! code index (tools, map and localizer), localisation and the guided flow, and the models
//! of each role.

use std::sync::Arc;

use hone_config::{
    Config, FlowSetting, IndexSettings, LocalizeSetting, PromptProfileSetting, ProviderConfig,
    RoleSetting,
};
use hone_core::{FlowMode, Guidance, LocalizeMode, PromptProfile, RoleModel, RoleModels};
use hone_index::tools::{IndexLocalizer, SharedIndex};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_protocol::HoneError;

/// The session settings that come straight from the configuration.
pub(crate) struct AgentBasics {
    /// API keys, redacted from every log line.
    pub(crate) secrets: Vec<String>,
    /// The model.
    pub(crate) model: String,
    /// How much prompt to spend on rules and tool descriptions.
    pub(crate) prompt_profile: PromptProfile,
    /// Approval mode and `[permissions]` rules.
    pub(crate) permissions: Permissions,
    /// The approval mode's name.
    pub(crate) approval: String,
    /// Tool rounds per turn.
    pub(crate) max_tool_rounds: u32,
    /// How the model's commands are started (sandbox, environment).
    pub(crate) commands: hone_tools::command::CommandSetup,
    /// One line about the sandbox for `/status`.
    pub(crate) sandbox_status: String,
}

/// The basics for `provider` under `config`.
pub(crate) fn basics(config: &Config, provider: &ProviderConfig) -> Result<AgentBasics, HoneError> {
    let mode = config.approval();
    let rules = config.permission_rules();
    let commands = CommandPolicy::new(&rules.allow, &rules.deny)
        .map_err(|error| HoneError::config(format!("invalid [permissions] rule: {error}")))?;
    let sandbox = crate::sandbox_setup::command_sandbox(config, mode);
    // Without the OS sandbox it asked for, full-auto does not run commands unasked.
    let mode = if mode == ApprovalMode::FullAuto && sandbox.unavailable {
        ApprovalMode::AutoEdit
    } else {
        mode
    };
    Ok(AgentBasics {
        secrets: crate::sandbox_setup::secrets(config, provider),
        model: provider.model.clone(),
        prompt_profile: match config.context_settings().prompt_profile {
            PromptProfileSetting::Auto => PromptProfile::for_model(&provider.kind, &provider.model),
            PromptProfileSetting::Compact => PromptProfile::Compact,
            PromptProfileSetting::Full => PromptProfile::Full,
        },
        permissions: Permissions::new(mode, commands).with_commands_sandboxed(sandbox.sandboxed),
        approval: mode.as_str().to_string(),
        max_tool_rounds: config.max_tool_rounds(),
        commands: sandbox.setup,
        sandbox_status: sandbox.status,
    })
}

/// Localisation and the flow as `[context]` sets them.
pub(crate) fn guidance(config: &Config) -> Guidance {
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

/// The localizer over the code index, for [`hone_core::SessionConfig::localizer`].
pub(crate) fn localizer(index: &SharedIndex) -> Arc<dyn hone_core::Localizer> {
    Arc::new(IndexLocalizer::new(index.clone()))
}

/// The models of `[roles]`. A role on another provider instance, or on the embedded
/// provider (which serves one model file per provider), gets a provider of its own.
pub(crate) async fn roles(
    config: &Config,
    session: &ProviderConfig,
    prompting: crate::provider_factory::Prompting,
) -> Result<RoleModels, HoneError> {
    let settings = config.roles();
    let mut built = Vec::new();
    for role in [
        settings.coder,
        settings.planner,
        settings.summary,
        settings.checker,
    ] {
        built.push(match role {
            Some(role) => Some(role_model(config, session, role, prompting).await?),
            None => None,
        });
    }
    let [coder, planner, summary, checker]: [Option<RoleModel>; 4] = built
        .try_into()
        .map_err(|_| HoneError::config("four roles expected"))?;
    Ok(RoleModels {
        coder,
        planner,
        summary,
        checker,
    })
}

async fn role_model(
    config: &Config,
    session: &ProviderConfig,
    role: RoleSetting,
    prompting: crate::provider_factory::Prompting,
) -> Result<RoleModel, HoneError> {
    let own_provider =
        role.provider.is_some() || (session.kind == "local" && role.model != session.model);
    if !own_provider {
        return Ok(RoleModel::named(role.model));
    }
    let instance = role
        .provider
        .clone()
        .unwrap_or_else(|| config.provider_name().to_string());
    let mut settings = config.provider_named(&instance)?;
    settings.model.clone_from(&role.model);
    let provider = crate::provider_factory::build(config, settings, prompting).await?;
    Ok(RoleModel {
        model: role.model,
        provider: Some(provider),
    })
}

/// The project's code index as `[index]` sets it up, brought up to date. An update of more
/// than [`hone_index::LARGE_REPOSITORY_FILES`] files (a first index of a large project) is
/// announced on stderr with the way to limit it; it never waits for an answer.
pub(crate) fn open_code_index(
    root: &std::path::Path,
    settings: &IndexSettings,
) -> Result<SharedIndex, HoneError> {
    let mut indexer = crate::index_setup::open_index(root, settings)?;
    let mut warned = false;
    indexer
        .update(&mut |progress| {
            if !warned && progress.total > hone_index::LARGE_REPOSITORY_FILES {
                warned = true;
                eprintln!("hone: warning: {}", large_update_warning(progress.total));
            }
        })
        .map_err(HoneError::from)?;
    Ok(SharedIndex::new(indexer))
}

/// The warning before indexing `files` files when the agent starts.
fn large_update_warning(files: usize) -> String {
    format!(
        "{}; indexing all of them before the session starts (`hone index --scope DIR` \
         limits the index to one sub-directory, `[index] extra_ignores` leaves files out)",
        crate::index_prompt::large_repository_warning(files)
    )
}

/// The repo map of `index` focused on `focus` within the configured budget; `None` when
/// empty. The error is a warning to show.
pub(crate) fn repo_map(
    index: &SharedIndex,
    focus: &str,
    settings: &IndexSettings,
    profile: PromptProfile,
) -> Result<Option<String>, String> {
    hone_index::tools::repo_map(&index.lock(), focus, map_budget(settings, profile))
        .map(|map| Some(map).filter(|map| !map.trim().is_empty()))
        .map_err(|error| format!("no repository map ({error})"))
}

/// Repo-map tokens at most under the compact prompt profile: a small model on a CPU pays
/// for every prompt token, and the whole first request should stay near 2,000 tokens.
pub(crate) const COMPACT_MAP_BUDGET: usize = 1_000;

/// The repo map's token budget: `[index] map_budget`, capped for the compact profile.
pub(crate) fn map_budget(settings: &IndexSettings, profile: PromptProfile) -> usize {
    match profile {
        PromptProfile::Compact => settings.map_budget.min(COMPACT_MAP_BUDGET),
        PromptProfile::Full => settings.map_budget,
    }
}

/// The checks after edits as `[checks]` sets them, with the code index's tree-sitter
/// syntax check.
pub(crate) fn checks(config: &Config) -> hone_core::ChecksConfig {
    let settings = config.checks_settings();
    hone_core::ChecksConfig {
        enabled: settings.enabled,
        run_tests: settings.run_tests,
        max_repair_rounds: settings.max_repair_rounds,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_large_update_warning_names_the_count_and_the_ways_out() {
        let warning = large_update_warning(12_345);
        assert!(warning.starts_with("12345 files to index"), "{warning}");
        assert!(warning.contains("--scope DIR"), "{warning}");
        assert!(warning.contains("extra_ignores"), "{warning}");
    }
}
