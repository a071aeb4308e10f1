//! `[memory]`: how many edits `undo` can take back.
//!
//! ```toml
//! [memory]
//! undo_depth = 10   # edits per project the undo stack keeps (1 to 100)
//! ```
//!
//! The project file's value wins over the user file's. A project cannot do harm with it, so
//! it needs no trust.

use std::ops::RangeInclusive;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::file::checked_range;
use crate::load::Config;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};

/// `undo_depth` when nothing sets it.
pub const DEFAULT_UNDO_DEPTH: usize = 10;

/// The values `undo_depth` accepts.
pub const UNDO_DEPTH_RANGE: RangeInclusive<usize> = 1..=100;

/// `[memory]` as written in a file; the span locates the value for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MemorySection {
    undo_depth: Option<Spanned<i64>>,
    /// `undo_depth`, checked; filled in by [`validate`].
    #[serde(skip)]
    checked_undo_depth: Option<usize>,
}

/// Checks `section`, from the contents `text` of `path`; errors name the file and line.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    section: &mut MemorySection,
) -> Result<(), ConfigError> {
    let Some(value) = &section.undo_depth else {
        return Ok(());
    };
    let depth = checked_range(
        (path, text),
        value,
        &UNDO_DEPTH_RANGE,
        "memory.undo_depth",
        "a number of edits",
    )?;
    section.checked_undo_depth = Some(depth);
    Ok(())
}

/// `[memory]` merged over the files.
#[derive(Debug, Clone, Default)]
pub(crate) struct MemoryLayers {
    undo_depth: Option<Sourced<usize>>,
}

impl MemoryLayers {
    /// Layers `section`, read from `source`, over the files merged so far.
    pub(crate) fn merge(&mut self, section: &MemorySection, source: &Source) {
        if let Some(depth) = section.checked_undo_depth {
            self.undo_depth = Some(Sourced::new(depth, source.clone()));
        }
    }
}

impl Config {
    /// How many edits per project the undo stack keeps (`[memory] undo_depth`, default
    /// [`DEFAULT_UNDO_DEPTH`]).
    pub fn undo_depth(&self) -> usize {
        self.memory
            .undo_depth
            .as_ref()
            .map_or(DEFAULT_UNDO_DEPTH, |depth| depth.value)
    }

    /// The `[memory]` values as `hone config show` lists them.
    pub(crate) fn show_memory(&self, values: &mut Vec<ShownValue>) {
        values.push(ShownValue {
            section: "memory".to_string(),
            key: "undo_depth".to_string(),
            value: self.undo_depth().to_string(),
            source: Some(
                self.memory
                    .undo_depth
                    .as_ref()
                    .map_or(Source::Default, |depth| depth.source.clone()),
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CliOverrides, ConfigSources};

    fn parse(text: &str) -> Result<MemorySection, ConfigError> {
        let file = crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        )?;
        Ok(file.memory)
    }

    #[test]
    fn undo_depth_is_checked_with_its_line() {
        assert_eq!(
            parse("[memory]\nundo_depth = 25\n")
                .unwrap()
                .checked_undo_depth,
            Some(25)
        );
        for bad in ["0", "101", "-3"] {
            match parse(&format!("model = \"m\"\n[memory]\nundo_depth = {bad}\n")) {
                Err(ConfigError::Parse { line, message, .. }) => {
                    assert_eq!(line, Some(3));
                    assert!(message.contains("from 1 to 100"), "{message}");
                }
                other => panic!("expected a parse error, got {other:?}"),
            }
        }
        assert!(parse("[memory]\ndepth = 3\n").is_err());
        assert_eq!(
            parse(crate::EXAMPLE_CONFIG).unwrap().checked_undo_depth,
            Some(DEFAULT_UNDO_DEPTH)
        );
    }

    #[test]
    fn the_project_file_wins_over_the_user_file() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(&user, "[memory]\nundo_depth = 20\n").unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(project.join(".hone")).unwrap();
        let mut sources = ConfigSources {
            user_file: Some(user),
            ..ConfigSources::default()
        };
        let config = crate::load(&sources, &CliOverrides::default()).unwrap();
        assert_eq!(config.undo_depth(), 20);
        std::fs::write(
            project.join(".hone/config.toml"),
            "[memory]\nundo_depth = 5\n",
        )
        .unwrap();
        sources.project_dir = Some(project);
        let config = crate::load(&sources, &CliOverrides::default()).unwrap();
        assert_eq!(config.undo_depth(), 5);
        let defaults = crate::load(&ConfigSources::default(), &CliOverrides::default()).unwrap();
        assert_eq!(defaults.undo_depth(), DEFAULT_UNDO_DEPTH);
    }
}
