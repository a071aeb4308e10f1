//! `[sandbox] overlay` and `[sandbox] passthrough`: whether commands run on a
//! copy-on-write view of the project (their changes applied afterwards, and undoable), and
//! which build-output directories they write straight through.
//!
//! ```toml
//! [sandbox]
//! overlay = true                          # default; false: commands write straight to the
//!                                         # project and hone snapshots it for undo
//! passthrough = ["target", "node_modules"] # the default; relative to the project
//! ```
//!
//! An untrusted project's file may only tighten: `overlay = false` is ignored, and its
//! `passthrough` can only drop directories from the user's list (or the default), not add.

use std::path::{Path, PathBuf};

use hone_sandbox::overlay::{DEFAULT_PASSTHROUGH, valid_passthrough};

use crate::error::ConfigError;
use crate::file::line_and_column;

/// The two keys of one file.
#[derive(Debug, Clone, Default)]
pub(crate) struct CopyOnWriteLayer {
    /// `overlay`.
    pub overlay: Option<bool>,
    /// `passthrough`.
    pub passthrough: Option<Vec<PathBuf>>,
}

/// Checks the `passthrough` entries of `path` (text `text`): plain relative paths, not in
/// `.git` or `.hone`.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    entries: Option<&toml::Spanned<Vec<String>>>,
) -> Result<(), ConfigError> {
    let Some(entries) = entries else {
        return Ok(());
    };
    match entries
        .get_ref()
        .iter()
        .find(|entry| !valid_passthrough(Path::new(entry.as_str())))
    {
        Some(bad) => {
            let (line, column) = line_and_column(text, entries.span().start);
            Err(ConfigError::Parse {
                path: path.to_path_buf(),
                line: Some(line),
                column: Some(column),
                message: format!(
                    "invalid `sandbox.passthrough` entry {bad:?}: give directories inside the \
                     project as plain relative paths (not `.git` or `.hone`)"
                ),
            })
        }
        None => Ok(()),
    }
}

/// The effective values: whether to use the overlay, the directories passed through, and
/// the project settings that were ignored (in words).
pub(crate) fn merge(
    user: &CopyOnWriteLayer,
    project: &CopyOnWriteLayer,
    trusted: bool,
    ignored: &mut Vec<String>,
) -> (bool, Vec<PathBuf>) {
    let mut overlay = user.overlay.unwrap_or(true);
    match project.overlay {
        Some(false) if !trusted && overlay => ignored.push("overlay = false".to_string()),
        Some(wanted) => overlay = wanted,
        None => {}
    }
    let mut passthrough = user.passthrough.clone().unwrap_or_else(|| {
        DEFAULT_PASSTHROUGH
            .iter()
            .map(PathBuf::from)
            .collect::<Vec<_>>()
    });
    if let Some(wanted) = &project.passthrough {
        if trusted {
            for entry in wanted {
                if !passthrough.contains(entry) {
                    passthrough.push(entry.clone());
                }
            }
        } else {
            let added: Vec<String> = wanted
                .iter()
                .filter(|entry| !passthrough.contains(entry))
                .map(|entry| entry.display().to_string())
                .collect();
            if !added.is_empty() {
                ignored.push(format!("passthrough {}", added.join(", ")));
            }
            passthrough.retain(|entry| wanted.contains(entry));
        }
    }
    (overlay, passthrough)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(overlay: Option<bool>, passthrough: Option<&[&str]>) -> CopyOnWriteLayer {
        CopyOnWriteLayer {
            overlay,
            passthrough: passthrough.map(|list| list.iter().map(PathBuf::from).collect()),
        }
    }

    #[test]
    fn the_default_is_the_overlay_with_build_output_passed_through() {
        let mut ignored = Vec::new();
        let (overlay, through) = merge(&layer(None, None), &layer(None, None), false, &mut ignored);
        assert!(overlay);
        assert_eq!(
            through,
            [PathBuf::from("target"), PathBuf::from("node_modules")]
        );
        assert!(ignored.is_empty());
    }

    #[test]
    fn an_untrusted_project_may_only_drop_directories_and_keep_the_overlay() {
        let mut ignored = Vec::new();
        let (overlay, through) = merge(
            &layer(None, None),
            &layer(Some(false), Some(&["target", "src"])),
            false,
            &mut ignored,
        );
        assert!(overlay);
        assert_eq!(through, [PathBuf::from("target")]);
        assert_eq!(ignored, ["overlay = false", "passthrough src"]);
        let mut ignored = Vec::new();
        let (overlay, through) = merge(
            &layer(Some(false), Some(&["dist"])),
            &layer(Some(false), Some(&["dist", "build"])),
            true,
            &mut ignored,
        );
        assert!(!overlay);
        assert_eq!(through, [PathBuf::from("dist"), PathBuf::from("build")]);
        assert!(ignored.is_empty());
    }
}
