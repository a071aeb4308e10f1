//! Editing a proposal in the user's editor (`$VISUAL`, then `$EDITOR`), for the TUI and
//! `hone exec`'s approval question.

use std::io::Write;

/// Whether an external editor is configured.
pub(crate) fn configured() -> bool {
    editor_command().is_some()
}

fn editor_command() -> Option<String> {
    ["VISUAL", "EDITOR"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
}

/// Opens `content` in the configured editor, else in `fallback`; the edited text, or `None`
/// when there is no editor or it failed. Blocks until the editor exits.
pub fn edit(content: &str, fallback: Option<&str>) -> Option<String> {
    let editor = editor_command().or_else(|| fallback.map(str::to_string))?;
    let mut file = match tempfile_with(content) {
        Ok(file) => file,
        Err(error) => {
            tracing::warn!("cannot create a file for the editor: {error}");
            return None;
        }
    };
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file.path())
        .status();
    match status {
        Ok(status) if status.success() => {
            let _ = file.flush();
            std::fs::read_to_string(file.path()).ok()
        }
        Ok(status) => {
            tracing::info!("the editor exited with {status}");
            None
        }
        Err(error) => {
            tracing::warn!("cannot start the editor `{editor}`: {error}");
            None
        }
    }
}

fn tempfile_with(content: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let mut file = tempfile::Builder::new()
        .prefix("hone-edit-")
        .suffix(".txt")
        .tempfile()?;
    file.write_all(content.as_bytes())?;
    file.flush()?;
    Ok(file)
}
