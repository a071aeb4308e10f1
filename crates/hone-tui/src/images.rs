//! Images in the terminal UI: `/image PATH` attaches one to the next message, and a path to
//! an image file pasted into a message (what dropping a file on most terminals types) is
//! attached too. The files are read when the message is sent.

use std::path::Path;

/// The file name endings taken as pictures when pasted (the bytes still decide).
const IMAGE_ENDINGS: [&str; 5] = [".png", ".jpg", ".jpeg", ".webp", ".gif"];

/// The words of `text` that are paths of existing image files (quotes and a `file://`
/// prefix, as terminals paste them, removed), each once.
pub(crate) fn pasted_image_paths(text: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let word = word.trim_matches(|c| c == '\'' || c == '"');
        let word = word.strip_prefix("file://").unwrap_or(word);
        let lower = word.to_ascii_lowercase();
        let looks_like_image = IMAGE_ENDINGS.iter().any(|ending| lower.ends_with(ending));
        // `@name.png` is a mention, attached by the mention rules.
        if !looks_like_image || word.starts_with('@') || paths.iter().any(|seen| seen == word) {
            continue;
        }
        if Path::new(word).is_absolute() && Path::new(word).is_file() {
            paths.push(word.to_string());
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_of_existing_pictures_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let shot = dir.path().join("shot.png");
        std::fs::write(&shot, "x").unwrap();
        let shot = shot.display().to_string();
        let text = format!(
            "why does '{shot}' look wrong? also file://{shot} and {shot} and @logo.png and \
             /nowhere/gone.png and notes.txt"
        );
        assert_eq!(pasted_image_paths(&text), [shot]);
        assert!(pasted_image_paths("fix src/a.png handling").is_empty());
    }
}
