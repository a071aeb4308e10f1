//! The documents the editor has open: their text with unsaved edits and their version,
//! kept from `didOpen`, `didChange` and `didClose`, and LSP positions (lines and UTF-16
//! columns) turned into byte offsets and back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tower_lsp_server::ls_types::{Position, TextDocumentContentChangeEvent, Uri};

use crate::lock;

/// One open document.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    /// The text as the editor has it (unsaved edits included).
    pub(crate) text: String,
    /// The editor's version of it.
    pub(crate) version: i32,
    /// The editor's language id (`rust`, `python`, …).
    pub(crate) language: String,
    /// Its path relative to the project root; `None` for a document outside the project,
    /// which hone reads nothing from.
    pub(crate) relative: Option<String>,
}

/// The open documents by URI.
#[derive(Default)]
pub(crate) struct Documents {
    open: Mutex<HashMap<Uri, Document>>,
}

impl Documents {
    /// Records an opened document; `root` decides whether it is in the project.
    pub(crate) fn open(&self, root: &Path, uri: Uri, text: String, version: i32, language: String) {
        let relative = relative_path(root, &uri);
        lock(&self.open).insert(
            uri,
            Document {
                text,
                version,
                language,
                relative,
            },
        );
    }

    /// Applies the editor's changes (full or ranged) to an open document; unknown
    /// documents are ignored. `changed` is then shown the document with the line
    /// (0-based) the last change ends on.
    pub(crate) fn change(
        &self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
        changed: impl FnOnce(&Document, usize),
    ) {
        let mut open = lock(&self.open);
        let Some(document) = open.get_mut(uri) else {
            return;
        };
        let mut edited = 0;
        for change in changes {
            match change.range {
                Some(range) => {
                    let start = offset(&document.text, range.start);
                    let end = offset(&document.text, range.end).max(start);
                    document.text.replace_range(start..end, &change.text);
                    edited = range.start.line as usize + change.text.matches('\n').count();
                }
                None => {
                    edited = first_difference(&document.text, &change.text);
                    document.text = change.text;
                }
            }
        }
        document.version = version;
        changed(document, edited);
    }

    /// Forgets a closed document.
    pub(crate) fn close(&self, uri: &Uri) {
        lock(&self.open).remove(uri);
    }

    /// A copy of an open document.
    pub(crate) fn get(&self, uri: &Uri) -> Option<Document> {
        lock(&self.open).get(uri).cloned()
    }

    /// The text of the open document at `relative` (root-relative), if one is open.
    pub(crate) fn text_of(&self, relative: &str) -> Option<String> {
        lock(&self.open)
            .values()
            .find(|document| document.relative.as_deref() == Some(relative))
            .map(|document| document.text.clone())
    }

    /// The open document at `relative`, with its URI.
    pub(crate) fn find(&self, relative: &str) -> Option<(Uri, Document)> {
        lock(&self.open)
            .iter()
            .find(|(_, document)| document.relative.as_deref() == Some(relative))
            .map(|(uri, document)| (uri.clone(), document.clone()))
    }
}

/// The first line (0-based) where `new` differs from `old`.
fn first_difference(old: &str, new: &str) -> usize {
    old.lines()
        .zip(new.lines())
        .take_while(|(before, after)| before == after)
        .count()
}

/// The root-relative path of `uri` when it is a file inside `root` (symbolic links
/// resolved), else `None`.
pub(crate) fn relative_path(root: &Path, uri: &Uri) -> Option<String> {
    let path = uri.to_file_path()?.into_owned();
    let resolved = resolve(&path)?;
    let inside = resolved.strip_prefix(root).ok()?;
    let text = inside.to_str()?.replace('\\', "/");
    (!text.is_empty()).then_some(text)
}

/// `path` with its symbolic links resolved, for a file that may not exist yet (its
/// directory must).
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(found) = path.canonicalize() {
        return Some(found);
    }
    let parent = path.parent()?.canonicalize().ok()?;
    Some(parent.join(path.file_name()?))
}

/// The byte offset of `position` in `text` (LSP columns count UTF-16 units); positions
/// past a line's end or the text's end are clamped.
pub(crate) fn offset(text: &str, position: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        match text[line_start..].find('\n') {
            Some(newline) => line_start += newline + 1,
            None => return text.len(),
        }
    }
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |end| line_start + end);
    let mut units = 0;
    for (index, character) in text[line_start..line_end].char_indices() {
        if units >= position.character {
            return line_start + index;
        }
        units += u32::try_from(character.len_utf16()).unwrap_or(2);
    }
    line_end
}

/// The LSP position of byte `offset` in `text`.
pub(crate) fn position(text: &str, offset: usize) -> Position {
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let character: usize = before[line_start..].chars().map(char::len_utf16).sum();
    Position::new(
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(character).unwrap_or(u32::MAX),
    )
}

/// The largest char boundary at or before `index`.
pub(crate) fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::Range;

    #[test]
    fn positions_count_utf16_units() {
        let text = "héllo\n𝄞x\nend";
        assert_eq!(offset(text, Position::new(0, 2)), 3);
        assert_eq!(offset(text, Position::new(1, 2)), 11);
        assert_eq!(offset(text, Position::new(1, 99)), 12);
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
        assert_eq!(position(text, 11), Position::new(1, 2));
        assert_eq!(position(text, text.len()), Position::new(2, 3));
    }

    #[test]
    fn ranged_and_full_changes_apply() {
        let documents = Documents::default();
        let uri: Uri = "file:///nowhere/a.rs".parse().unwrap();
        documents.open(
            Path::new("/p"),
            uri.clone(),
            "fn a() {}\n".into(),
            1,
            "rust".into(),
        );
        let mut line = usize::MAX;
        documents.change(
            &uri,
            2,
            vec![TextDocumentContentChangeEvent {
                range: Some(Range::new(Position::new(0, 3), Position::new(0, 4))),
                range_length: None,
                text: "main".into(),
            }],
            |_, edited| line = edited,
        );
        assert_eq!(line, 0);
        let document = documents.get(&uri).unwrap();
        assert_eq!(document.text, "fn main() {}\n");
        assert_eq!(document.version, 2);
        assert_eq!(document.relative, None);
        documents.change(
            &uri,
            3,
            vec![TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: "fn main() {}\nx".into(),
            }],
            |document, edited| {
                assert_eq!(document.version, 3);
                line = edited;
            },
        );
        assert_eq!(line, 1, "the first line that differs");
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), 2);
        let unknown: Uri = "file:///nowhere/b.rs".parse().unwrap();
        documents.change(&unknown, 1, Vec::new(), |_, _| panic!("unknown document"));
        assert_eq!(documents.get(&uri).unwrap().text, "fn main() {}\nx");
        documents.close(&uri);
        assert!(documents.get(&uri).is_none());
    }

    #[test]
    fn only_files_inside_the_root_are_in_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        let inside = Uri::from_file_path(root.join("src/a.rs")).unwrap();
        assert_eq!(relative_path(&root, &inside).as_deref(), Some("src/a.rs"));
        let outside = Uri::from_file_path("/etc/hostname").unwrap();
        assert_eq!(relative_path(&root, &outside), None);
        let untitled: Uri = "untitled:Untitled-1".parse().unwrap();
        assert_eq!(relative_path(&root, &untitled), None);
    }
}
