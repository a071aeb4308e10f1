//! The sandbox modes and their names.

use std::fmt;
use std::str::FromStr;

/// How much a sandboxed command may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SandboxMode {
    /// Writes only under the policy's writable roots (hone passes its private temporary
    /// directory), never in the project.
    ReadOnly,
    /// Writes under the working directory (the project root) and the writable roots.
    WorkspaceWrite,
    /// No sandbox.
    Off,
}

impl SandboxMode {
    /// Every mode, strictest first.
    pub const ALL: [SandboxMode; 3] = [Self::ReadOnly, Self::WorkspaceWrite, Self::Off];

    /// The mode's name in configuration and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
            Self::Off => "off",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// A sandbox mode name that is not one of [`SandboxMode::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox mode `{0}`: expected read-only, workspace-write or off")]
pub struct ParseModeError(pub String);

impl FromStr for SandboxMode {
    type Err = ParseModeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "read-only" | "readonly" => Ok(Self::ReadOnly),
            "workspace-write" => Ok(Self::WorkspaceWrite),
            "off" | "none" => Ok(Self::Off),
            _ => Err(ParseModeError(text.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for mode in SandboxMode::ALL {
            assert_eq!(mode.as_str().parse::<SandboxMode>(), Ok(mode));
        }
    }

    #[test]
    fn spelling_variants_are_accepted_and_unknown_names_refused() {
        assert_eq!("Workspace_Write".parse(), Ok(SandboxMode::WorkspaceWrite));
        assert_eq!("readonly".parse(), Ok(SandboxMode::ReadOnly));
        let error = "strict".parse::<SandboxMode>().unwrap_err();
        assert!(
            error
                .to_string()
                .contains("read-only, workspace-write or off")
        );
    }

    #[test]
    fn modes_are_ordered_strictest_first() {
        assert!(SandboxMode::ReadOnly < SandboxMode::WorkspaceWrite);
        assert!(SandboxMode::WorkspaceWrite < SandboxMode::Off);
    }
}
