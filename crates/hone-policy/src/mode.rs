//! Approval modes: how much runs without asking the user.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::PolicyError;

/// How much hone does without asking (`approval = "…"`, `HONE_APPROVAL`, `--approval`).
/// Denied commands are refused in every mode.
///
/// Variants are ordered from strictest to loosest: `a < b` means `a` asks at least as often
/// as `b`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Reads only: no file changes, no commands.
    ReadOnly,
    /// Reads run automatically; every write and every command not on the allow list asks.
    #[default]
    Ask,
    /// Reads and writes run automatically; commands not on the allow list ask.
    AutoEdit,
    /// Everything runs automatically except what is denied.
    FullAuto,
}

impl ApprovalMode {
    /// Every mode, from the most to the least cautious.
    pub const ALL: [ApprovalMode; 4] = [
        ApprovalMode::ReadOnly,
        ApprovalMode::Ask,
        ApprovalMode::AutoEdit,
        ApprovalMode::FullAuto,
    ];

    /// The mode's name as written in configuration files and flags (`auto-edit`).
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::ReadOnly => "read-only",
            ApprovalMode::Ask => "ask",
            ApprovalMode::AutoEdit => "auto-edit",
            ApprovalMode::FullAuto => "full-auto",
        }
    }

    /// The mode called `name` exactly (no case or `_` folding, unlike [`FromStr`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|mode| mode.as_str() == name)
    }
}

impl fmt::Display for ApprovalMode {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl FromStr for ApprovalMode {
    type Err = PolicyError;

    /// Parses a mode name; case and `_` versus `-` do not matter (`Auto_Edit` is `auto-edit`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let normalised = text.trim().to_ascii_lowercase().replace('_', "-");
        ApprovalMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == normalised)
            .ok_or_else(|| PolicyError::UnknownMode {
                given: text.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_mode_is_ask() {
        assert_eq!(ApprovalMode::default(), ApprovalMode::Ask);
    }

    #[test]
    fn names_round_trip_through_from_str_and_display() {
        for mode in ApprovalMode::ALL {
            assert_eq!(mode.to_string().parse::<ApprovalMode>(), Ok(mode));
        }
        assert_eq!(
            "Auto_Edit".parse::<ApprovalMode>(),
            Ok(ApprovalMode::AutoEdit)
        );
        assert_eq!(
            " full-auto ".parse::<ApprovalMode>(),
            Ok(ApprovalMode::FullAuto)
        );
    }

    #[test]
    fn exact_names_are_ordered_from_strictest_to_loosest() {
        for mode in ApprovalMode::ALL {
            assert_eq!(ApprovalMode::from_name(mode.as_str()), Some(mode));
        }
        assert_eq!(ApprovalMode::from_name("Ask"), None);
        assert!(ApprovalMode::ReadOnly < ApprovalMode::Ask);
        assert!(ApprovalMode::AutoEdit < ApprovalMode::FullAuto);
    }

    #[test]
    fn an_unknown_name_lists_the_valid_ones() {
        let error = "yolo".parse::<ApprovalMode>().unwrap_err();
        let message = error.to_string();
        assert!(message.contains("`yolo`"), "{message}");
        for mode in ApprovalMode::ALL {
            assert!(message.contains(mode.as_str()), "{message}");
        }
    }

    #[test]
    fn serde_uses_kebab_case_names() {
        #[derive(Debug, Serialize, Deserialize, PartialEq)]
        struct File {
            approval: ApprovalMode,
        }
        let parsed: File = toml::from_str("approval = \"read-only\"").unwrap();
        assert_eq!(parsed.approval, ApprovalMode::ReadOnly);
        let written = toml::to_string(&File {
            approval: ApprovalMode::AutoEdit,
        })
        .unwrap();
        assert_eq!(written.trim(), "approval = \"auto-edit\"");
        assert!(toml::from_str::<File>("approval = \"AutoEdit\"").is_err());
    }
}
