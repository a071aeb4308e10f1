//! hone's permission policy: what a tool call may do without asking.
//!
//! - [`ApprovalMode`]: `read-only`, `ask` (the default), `auto-edit` or `full-auto`.
//! - [`CommandPolicy`]: shell command lines are tokenized and parsed like the shell
//!   would (quotes, `;` `&&` `||` `|`, subshells, `$(…)` and backticks, redirections,
//!   `bash -c`, `env`, `xargs`, `find -exec`…) and every simple command in them is
//!   classified against a built-in deny list (`rm -r`, `sudo`, force pushes, `curl … | sh`,
//!   …), a built-in allow list of read-only commands, and the user's `[permissions]`
//!   `allow` / `deny` rules. Deny wins over everything, in every mode.
//! - [`Permissions`]: combines the mode, the command policy and the approvals given
//!   "always for this session" ([`SessionGrants`]) into a [`Decision`] for an [`Action`];
//!   [`Permissions::grant_for_session`] is the one rule for what "always" grants
//!   ([`Grant`]).
//! - [`PathGuard`]: every path a tool receives is resolved against the project root and
//!   refused when it escapes it (`..`, absolute paths, symlinks), touches `.git/`
//!   internals for writing, or is hidden by `.honeignore`.
//! - [`SecretFiles`]: the files that may hold secrets (`.env`, keys, credentials, configured
//!   globs); reading one is [`Action::ReadSecret`], asked in every mode.
//!
//! | action | read-only | ask | auto-edit | full-auto |
//! |---|---|---|---|---|
//! | read | allow | allow | allow | allow |
//! | read a file that may hold secrets | ask | ask | ask | ask |
//! | write | deny | ask (allow if the tool was granted) | allow | allow |
//! | destructive write | deny | ask | ask | allow |
//! | write to `.hone/`, `AGENTS.md`, `HONE.md` ([`protected_write`]) | deny | ask | ask | ask |
//! | denied command | deny | deny | deny | deny |
//! | allow-listed command | deny | allow | allow | allow |
//! | other command | deny | ask (allow if granted) | ask (allow if granted) | allow |
//! | command the policy cannot see | deny | ask | ask | ask (allow when sandboxed) |
//!
//! A command the policy cannot see is one whose program or script is only known when it
//! runs (`$RM -rf x`, `eval "$X"`, `sh -c "$(…)"`), that runs code piped into a shell
//! (`… | base64 -d | sh`), that goes through a wrapper hone does not take apart
//! (`strace CMD`), that runs or writes outside the project, or a line that could not be
//! fully parsed; see [`Permissions::with_commands_sandboxed`]. Allow-listed readers whose
//! paths leave the project (`cat ~/.ssh/id_rsa`, `git -C ../other`, `git diff --no-index
//! a ../b`) and commands that print the environment (`env`, `printenv`) ask.
//!
//! ```
//! use hone_policy::{Action, ApprovalMode, CommandPolicy, Decision, Permissions};
//!
//! let commands = CommandPolicy::new(&["cargo test".into()], &[])?;
//! let permissions = Permissions::new(ApprovalMode::AutoEdit, commands);
//! let run = |command| permissions.decide("shell", &Action::Command { command });
//! assert_eq!(run("cargo test -p hone-policy"), Decision::Allow);
//! assert!(matches!(run("npm install"), Decision::Ask { .. }));
//! assert!(matches!(run("echo $(sudo id)"), Decision::Deny { .. }));
//! # Ok::<(), hone_policy::PolicyError>(())
//! ```

mod command;
mod decision;
mod error;
mod grant;
mod mode;
mod path;
mod protected;
mod secret;

pub use command::{CommandClass, CommandPolicy, CommandVerdict};
pub use decision::{Action, Decision, Permissions, SessionGrants};
pub use error::PolicyError;
pub use grant::Grant;
pub use mode::ApprovalMode;
pub use path::{PathError, PathGuard, ResolvedPath};
pub use protected::protected_write;
pub use secret::SecretFiles;
