//! What a session's context manager starts from: the model's window, `[context]`, the
//! project instructions and the code index's outliner.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hone_config::{Config, ProviderConfig};
use hone_context::{ContextConfig, Instructions, Outliner};
use hone_index::Language;

/// Outlines from the code index's tree-sitter extractors, for the languages it knows.
#[derive(Debug, Clone, Copy, Default)]
pub struct IndexOutliner;

impl Outliner for IndexOutliner {
    fn outline(&self, path: &str, source: &str) -> Option<String> {
        let language = Language::from_path(path)?;
        let outline = hone_index::parse::outline(language, source);
        let rendered = hone_index::repomap::render_file(path, &outline);
        let body = rendered
            .strip_prefix(&format!("{path}:\n"))
            .unwrap_or(&rendered);
        Some(body.trim_end().to_string()).filter(|body| !body.trim().is_empty())
    }
}

/// The model's context window: the provider's `context_window`, else `[context_windows]`
/// or the known-models table.
pub fn context_window(config: &Config, provider: &ProviderConfig) -> Option<u32> {
    provider
        .context_window
        .or_else(|| config.known_context_window(&provider.model))
}

/// The user's own instructions directory: `hone` under the config directory
/// (`~/.config/hone` on Linux).
fn user_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|dir| dir.join("hone"))
}

/// The project instructions for the directory `working_dir` (from the project's `root`
/// down to it) within the configured cap.
pub fn instructions(config: &Config, root: &Path, working_dir: &Path) -> Instructions {
    let max_bytes = config.context_settings().instructions_max_bytes;
    if max_bytes == 0 {
        return Instructions::default();
    }
    Instructions::discover(root, working_dir, user_dir().as_deref(), max_bytes)
}

/// What a session's context manager starts from: the window, `[context]`, the project
/// instructions (read from the root down to `working_dir`, with where the user is when that
/// is not the root) and the index outliner.
pub fn session_context(
    config: &Config,
    window: Option<u32>,
    root: &Path,
    working_dir: &Path,
) -> ContextConfig {
    let mut instructions = instructions(config, root, working_dir);
    instructions.location = working_dir
        .strip_prefix(root)
        .ok()
        .map(|relative| relative.to_string_lossy().replace('\\', "/"))
        .filter(|relative| !relative.is_empty());
    ContextConfig {
        window,
        settings: config.context_settings(),
        instructions,
        outliner: Some(Arc::new(IndexOutliner)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_outliner_shows_signatures_only() {
        let outline = IndexOutliner
            .outline(
                "src/a.rs",
                "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
            )
            .unwrap();
        assert!(outline.contains("add(a: i32, b: i32) -> i32"), "{outline}");
        assert!(!outline.contains("a + b"), "{outline}");
        assert_eq!(IndexOutliner.outline("notes.txt", "text"), None);
    }
}
