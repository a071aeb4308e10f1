//! `[logs]`: how large the audit logs under `.hone/logs/` may grow.
//!
//! ```toml
//! [logs]
//! max_mb = 20   # cap of each log with its one rotated copy, in MiB (1 to 10000)
//! ```
//!
//! The project file's value wins over the user file's; it needs no trust.

use std::ops::RangeInclusive;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::file::checked_range;
use crate::load::Config;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};

/// `max_mb` when nothing sets it.
pub const DEFAULT_LOG_MAX_MB: u64 = 20;

/// The values `max_mb` accepts.
pub const LOG_MAX_MB_RANGE: RangeInclusive<u64> = 1..=10_000;

/// `[logs]` as written in a file; the span locates the value for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LogsSection {
    max_mb: Option<Spanned<i64>>,
    /// `max_mb`, checked; filled in by [`validate`].
    #[serde(skip)]
    checked_max_mb: Option<u64>,
}

/// Checks `section`, from the contents `text` of `path`; errors name the file and line.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    section: &mut LogsSection,
) -> Result<(), ConfigError> {
    let Some(value) = &section.max_mb else {
        return Ok(());
    };
    let max_mb = checked_range((path, text), value, &LOG_MAX_MB_RANGE, "logs.max_mb", "MiB")?;
    section.checked_max_mb = Some(max_mb);
    Ok(())
}

/// `[logs]` merged over the files.
#[derive(Debug, Clone, Default)]
pub(crate) struct LogsLayers {
    max_mb: Option<Sourced<u64>>,
}

impl LogsLayers {
    /// Layers `section`, read from `source`, over the files merged so far.
    pub(crate) fn merge(&mut self, section: &LogsSection, source: &Source) {
        if let Some(max_mb) = section.checked_max_mb {
            self.max_mb = Some(Sourced::new(max_mb, source.clone()));
        }
    }
}

impl Config {
    /// How large each audit log may grow with its rotated copy, in bytes (`[logs] max_mb`,
    /// default [`DEFAULT_LOG_MAX_MB`] MiB).
    pub fn log_max_bytes(&self) -> u64 {
        self.logs
            .max_mb
            .as_ref()
            .map_or(DEFAULT_LOG_MAX_MB, |max_mb| max_mb.value)
            * 1024
            * 1024
    }

    /// The `[logs]` values as `hone config show` lists them.
    pub(crate) fn show_logs(&self, values: &mut Vec<ShownValue>) {
        let (value, source) = match &self.logs.max_mb {
            Some(max_mb) => (max_mb.value, max_mb.source.clone()),
            None => (DEFAULT_LOG_MAX_MB, Source::Default),
        };
        values.push(ShownValue {
            section: "logs".to_string(),
            key: "max_mb".to_string(),
            value: value.to_string(),
            source: Some(source),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CliOverrides, ConfigSources};

    fn parse(text: &str) -> Result<LogsSection, ConfigError> {
        let file = crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        )?;
        Ok(file.logs)
    }

    #[test]
    fn max_mb_is_checked_with_its_line() {
        assert_eq!(
            parse("[logs]\nmax_mb = 5\n").unwrap().checked_max_mb,
            Some(5)
        );
        for bad in ["0", "10001", "-1"] {
            match parse(&format!("model = \"m\"\n[logs]\nmax_mb = {bad}\n")) {
                Err(ConfigError::Parse { line, message, .. }) => {
                    assert_eq!(line, Some(3));
                    assert!(message.contains("from 1 to 10000"), "{message}");
                }
                other => panic!("expected a parse error, got {other:?}"),
            }
        }
        assert!(parse("[logs]\nmax = 3\n").is_err());
        assert_eq!(
            parse(crate::EXAMPLE_CONFIG).unwrap().checked_max_mb,
            Some(DEFAULT_LOG_MAX_MB)
        );
    }

    #[test]
    fn the_default_is_twenty_mebibytes_and_a_file_changes_it() {
        let defaults = crate::load(&ConfigSources::default(), &CliOverrides::default()).unwrap();
        assert_eq!(defaults.log_max_bytes(), 20 * 1024 * 1024);
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(&user, "[logs]\nmax_mb = 2\n").unwrap();
        let sources = ConfigSources {
            user_file: Some(user),
            ..ConfigSources::default()
        };
        let config = crate::load(&sources, &CliOverrides::default()).unwrap();
        assert_eq!(config.log_max_bytes(), 2 * 1024 * 1024);
        assert!(config.render_show().contains("max_mb = 2"));
    }
}
