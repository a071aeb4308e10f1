//! The code index as the `[index]` settings set it up: where the database lives and what
//! is ignored on top of the defaults. Shared by the index commands and `hone exec`.

use std::path::Path;

use hone_config::{IndexDatabase, IndexSettings};
use hone_index::scan::DEFAULT_IGNORES;
use hone_index::{IndexOptions, Indexer};
use hone_protocol::HoneError;

/// The indexer options for the project at `root` under `settings`.
pub(crate) fn index_options(
    root: &Path,
    settings: &IndexSettings,
) -> Result<IndexOptions, HoneError> {
    let db_path = match settings.database {
        IndexDatabase::Project => None,
        IndexDatabase::DataDir => Some(settings.database_path(root).ok_or_else(|| {
            HoneError::config(format!(
                "[index] database = \"data-dir\" needs hone's data directory, and there is none: \
                 set {} or HOME, or use database = \"project\"",
                hone_config::DATA_DIR_ENV
            ))
        })?),
    };
    let mut extra_ignores: Vec<String> = DEFAULT_IGNORES.iter().map(ToString::to_string).collect();
    extra_ignores.extend(settings.extra_ignores.iter().cloned());
    Ok(IndexOptions {
        db_path,
        extra_ignores,
        ..IndexOptions::default()
    })
}

/// Opens the index of the project at `root` as `settings` say (not updated yet).
pub(crate) fn open_index(root: &Path, settings: &IndexSettings) -> Result<Indexer, HoneError> {
    let options = index_options(root, settings)?;
    Indexer::open(root, &options).map_err(HoneError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_ignores_come_after_the_defaults() {
        let settings = IndexSettings {
            extra_ignores: vec!["*.gen.ts".to_string()],
            ..IndexSettings::default()
        };
        let options = index_options(Path::new("/p"), &settings).unwrap();
        assert_eq!(options.db_path, None);
        assert_eq!(options.extra_ignores.len(), DEFAULT_IGNORES.len() + 1);
        assert_eq!(options.extra_ignores[0], DEFAULT_IGNORES[0]);
        assert_eq!(options.extra_ignores.last().unwrap(), "*.gen.ts");
    }
}
