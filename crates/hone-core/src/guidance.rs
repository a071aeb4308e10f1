//! How a session helps small models: localisation before the first request, the guided
//! flow, and the models playing each role.

use std::fmt;
use std::sync::Arc;

use hone_api::TaskKind;
use hone_protocol::GenerationSettings;
use hone_providers::Provider;

use crate::profile::PromptProfile;

/// Default token budget of the code attached by localisation.
pub const DEFAULT_LOCALIZE_BUDGET_TOKENS: usize = 1_500;

/// Whether the code a request names is attached to it (`[context] localize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LocalizeMode {
    /// On under the compact prompt profile (small models), off otherwise.
    #[default]
    Auto,
    /// Always.
    On,
    /// Never.
    Off,
}

/// How a turn is run (`[context] mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlowMode {
    /// Guided under the compact prompt profile, the agent loop otherwise.
    #[default]
    Auto,
    /// The request is classified and each kind gets a purpose-made step.
    Guided,
    /// The tool-driven agent loop for every request.
    Agent,
}

/// Localisation and flow settings of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guidance {
    /// Whether to attach located code.
    pub localize: LocalizeMode,
    /// Token budget of the attached code.
    pub localize_budget_tokens: usize,
    /// Guided flow or agent loop.
    pub flow: FlowMode,
}

impl Default for Guidance {
    fn default() -> Self {
        Self {
            localize: LocalizeMode::Auto,
            localize_budget_tokens: DEFAULT_LOCALIZE_BUDGET_TOKENS,
            flow: FlowMode::Auto,
        }
    }
}

impl Guidance {
    /// Whether localisation runs under `profile`.
    pub(crate) fn localizes(&self, profile: PromptProfile) -> bool {
        match self.localize {
            LocalizeMode::Auto => profile == PromptProfile::Compact || self.guided(profile),
            LocalizeMode::On => true,
            LocalizeMode::Off => false,
        }
    }

    /// Whether turns take the guided flow under `profile`.
    pub(crate) fn guided(&self, profile: PromptProfile) -> bool {
        match self.flow {
            FlowMode::Auto => profile == PromptProfile::Compact,
            FlowMode::Guided => true,
            FlowMode::Agent => false,
        }
    }
}

/// A model playing a role, optionally on another provider instance.
#[derive(Clone)]
pub struct RoleModel {
    /// The model name.
    pub model: String,
    /// The provider serving it; `None`: the session's provider.
    pub provider: Option<Arc<dyn Provider>>,
    /// The request settings of the role's profile (thinking, temperature, …).
    pub generation: GenerationSettings,
}

impl RoleModel {
    /// `model` on the session's provider, with the provider's default settings.
    pub fn named(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            provider: None,
            generation: GenerationSettings::default(),
        }
    }
}

/// How the session's own requests are made: the settings of the selected profile (or of
/// `[roles] chat`).
#[derive(Debug, Clone, Default)]
pub struct ChatSettings {
    /// Thinking, sampling, output limit, caching and extra body fields of every agent
    /// request (a guided step's role brings its own).
    pub generation: GenerationSettings,
    /// A system prompt added to, or put instead of, the built-in one.
    pub system_prompt: Option<hone_protocol::SystemPrompt>,
    /// The tools the profile offers the model.
    pub tools: ToolSelection,
}

/// Which tools a profile offers the model (`tools`, `disabled_tools`); by default all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolSelection {
    /// Only these (built-in and MCP tools by name); `None`: every tool.
    pub only: Option<Vec<String>>,
    /// Never these.
    pub disabled: Vec<String>,
}

impl ToolSelection {
    /// Whether the tool `name` is offered.
    pub fn allows(&self, name: &str) -> bool {
        !self.disabled.iter().any(|disabled| disabled == name)
            && self
                .only
                .as_ref()
                .is_none_or(|only| only.iter().any(|allowed| allowed == name))
    }
}

impl fmt::Debug for RoleModel {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("RoleModel")
            .field("model", &self.model)
            .field(
                "provider",
                &self.provider.as_ref().map(|provider| provider.name()),
            )
            .field("generation", &self.generation)
            .finish()
    }
}

/// The models of each role (`[roles]`); `None` is the session's model.
#[derive(Debug, Clone, Default)]
pub struct RoleModels {
    /// The session's own requests (`[roles] chat` or the selected profile).
    pub chat: ChatSettings,
    /// Writes code: the guided change and create steps.
    pub coder: Option<RoleModel>,
    /// Plans: classifies a request the rules are unsure about.
    pub planner: Option<RoleModel>,
    /// Summarises older turns for compaction (over `[context] compaction_model`).
    pub compaction: Option<RoleModel>,
    /// Reviews results of checks (used where a checking step exists).
    pub checker: Option<RoleModel>,
}

/// The task kind named `word` (case and trailing punctuation ignored), as the planner
/// answers.
pub(crate) fn task_from_word(word: &str) -> Option<TaskKind> {
    let word = word
        .trim()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_ascii_lowercase();
    match word.as_str() {
        "change" | "fix" | "edit" => Some(TaskKind::Change),
        "explain" | "question" | "answer" => Some(TaskKind::Explain),
        "create" | "new" => Some(TaskKind::Create),
        "run" | "test" => Some(TaskKind::Run),
        _ => None,
    }
}

/// How a front end words a guided step: `guided change: the model writes the fix, no
/// tools`; `None` when the turn runs the agent loop for a known reason nobody needs to see.
pub fn step_notice(task: Option<TaskKind>, guided: bool) -> Option<String> {
    let what = match (task, guided) {
        (Some(TaskKind::Change), true) => {
            "guided change: the model writes the corrected code, no tools"
        }
        (Some(TaskKind::Explain), true) => {
            "guided explanation: the model answers from the attached code, no tools"
        }
        (Some(TaskKind::Create), true) => {
            "guided new file: the model writes the whole file, no tools"
        }
        (Some(TaskKind::Change | TaskKind::Explain), false) => {
            "the code was not found; the agent loop looks for it with tools"
        }
        (None, _) => "request kind unclear; the agent loop handles it",
        (Some(TaskKind::Run), _) | (Some(TaskKind::Create), false) => return None,
    };
    Some(what.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_follows_the_prompt_profile() {
        let guidance = Guidance::default();
        assert!(guidance.localizes(PromptProfile::Compact));
        assert!(guidance.guided(PromptProfile::Compact));
        assert!(!guidance.localizes(PromptProfile::Full));
        assert!(!guidance.guided(PromptProfile::Full));
        let forced = Guidance {
            localize: LocalizeMode::Off,
            flow: FlowMode::Guided,
            ..Guidance::default()
        };
        assert!(!forced.localizes(PromptProfile::Full));
        assert!(forced.guided(PromptProfile::Full));
        let on = Guidance {
            localize: LocalizeMode::On,
            flow: FlowMode::Agent,
            ..Guidance::default()
        };
        assert!(on.localizes(PromptProfile::Full));
        assert!(!on.guided(PromptProfile::Compact));
    }

    #[test]
    fn steps_are_worded_for_the_user() {
        assert!(
            step_notice(Some(TaskKind::Change), true)
                .unwrap()
                .starts_with("guided change")
        );
        assert!(
            step_notice(Some(TaskKind::Change), false)
                .unwrap()
                .contains("agent loop")
        );
        assert_eq!(step_notice(Some(TaskKind::Run), false), None);
        assert!(step_notice(None, false).unwrap().contains("unclear"));
    }

    #[test]
    fn task_words_parse_leniently() {
        assert_eq!(task_from_word(" Change."), Some(TaskKind::Change));
        assert_eq!(task_from_word("explain"), Some(TaskKind::Explain));
        assert_eq!(task_from_word("CREATE"), Some(TaskKind::Create));
        assert_eq!(task_from_word("run"), Some(TaskKind::Run));
        assert_eq!(task_from_word("maybe"), None);
        assert_eq!(TaskKind::Create.as_str(), "create");
    }
}
