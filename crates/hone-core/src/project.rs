//! The project as a face shows it: its files, one file read-only with its outline, and
//! the repository map. Files are read through the tool context's path checks, as the
//! model's `read_file` reads them; files that may hold secrets are refused.

use hone_api::{Event, OutlineItem};
use hone_protocol::HoneError;
use hone_tools::edit::natural::{Definition, DefinitionKind};

use crate::session::Agent;

/// Files listed when the request sets no limit.
const FILES_LISTED: u32 = 5_000;
/// Files larger than this are not shown.
const MAX_SHOWN_BYTES: usize = 2 * 1024 * 1024;

impl Agent {
    /// Handles [`hone_api::Request::ProjectFiles`].
    pub(crate) fn list_project_files(&self, limit: Option<u32>) {
        let max = limit.unwrap_or(FILES_LISTED) as usize;
        let mut files = hone_tools::project::project_files(self.context.guard(), max + 1);
        let truncated = files.len() > max;
        files.truncate(max);
        self.emit(Event::ProjectFiles { files, truncated });
    }

    /// Handles [`hone_api::Request::ReadFile`].
    pub(crate) fn show_file(&self, path: &str) {
        match self.read_for_user(path) {
            Ok(event) => self.emit(event),
            Err(message) => self.emit(Event::Error {
                error: crate::api::error_info(HoneError::validation(message)),
            }),
        }
    }

    fn read_for_user(&self, path: &str) -> Result<Event, String> {
        let guard = self.context.guard();
        let resolved = guard
            .resolve_read(path)
            .map_err(|error| format!("cannot show `{path}`: {error}"))?;
        if guard.is_secret(&resolved.relative) {
            return Err(format!(
                "`{}` may hold secrets: it is not shown (the model reads it only with your \
                 approval)",
                resolved.relative
            ));
        }
        let state = hone_tools::files::read_text(&resolved)
            .map_err(|error| format!("cannot show `{path}`: {error}"))?;
        if state.content.len() > MAX_SHOWN_BYTES {
            return Err(format!(
                "`{}` is too large to show ({} bytes)",
                resolved.relative,
                state.content.len()
            ));
        }
        let outline = self
            .context
            .code_mapper()
            .and_then(|mapper| mapper.definitions(&resolved.relative, &state.content))
            .map(|definitions| {
                let mut items = Vec::new();
                outline(&definitions, &state.content, 0, &mut items);
                items
            })
            .unwrap_or_default();
        Ok(Event::FileContent {
            path: resolved.relative,
            content: state.content,
            outline,
        })
    }

    /// Handles [`hone_api::Request::RepoMap`].
    pub(crate) fn show_repo_map(&self) {
        self.emit(Event::RepoMap {
            map: self.repo_map.clone(),
        });
    }
}

/// `definitions` (and their members, one level deeper) as outline items.
fn outline(definitions: &[Definition], source: &str, depth: u32, items: &mut Vec<OutlineItem>) {
    for definition in definitions {
        if !definition.name.is_empty() {
            let start = definition.inner.start.min(source.len());
            let line = source.as_bytes()[..start]
                .iter()
                .filter(|byte| **byte == b'\n')
                .count()
                + 1;
            items.push(OutlineItem {
                name: definition.name.clone(),
                kind: match definition.kind {
                    DefinitionKind::Function => "function",
                    DefinitionKind::Container => "class",
                    DefinitionKind::Type => "type",
                    DefinitionKind::Field => "field",
                }
                .to_string(),
                line: u32::try_from(line).unwrap_or(u32::MAX),
                depth,
            });
        }
        outline(&definition.members, source, depth + 1, items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition(
        name: &str,
        kind: DefinitionKind,
        at: usize,
        members: Vec<Definition>,
    ) -> Definition {
        Definition {
            name: name.into(),
            kind,
            outer: at..at + 1,
            inner: at..at + 1,
            members,
            insert_at: None,
        }
    }

    #[test]
    fn an_outline_numbers_lines_and_nests_members() {
        let source = "class Cart:\n    def total(self):\n        pass\n\ndef main():\n    pass\n";
        let method = definition("total", DefinitionKind::Function, 16, Vec::new());
        let definitions = vec![
            definition("Cart", DefinitionKind::Container, 0, vec![method]),
            definition(
                "main",
                DefinitionKind::Function,
                source.find("def main").unwrap(),
                Vec::new(),
            ),
        ];
        let mut items = Vec::new();
        outline(&definitions, source, 0, &mut items);
        let seen: Vec<(&str, &str, u32, u32)> = items
            .iter()
            .map(|item| {
                (
                    item.name.as_str(),
                    item.kind.as_str(),
                    item.line,
                    item.depth,
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("Cart", "class", 1, 0),
                ("total", "function", 2, 1),
                ("main", "function", 5, 0)
            ]
        );
    }
}
