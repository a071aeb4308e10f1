//! Where hone keeps its data (sessions, downloaded models, input history).

use std::path::PathBuf;

/// The environment variable that moves hone's data directory (used by tests and CI).
pub const DATA_DIR_ENV: &str = "HONE_DATA_DIR";

/// hone's data directory: `$HONE_DATA_DIR` when set and non-empty, else `hone` under the
/// platform's data directory (`~/.local/share/hone` on Linux). `None` when neither exists.
pub fn data_dir() -> Option<PathBuf> {
    data_dir_from(std::env::var_os(DATA_DIR_ENV).map(PathBuf::from))
}

fn data_dir_from(overridden: Option<PathBuf>) -> Option<PathBuf> {
    match overridden {
        Some(dir) if !dir.as_os_str().is_empty() => Some(dir),
        _ => dirs::data_dir().map(|dir| dir.join("hone")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_override_wins_unless_empty() {
        assert_eq!(
            data_dir_from(Some(PathBuf::from("/tmp/hone-data"))),
            Some(PathBuf::from("/tmp/hone-data"))
        );
        let default = data_dir_from(Some(PathBuf::new()));
        assert_eq!(default, dirs::data_dir().map(|dir| dir.join("hone")));
    }
}
