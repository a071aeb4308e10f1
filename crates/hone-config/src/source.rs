//! Provenance: where each configuration value came from.

use std::fmt;
use std::path::PathBuf;

/// Where a configuration value came from, as `hone config show` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// hone's built-in default.
    Default,
    /// The built-in preset of that kind.
    Preset(String),
    /// The user configuration file at that path.
    UserFile(PathBuf),
    /// The project configuration file at that path.
    ProjectFile(PathBuf),
    /// A `[profiles.NAME]` entry, defined where `defined_in` says.
    Profile {
        /// Profile name.
        name: String,
        /// The file that defines this value of the profile.
        defined_in: Box<Source>,
    },
    /// The environment variable of that name.
    Env(String),
    /// The command-line flag of that name, e.g. `--model`.
    Cli(String),
    /// A key file named by `api_key_file`.
    KeyFile {
        /// The key file.
        path: PathBuf,
        /// The file whose `api_key_file` names it.
        configured_in: Box<Source>,
    },
    /// The built-in table of known context windows.
    KnownModels,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::Preset(name) => write!(f, "preset {name}"),
            Source::UserFile(path) => write!(f, "user file {}", path.display()),
            Source::ProjectFile(path) => write!(f, "project file {}", path.display()),
            Source::Profile { name, defined_in } => write!(f, "profile {name} ({defined_in})"),
            Source::Env(var) => write!(f, "env {var}"),
            Source::Cli(flag) => f.write_str(flag),
            Source::KeyFile {
                path,
                configured_in,
            } => write!(
                f,
                "file {} (api_key_file in {configured_in})",
                path.display()
            ),
            Source::KnownModels => f.write_str("known-models table"),
        }
    }
}

/// A value together with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sourced<T> {
    /// The value.
    pub(crate) value: T,
    /// Where it came from.
    pub(crate) source: Source,
}

impl<T> Sourced<T> {
    /// `value` from `source`.
    pub(crate) fn new(value: T, source: Source) -> Self {
        Self { value, source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_read_naturally() {
        assert_eq!(
            Source::Env("OPENAI_API_KEY".into()).to_string(),
            "env OPENAI_API_KEY"
        );
        assert_eq!(Source::Cli("--model".into()).to_string(), "--model");
        let profile = Source::Profile {
            name: "fast".into(),
            defined_in: Box::new(Source::UserFile("/u/config.toml".into())),
        };
        assert_eq!(
            profile.to_string(),
            "profile fast (user file /u/config.toml)"
        );
        assert_eq!(Source::Preset("openai".into()).to_string(), "preset openai");
    }
}
