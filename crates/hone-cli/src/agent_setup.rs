//! What every agent front end (`hone exec`, the terminal UI) derives from the configuration
//! before starting a session: the policy, the secrets to redact, the prompt profile, and
//! the code index.

use std::str::FromStr;

use hone_config::{Config, IndexSettings, ProviderConfig};
use hone_core::PromptProfile;
use hone_index::tools::SharedIndex;
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
}

/// The basics for `provider` under `config`.
pub(crate) fn basics(config: &Config, provider: &ProviderConfig) -> Result<AgentBasics, HoneError> {
    let mode = ApprovalMode::from_str(config.approval().as_str())
        .map_err(|error| HoneError::config(error.to_string()))?;
    let rules = config.permission_rules();
    let commands = CommandPolicy::new(&rules.allow, &rules.deny)
        .map_err(|error| HoneError::config(format!("invalid [permissions] rule: {error}")))?;
    Ok(AgentBasics {
        secrets: provider
            .api_key
            .iter()
            .map(|key| key.expose().to_string())
            .collect(),
        model: provider.model.clone(),
        prompt_profile: PromptProfile::for_model(&provider.kind, &provider.model),
        permissions: Permissions::new(mode, commands),
        approval: mode.as_str().to_string(),
        max_tool_rounds: config.max_tool_rounds(),
    })
}

/// The project's code index as `[index]` sets it up, brought up to date.
pub(crate) fn open_code_index(
    root: &std::path::Path,
    settings: &IndexSettings,
) -> Result<SharedIndex, HoneError> {
    let mut indexer = crate::index_setup::open_index(root, settings)?;
    indexer
        .update(&mut |_| {})
        .map_err(|error| HoneError::config(error.to_string()))?;
    Ok(SharedIndex::new(indexer))
}

/// The repo map of `index` focused on `focus` within the configured budget; `None` when
/// empty. The error is a warning to show.
pub(crate) fn repo_map(
    index: &SharedIndex,
    focus: &str,
    settings: &IndexSettings,
) -> Result<Option<String>, String> {
    hone_index::tools::repo_map(&index.lock(), focus, settings.map_budget)
        .map(|map| Some(map).filter(|map| !map.trim().is_empty()))
        .map_err(|error| format!("no repository map ({error})"))
}
