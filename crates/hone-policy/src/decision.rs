//! Decisions: what a tool call may do, given the approval mode, the command policy and
//! what the user granted for this session.

use std::collections::BTreeSet;

use crate::command::{Analysis, Leaf, Rule};
use crate::{ApprovalMode, CommandClass, CommandPolicy, Grant, PathGuard, SecretFiles};

/// What a tool call wants to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action<'a> {
    /// Read files or search.
    Read,
    /// Read a file that may hold secrets ([`crate::SecretFiles`]): asked in every mode
    /// unless granted for the session.
    ReadSecret {
        /// The file, relative to the project root.
        path: &'a str,
    },
    /// Change files. `destructive` when the change removes more than half of a file.
    Write {
        /// The change removes more than half of a file's content.
        destructive: bool,
    },
    /// Change a file whose change always asks ([`crate::protected_write`]): hone's own
    /// files and the instruction files. Session grants do not cover it.
    WriteProtected {
        /// The file, relative to the project root.
        path: &'a str,
        /// Why, as a phrase after the path.
        why: &'a str,
    },
    /// Run a shell command line.
    Command {
        /// The command line as the model wrote it.
        command: &'a str,
    },
    /// Run one of hone's own checks (see [`Permissions::decide_check`]).
    Check {
        /// The check's command line.
        command: &'a str,
    },
    /// Call a tool outside hone (an MCP server's), which may do anything.
    External {
        /// The user's configuration lets it run without asking.
        trusted: bool,
    },
}

/// The policy's answer for one action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Go ahead without asking.
    Allow,
    /// Ask the user first.
    Ask {
        /// Why approval is needed, as a sentence.
        reason: String,
    },
    /// Refuse; the reason goes back to the model.
    Deny {
        /// Why, as a sentence.
        reason: String,
    },
}

/// Approvals given "always for this session": per tool (for writes) or per command
/// prefix. Kept in memory only; nothing here outlives the session.
#[derive(Debug, Clone, Default)]
pub struct SessionGrants {
    tools: BTreeSet<String>,
    command_prefixes: Vec<Rule>,
    secret_files: BTreeSet<String>,
}

impl SessionGrants {
    /// Lets `tool` write without asking for the rest of the session.
    pub fn grant_tool(&mut self, tool: &str) {
        self.tools.insert(tool.to_string());
    }

    /// Lets commands whose words start with `prefix` (whitespace-separated words, e.g.
    /// `cargo test`) run without asking. An empty prefix grants nothing.
    pub fn grant_command_prefix(&mut self, prefix: &str) {
        if let Some(rule) = Rule::prefix(prefix)
            && !self.command_prefixes().any(|known| known == rule.source())
        {
            self.command_prefixes.push(rule);
        }
    }

    /// Lets the file at `path` (which may hold secrets) be read without asking for the rest
    /// of the session.
    pub fn grant_secret_file(&mut self, path: &str) {
        self.secret_files.insert(path.to_string());
    }

    /// Whether reading the file at `path` was granted.
    pub fn covers_secret_file(&self, path: &str) -> bool {
        self.secret_files.contains(path)
    }

    /// Whether `tool` was granted.
    pub fn covers_tool(&self, tool: &str) -> bool {
        self.tools.contains(tool)
    }

    /// The granted tools.
    pub fn tools(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(String::as_str)
    }

    /// The granted command prefixes.
    pub fn command_prefixes(&self) -> impl Iterator<Item = &str> {
        self.command_prefixes.iter().map(Rule::source)
    }

    /// Why the command still asks despite the grants: the reason of its first part that
    /// asks and is not covered by a granted prefix. Parts that ask for reasons other than
    /// their words (writing a file through `>`, setting `PATH`) are never covered, and
    /// neither is a command that could not be fully parsed. `None` when all is covered.
    fn uncovered(&self, analysis: &Analysis, verdict_reason: &str) -> Option<String> {
        if !analysis.problems.is_empty() || analysis.leaves.is_empty() {
            return Some(verdict_reason.to_string());
        }
        let covered = |leaf: &Leaf| {
            leaf.grantable
                && self
                    .command_prefixes
                    .iter()
                    .any(|rule| rule.allows(&leaf.words))
        };
        analysis
            .leaves
            .iter()
            .find(|leaf| match leaf.class {
                CommandClass::Allow => false,
                CommandClass::Ask => !covered(leaf),
                CommandClass::Deny => true,
            })
            .map(|leaf| leaf.reason.clone())
    }
}

/// The permission policy of a session: approval mode, command policy and session grants.
///
/// ```
/// use hone_policy::{Action, ApprovalMode, CommandPolicy, Decision, Permissions};
///
/// let mut permissions = Permissions::new(ApprovalMode::Ask, CommandPolicy::default());
/// assert_eq!(permissions.decide("shell", &Action::Command { command: "git status" }), Decision::Allow);
/// assert!(matches!(permissions.decide("shell", &Action::Command { command: "cargo test" }), Decision::Ask { .. }));
/// permissions.grant_command_prefix("cargo test");
/// assert_eq!(permissions.decide("shell", &Action::Command { command: "cargo test -q" }), Decision::Allow);
/// assert!(matches!(permissions.decide("shell", &Action::Command { command: "sudo ls" }), Decision::Deny { .. }));
/// ```
#[derive(Debug, Clone)]
pub struct Permissions {
    mode: ApprovalMode,
    commands: CommandPolicy,
    grants: SessionGrants,
    /// Commands run inside the OS sandbox, so full-auto may run what the policy cannot see.
    commands_sandboxed: bool,
    /// Commands run in their own namespaces, out of reach of hone's environment, the
    /// user's other processes and the home directory: hone's own checks may run unasked.
    commands_isolated: bool,
    /// Which files may hold secrets (the session's path guard gets them from here).
    secret_files: SecretFiles,
}

impl Permissions {
    /// A policy in `mode` with no session grants yet.
    pub fn new(mode: ApprovalMode, commands: CommandPolicy) -> Self {
        Self {
            mode,
            commands,
            grants: SessionGrants::default(),
            commands_sandboxed: false,
            commands_isolated: false,
            secret_files: SecretFiles::default(),
        }
    }

    /// Uses `files` as the rule for files that may hold secrets (the built-in rule by
    /// default; `[permissions] secret_files` adds globs).
    #[must_use]
    pub fn with_secret_files(mut self, files: SecretFiles) -> Self {
        self.secret_files = files;
        self
    }

    /// Which files may hold secrets: reading one is [`Action::ReadSecret`].
    pub fn secret_files(&self) -> &SecretFiles {
        &self.secret_files
    }

    /// Tells the policy whether commands run isolated in their own namespaces (`false` by
    /// default); only then do hone's own checks run without asking in auto-edit.
    pub fn with_commands_isolated(mut self, isolated: bool) -> Self {
        self.commands_isolated = isolated;
        self
    }

    /// The decision for one of hone's own checks (syntax, lint, type and test commands it
    /// detected or the user configured, and the tests-first step): not the model's choice,
    /// so in auto-edit and full-auto it runs without asking once commands are isolated;
    /// `ask` keeps asking, and a denial stays a denial.
    pub fn decide_check(&self, command: &str) -> Decision {
        let decision = self.decide_command(command);
        match decision {
            Decision::Ask { .. }
                if self.commands_isolated
                    && matches!(self.mode, ApprovalMode::AutoEdit | ApprovalMode::FullAuto) =>
            {
                Decision::Allow
            }
            decision => decision,
        }
    }

    /// Tells the policy whether commands run inside the OS sandbox (`false` by default).
    /// Only then does full-auto run, without asking, commands the policy cannot fully see:
    /// a program or script only known at run time (`$RM -rf x`, `eval "$X"`,
    /// `sh -c "$(…)"`), code piped into a shell (`… | base64 -d | sh`), wrappers hone does
    /// not take apart (`strace CMD`), commands that run or write outside the project, and
    /// lines that could not be fully parsed. Without the sandbox they ask in every mode.
    pub fn with_commands_sandboxed(mut self, sandboxed: bool) -> Self {
        self.commands_sandboxed = sandboxed;
        self
    }

    /// Whether commands are known to run inside the OS sandbox.
    pub fn commands_sandboxed(&self) -> bool {
        self.commands_sandboxed
    }

    /// Judges the paths of commands against the project of `guard` (symlinks,
    /// `.honeignore`, nested repositories); see [`CommandPolicy::with_project`].
    pub fn set_project(&mut self, guard: PathGuard) {
        self.commands = std::mem::take(&mut self.commands).with_project(guard);
    }

    /// The current approval mode.
    pub fn mode(&self) -> ApprovalMode {
        self.mode
    }

    /// Switches the approval mode; session grants are kept.
    pub fn set_mode(&mut self, mode: ApprovalMode) {
        self.mode = mode;
    }

    /// The command policy.
    pub fn commands(&self) -> &CommandPolicy {
        &self.commands
    }

    /// What the user granted for this session.
    pub fn grants(&self) -> &SessionGrants {
        &self.grants
    }

    /// Lets `tool` write without asking for the rest of the session (destructive rewrites
    /// still ask). Commands are granted by prefix instead, with [`Self::grant_command_prefix`].
    pub fn grant_tool(&mut self, tool: &str) {
        self.grants.grant_tool(tool);
    }

    /// Lets commands starting with the words of `prefix` run without asking for the rest
    /// of the session. Denied commands stay denied.
    pub fn grant_command_prefix(&mut self, prefix: &str) {
        self.grants.grant_command_prefix(prefix);
    }

    /// Lets the file at `path`, which may hold secrets, be read without asking for the rest
    /// of the session.
    pub fn grant_secret_file(&mut self, path: &str) {
        self.grants.grant_secret_file(path);
    }

    /// What the user's "always for this session" grants for `action` by `tool` (the one
    /// rule for every kind of call), granted; `None` when nothing can be granted.
    pub fn grant_for_session(&mut self, tool: &str, action: &Action<'_>) -> Option<Grant> {
        let grant = crate::grant::grant_for(&self.commands, tool, action)?;
        match &grant {
            Grant::Tool(tool) => self.grant_tool(tool),
            Grant::CommandPrefix(prefix) => self.grant_command_prefix(prefix),
            Grant::SecretFile(path) => self.grant_secret_file(path),
        }
        Some(grant)
    }

    /// Decides whether `tool` may perform `action` now.
    pub fn decide(&self, tool: &str, action: &Action<'_>) -> Decision {
        match *action {
            Action::Read => Decision::Allow,
            Action::ReadSecret { path } if self.grants.covers_secret_file(path) => Decision::Allow,
            Action::ReadSecret { path } => Decision::Ask {
                reason: format!(
                    "`{path}` may hold secrets (keys, passwords), so reading it always needs \
                     approval, in every mode; what you approve is sent to the model"
                ),
            },
            Action::Write { destructive } => self.decide_write(tool, destructive),
            Action::WriteProtected { .. } if self.mode == ApprovalMode::ReadOnly => {
                Decision::Deny {
                    reason: "read-only mode: files are not changed".into(),
                }
            }
            Action::WriteProtected { path, why } => Decision::Ask {
                reason: format!("`{path}` {why}, so changing it always needs approval"),
            },
            Action::Command { command } => self.decide_command(command),
            Action::Check { command } => self.decide_check(command),
            Action::External { trusted } => self.decide_external(tool, trusted),
        }
    }

    /// Outside tools ask like a command the policy does not know: never in read-only mode,
    /// without asking in full-auto, when trusted by the configuration or granted for the
    /// session, else ask.
    fn decide_external(&self, tool: &str, trusted: bool) -> Decision {
        match self.mode {
            ApprovalMode::ReadOnly => Decision::Deny {
                reason: "read-only mode: tools of MCP servers are not run".into(),
            },
            ApprovalMode::FullAuto => Decision::Allow,
            ApprovalMode::Ask | ApprovalMode::AutoEdit
                if trusted || self.grants.covers_tool(tool) =>
            {
                Decision::Allow
            }
            ApprovalMode::Ask | ApprovalMode::AutoEdit => Decision::Ask {
                reason: format!(
                    "`{tool}` is a tool of an MCP server, so calls need approval (`approval = \"allow\"` \
                     in the server's [mcp_servers] entry lets them run)"
                ),
            },
        }
    }

    fn decide_write(&self, tool: &str, destructive: bool) -> Decision {
        let destructive_reason = || Decision::Ask {
            reason: "this change removes more than half of the file, so it always needs approval"
                .into(),
        };
        match self.mode {
            ApprovalMode::ReadOnly => Decision::Deny {
                reason: "read-only mode: files are not changed".into(),
            },
            ApprovalMode::Ask if destructive => destructive_reason(),
            ApprovalMode::Ask if self.grants.covers_tool(tool) => Decision::Allow,
            ApprovalMode::Ask => Decision::Ask {
                reason: format!("ask mode: changes made by `{tool}` need approval"),
            },
            ApprovalMode::AutoEdit if destructive => destructive_reason(),
            ApprovalMode::AutoEdit | ApprovalMode::FullAuto => Decision::Allow,
        }
    }

    fn decide_command(&self, command: &str) -> Decision {
        let analysis = self.commands.analyse(command);
        let verdict = analysis.verdict();
        match (verdict.class, self.mode) {
            (CommandClass::Deny, _) => Decision::Deny {
                reason: verdict.reason,
            },
            (CommandClass::Allow | CommandClass::Ask, ApprovalMode::ReadOnly) => Decision::Deny {
                reason: "read-only mode: commands are not run".into(),
            },
            (
                CommandClass::Allow,
                ApprovalMode::Ask | ApprovalMode::AutoEdit | ApprovalMode::FullAuto,
            ) => Decision::Allow,
            (CommandClass::Ask, ApprovalMode::FullAuto) => match analysis.unchecked() {
                Some(reason) if !self.commands_sandboxed => Decision::Ask {
                    reason: format!(
                        "{reason}; full-auto runs commands it cannot check only inside the sandbox"
                    ),
                },
                Some(_) | None => Decision::Allow,
            },
            (CommandClass::Ask, ApprovalMode::Ask | ApprovalMode::AutoEdit) => {
                match self.grants.uncovered(&analysis, &verdict.reason) {
                    Some(reason) => Decision::Ask { reason },
                    None => Decision::Allow,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
