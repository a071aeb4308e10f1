//! hone's configuration.
//!
//! Built-in [`PRESETS`] describe every provider kind hone knows; a [`ProviderConfig`]
//! is the resolved settings of one provider instance handed to `hone-providers`.

mod preset;
mod provider;

pub use preset::{
    ANTHROPIC_DEFAULT_VERSION, AZURE_DEFAULT_API_VERSION, AuthStyle, MaxTokensField, PRESETS,
    Preset, ToolMode, WireApi, preset, preset_names,
};
pub use provider::{ApiKey, NetworkConfig, ProviderConfig};
