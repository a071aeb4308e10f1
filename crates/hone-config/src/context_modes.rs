//! The `[context]` switches of localisation and the guided flow: `localize` and `mode`.

/// `localize`: whether the code a request names is attached to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LocalizeSetting {
    /// On for the compact prompt profile (small models), off otherwise.
    #[default]
    Auto,
    /// Always.
    On,
    /// Never.
    Off,
}

impl LocalizeSetting {
    /// The name used in configuration files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::On => "on",
            Self::Off => "off",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Self::Auto),
            "on" => Some(Self::On),
            "off" => Some(Self::Off),
            _ => None,
        }
    }
}

/// `mode`: the guided flow (purpose-made steps) or the tool-driven agent loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlowSetting {
    /// Guided for the compact prompt profile, the agent loop otherwise.
    #[default]
    Auto,
    /// Classify each request and run a purpose-made step.
    Guided,
    /// The agent loop for every request.
    Agent,
}

impl FlowSetting {
    /// The name used in configuration files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Guided => "guided",
            Self::Agent => "agent",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Self::Auto),
            "guided" => Some(Self::Guided),
            "agent" => Some(Self::Agent),
            _ => None,
        }
    }
}
