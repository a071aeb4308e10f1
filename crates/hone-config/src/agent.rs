//! Agent settings: the approval mode, the limit on tool rounds and the `[permissions]` rules.
//!
//! - `approval` (top level, `HONE_APPROVAL`, `--approval`, or a profile's `approval`) layers
//!   like the other top-level keys: default `ask` ← user file ← project file ← environment ←
//!   flag, a selected profile sitting just below the layer selecting it.
//! - `max_tool_rounds` (top level, `HONE_MAX_TOOL_ROUNDS`, `--max-tool-rounds`) layers the same
//!   way, without profiles; default 25, accepted 1 to 1000.
//! - `[permissions] allow` and `deny` of the user and project files are concatenated, user
//!   rules first.
//!
//! A repository must not be able to grant itself commands. Unless the project is trusted
//! (`trusted_projects` in the user file, see [`Config::is_project_trusted`]):
//!
//! - the project file's `allow` rules are ignored (its `deny` rules always count);
//! - an `approval` set by the project file, directly or through a profile it defines, may
//!   only tighten the mode chosen by the layers below it (towards `read-only`); a looser one
//!   is ignored.
//!
//! Both kinds of ignored setting are listed by [`Config::render_show`].

use std::collections::BTreeMap;
use std::ops::{Range, RangeInclusive};
use std::path::Path;

use hone_policy::ApprovalMode;
use toml::Spanned;

use crate::error::ConfigError;
use crate::file::FileConfig;
use crate::load::Config;
use crate::source::{Source, Sourced};
use crate::sources::{CliOverrides, Env};
use crate::suggest::closest;
use crate::trust::project_file_behind;

/// `max_tool_rounds` when nothing sets it.
pub const DEFAULT_MAX_TOOL_ROUNDS: u32 = 25;

/// The values `max_tool_rounds` accepts.
pub const MAX_TOOL_ROUNDS_RANGE: RangeInclusive<u32> = 1..=1000;

/// The `[permissions]` command rules in effect: command prefixes (`cargo test`) or globs
/// (`git log *`), matched by the permission policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionRules {
    /// Commands that may run without asking: the user file's rules, then a trusted project's.
    pub allow: Vec<String>,
    /// Commands that never run: the user file's rules, then the project file's.
    pub deny: Vec<String>,
    /// Globs of files that may hold secrets, besides the built-in rule
    /// (`hone_policy::SecretFiles`): every file's, since they only add questions.
    pub secret_files: Vec<String>,
}

/// What `approval` accepts, for error messages.
fn expected_approval() -> String {
    let names: Vec<&str> = ApprovalMode::ALL.map(ApprovalMode::as_str).to_vec();
    format!("expected one of {}", names.join(", "))
}

/// What `max_tool_rounds` accepts, for error messages.
fn expected_rounds() -> String {
    format!(
        "expected a whole number from {} to {}",
        MAX_TOOL_ROUNDS_RANGE.start(),
        MAX_TOOL_ROUNDS_RANGE.end()
    )
}

/// `. Did you mean `ask`?` when `value` is close to a mode name.
fn approval_hint(value: &str) -> String {
    closest(value, ApprovalMode::ALL.map(ApprovalMode::as_str))
        .map(|name| format!(". Did you mean `{name}`?"))
        .unwrap_or_default()
}

/// The agent settings of one file, validated by [`validate`].
#[derive(Debug, Default)]
pub(crate) struct FileAgent {
    pub(crate) approval: Option<ApprovalMode>,
    pub(crate) max_tool_rounds: Option<u32>,
    /// `approval` of each `[profiles.NAME]` that sets it.
    pub(crate) profile_approvals: BTreeMap<String, ApprovalMode>,
}

/// Checks the agent keys of `file`, the contents `text` of `path`, and records them in
/// `file.agent`. Errors name the file, line and column of the value.
pub(crate) fn validate(path: &Path, text: &str, file: &mut FileConfig) -> Result<(), ConfigError> {
    let error = |span: Range<usize>, message: String| {
        crate::file::error_at(path, text, span.start, message)
    };
    let approval = |key: &str, value: &Spanned<String>| {
        ApprovalMode::from_name(value.get_ref()).ok_or_else(|| {
            let text = value.get_ref();
            let message = format!(
                "invalid `{key}` {text:?}: {}{}",
                expected_approval(),
                approval_hint(text)
            );
            error(value.span(), message)
        })
    };
    if let Some(value) = &file.approval {
        file.agent.approval = Some(approval("approval", value)?);
    }
    for (name, profile) in &file.profiles {
        if let Some(value) = &profile.approval {
            let mode = approval(&format!("profiles.{name}.approval"), value)?;
            file.agent.profile_approvals.insert(name.clone(), mode);
        }
    }
    if let Some(value) = &file.max_tool_rounds {
        let rounds = u32::try_from(*value.get_ref())
            .ok()
            .filter(|rounds| MAX_TOOL_ROUNDS_RANGE.contains(rounds));
        let message = || {
            format!(
                "invalid `max_tool_rounds` {}: {}",
                value.get_ref(),
                expected_rounds()
            )
        };
        file.agent.max_tool_rounds = Some(rounds.ok_or_else(|| error(value.span(), message()))?);
    }
    let rules = [
        ("allow", &file.permissions.allow),
        ("deny", &file.permissions.deny),
        ("secret_files", &file.permissions.secret_files),
    ];
    for (key, rules) in rules {
        if let Some(blank) = rules.iter().find(|rule| rule.get_ref().trim().is_empty()) {
            let message = format!("`permissions.{key}` entries must not be empty");
            return Err(error(blank.span(), message));
        }
    }
    for glob in &file.permissions.secret_files {
        if let Err(problem) = hone_policy::SecretFiles::new(std::slice::from_ref(glob.get_ref())) {
            let message = format!("invalid `permissions.secret_files` entry: {problem}");
            return Err(error(glob.span(), message));
        }
    }
    Ok(())
}

/// `approval` from a variable or flag, when set.
fn approval_from(
    value: Option<&str>,
    origin: Source,
) -> Result<Option<Sourced<ApprovalMode>>, ConfigError> {
    let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
        return Ok(None);
    };
    match ApprovalMode::from_name(value) {
        Some(mode) => Ok(Some(Sourced::new(mode, origin))),
        None => Err(ConfigError::InvalidValue {
            key: "approval".to_string(),
            value: value.to_string(),
            origin,
            expected: format!("{}{}", expected_approval(), approval_hint(value)),
        }),
    }
}

/// `max_tool_rounds` from a variable or flag, checked against [`MAX_TOOL_ROUNDS_RANGE`].
fn rounds_from(value: Option<&str>, origin: Source) -> Result<Option<Sourced<u32>>, ConfigError> {
    let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
        return Ok(None);
    };
    match value.parse::<u32>() {
        Ok(rounds) if MAX_TOOL_ROUNDS_RANGE.contains(&rounds) => {
            Ok(Some(Sourced::new(rounds, origin)))
        }
        _ => Err(ConfigError::InvalidValue {
            key: "max_tool_rounds".to_string(),
            value: value.to_string(),
            origin,
            expected: expected_rounds(),
        }),
    }
}

/// The agent keys one layer (a file, the environment or the flags) sets.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgentLayer {
    approval: Option<Sourced<ApprovalMode>>,
    max_tool_rounds: Option<Sourced<u32>>,
}

impl AgentLayer {
    /// `HONE_APPROVAL` and `HONE_MAX_TOOL_ROUNDS`; empty variables count as unset.
    pub(crate) fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let var = |name: &str| (env.get(name), Source::Env(name.to_string()));
        let (approval, approval_origin) = var("HONE_APPROVAL");
        let (rounds, rounds_origin) = var("HONE_MAX_TOOL_ROUNDS");
        Ok(Self {
            approval: approval_from(approval, approval_origin)?,
            max_tool_rounds: rounds_from(rounds, rounds_origin)?,
        })
    }

    /// `--approval` and `--max-tool-rounds`.
    pub(crate) fn from_cli(cli: &CliOverrides) -> Result<Self, ConfigError> {
        let rounds = cli.max_tool_rounds.map(|rounds| rounds.to_string());
        Ok(Self {
            approval: approval_from(cli.approval.as_deref(), Source::Cli("--approval".into()))?,
            max_tool_rounds: rounds_from(
                rounds.as_deref(),
                Source::Cli("--max-tool-rounds".into()),
            )?,
        })
    }
}

/// Collects the files' permission rules and profile approvals, in precedence order.
#[derive(Debug, Default)]
pub(crate) struct AgentBuilder {
    profile_approvals: BTreeMap<String, Sourced<ApprovalMode>>,
    allow: Vec<Sourced<String>>,
    deny: Vec<Sourced<String>>,
    secret_files: Vec<Sourced<String>>,
}

impl AgentBuilder {
    /// Takes the rules and profile approvals of `file`, read from `source`, and returns the
    /// file's own layer of agent keys.
    pub(crate) fn merge_file(&mut self, file: &FileConfig, source: &Source) -> AgentLayer {
        for (name, mode) in &file.agent.profile_approvals {
            let profile_source = Source::Profile {
                name: name.clone(),
                defined_in: Box::new(source.clone()),
            };
            self.profile_approvals
                .insert(name.clone(), Sourced::new(*mode, profile_source));
        }
        let sourced = |rule: &Spanned<String>| Sourced::new(rule.get_ref().clone(), source.clone());
        self.allow
            .extend(file.permissions.allow.iter().map(sourced));
        self.deny.extend(file.permissions.deny.iter().map(sourced));
        self.secret_files
            .extend(file.permissions.secret_files.iter().map(sourced));
        AgentLayer {
            approval: file
                .agent
                .approval
                .map(|mode| Sourced::new(mode, source.clone())),
            max_tool_rounds: file
                .agent
                .max_tool_rounds
                .map(|rounds| Sourced::new(rounds, source.clone())),
        }
    }

    /// Gives each profile without an `approval` that of the nearest profile it extends.
    pub(crate) fn inherit_profile_approvals(
        &mut self,
        profiles: &crate::profiles::ProfileLayers,
    ) -> Result<(), ConfigError> {
        let mut inherited = Vec::new();
        for name in profiles.names() {
            if self.profile_approvals.contains_key(name) {
                continue;
            }
            let chain = profiles.chain(name)?;
            if let Some(mode) = chain
                .iter()
                .find_map(|base| self.profile_approvals.get(base))
            {
                inherited.push((name.to_string(), mode.clone()));
            }
        }
        self.profile_approvals.extend(inherited);
        Ok(())
    }

    /// Layers `layers` (lowest first) over the defaults. `profile` is the selected profile and
    /// the index of the layer selecting it; its `approval` applies just below that layer.
    /// `trusted` says whether the project file's loosening settings are honoured.
    pub(crate) fn finish<'a>(
        self,
        layers: impl IntoIterator<Item = &'a AgentLayer>,
        profile: Option<(usize, &str)>,
        trusted: bool,
    ) -> AgentSettings {
        let mut approval = Sourced::new(ApprovalMode::default(), Source::Default);
        let mut max_tool_rounds = Sourced::new(DEFAULT_MAX_TOOL_ROUNDS, Source::Default);
        let mut ignored_approvals = Vec::new();
        let mut apply = |candidate: &Sourced<ApprovalMode>, current: &mut Sourced<ApprovalMode>| {
            let from_project = project_file_behind(&candidate.source).is_some();
            if !trusted && from_project && candidate.value > current.value {
                ignored_approvals.push(candidate.clone());
            } else {
                *current = candidate.clone();
            }
        };
        for (index, layer) in layers.into_iter().enumerate() {
            if let Some((_, name)) = profile.filter(|(at, _)| *at == index)
                && let Some(mode) = self.profile_approvals.get(name)
            {
                apply(mode, &mut approval);
            }
            if let Some(mode) = &layer.approval {
                apply(mode, &mut approval);
            }
            if let Some(rounds) = &layer.max_tool_rounds {
                max_tool_rounds = rounds.clone();
            }
        }
        let (allow, ignored_allow) = self
            .allow
            .into_iter()
            .partition(|rule| trusted || project_file_behind(&rule.source).is_none());
        AgentSettings {
            approval,
            max_tool_rounds,
            allow,
            deny: self.deny,
            secret_files: self.secret_files,
            ignored_allow,
            ignored_approvals,
        }
    }
}

/// The agent settings after layering, each with its source.
#[derive(Debug, Clone)]
pub(crate) struct AgentSettings {
    pub(crate) approval: Sourced<ApprovalMode>,
    pub(crate) max_tool_rounds: Sourced<u32>,
    pub(crate) allow: Vec<Sourced<String>>,
    pub(crate) deny: Vec<Sourced<String>>,
    /// Globs of files that may hold secrets, from every file (they only add questions).
    pub(crate) secret_files: Vec<Sourced<String>>,
    /// `allow` rules of an untrusted project file.
    pub(crate) ignored_allow: Vec<Sourced<String>>,
    /// Approvals of an untrusted project file that would have loosened the mode.
    pub(crate) ignored_approvals: Vec<Sourced<ApprovalMode>>,
}

impl Config {
    /// The approval mode: `approval`, `HONE_APPROVAL` or `--approval`; default `ask`.
    pub fn approval(&self) -> ApprovalMode {
        self.agent.approval.value
    }

    /// Where [`Config::approval`] came from.
    pub fn approval_source(&self) -> &Source {
        &self.agent.approval.source
    }

    /// The most tool-call rounds in one turn: `max_tool_rounds`, `HONE_MAX_TOOL_ROUNDS` or
    /// `--max-tool-rounds`; default [`DEFAULT_MAX_TOOL_ROUNDS`].
    pub fn max_tool_rounds(&self) -> u32 {
        self.agent.max_tool_rounds.value
    }

    /// Where [`Config::max_tool_rounds`] came from.
    pub fn max_tool_rounds_source(&self) -> &Source {
        &self.agent.max_tool_rounds.source
    }

    /// The `[permissions]` rules in effect: the user file's, then the project file's (its
    /// `allow` rules only when the project is trusted).
    pub fn permission_rules(&self) -> PermissionRules {
        let values =
            |rules: &[Sourced<String>]| rules.iter().map(|rule| rule.value.clone()).collect();
        PermissionRules {
            allow: values(&self.agent.allow),
            deny: values(&self.agent.deny),
            secret_files: values(&self.agent.secret_files),
        }
    }

    /// `allow` rules of the project file that were ignored because the project is not trusted.
    pub fn ignored_project_allow_rules(&self) -> impl Iterator<Item = &str> {
        self.agent
            .ignored_allow
            .iter()
            .map(|rule| rule.value.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_from_variables_and_flags_are_checked() {
        let origin = || Source::Env("HONE_MAX_TOOL_ROUNDS".into());
        assert_eq!(
            rounds_from(Some(" 7 "), origin()).unwrap().unwrap().value,
            7
        );
        assert!(rounds_from(Some(""), origin()).unwrap().is_none());
        for bad in ["0", "1001", "-3", "ten"] {
            assert!(rounds_from(Some(bad), origin()).is_err(), "{bad}");
        }
        let message = approval_from(Some("ful-auto"), Source::Cli("--approval".into()))
            .unwrap_err()
            .to_string();
        assert!(message.contains("Did you mean `full-auto`?"), "{message}");
    }
}
