//! `rename_symbol {name, new_name, path?}`: renames an identifier in every project file that
//! uses it — definition, imports, exports and uses — as one change, the way an editor's
//! rename does. Occurrences are whole identifiers (`getUser` does not touch `getUserName`);
//! the change is planned from the files as they are, so the model needs no reads and writes
//! no text that could be inexact.

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::edit::target::{ReadRule, existing_text, modify, plural};
use crate::files::MAX_FILE_BYTES;
use crate::files::walk::{project_walker, relative_path};
use crate::{
    Args, EditPlan, FileChange, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind,
};

const USAGE: &str = "{name, new_name, path?}";

/// Files one rename may change; a larger rename is narrowed with `path`.
const MAX_FILES: usize = 200;

/// `rename_symbol`: one identifier renamed across the project.
pub(crate) struct RenameSymbol;

impl Tool for RenameSymbol {
    fn name(&self) -> &'static str {
        "rename_symbol"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Rename a function, class, method, variable or type everywhere it is \
                          used: every whole-word occurrence of name in the project's files \
                          (definition, imports, exports, calls, comments) becomes new_name, in \
                          one change. No need to read the files first. `path` limits the \
                          rename to a directory or file."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The identifier as it is now."},
                    "new_name": {"type": "string", "description": "The new identifier."},
                    "path": {"type": "string", "description": "Directory or file to rename in; default: the whole project."}
                },
                "required": ["name", "new_name"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), USAGE, arguments)?;
        let name = args.string("name")?;
        let new_name = args.string("new_name")?;
        for (field, value) in [("name", &name), ("new_name", &new_name)] {
            if !is_identifier(value) {
                return Err(ToolError::invalid(format!(
                    "{field} `{value}` is not an identifier; give the bare name (letters, \
                     digits, `_` or `$`, not starting with a digit), without parentheses or a \
                     path"
                )));
            }
        }
        if name == new_name {
            return Err(ToolError::invalid(
                "name and new_name are the same, so nothing would change",
            ));
        }
        let start = match args.opt_string("path")? {
            Some(path) if !path.trim().is_empty() => {
                let resolved = context.guard().resolve_read(&path)?;
                if !resolved.absolute.exists() {
                    return Err(ToolError::new(
                        ToolErrorKind::NotFound,
                        format!(
                            "`{path}` does not exist; give a directory or file inside the \
                             project, or leave out path to rename everywhere"
                        ),
                    ));
                }
                resolved.absolute
            }
            _ => context.root().to_path_buf(),
        };
        let mut candidates: Vec<String> = project_walker(context, &start)
            .build()
            .flatten()
            .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
            .filter(|entry| {
                entry
                    .metadata()
                    .is_ok_and(|metadata| metadata.len() <= MAX_FILE_BYTES)
            })
            .map(|entry| relative_path(context.root(), entry.path()))
            .collect();
        candidates.sort();
        let mut changes: Vec<FileChange> = Vec::new();
        let mut occurrences = 0;
        for relative in candidates {
            let Ok(bytes) = std::fs::read(context.root().join(&relative)) else {
                continue;
            };
            if crate::files::is_binary(&bytes) || !contains_word(&bytes, name.as_bytes()) {
                continue;
            }
            let target = existing_text(context, &relative, ReadRule::IfRead, "")?;
            let (renamed, count) = replace_word(&target.state.content, &name, &new_name);
            if count == 0 {
                continue;
            }
            occurrences += count;
            changes.push(modify(target, renamed)?);
            if changes.len() > MAX_FILES {
                return Err(ToolError::invalid(format!(
                    "`{name}` is used in more than {MAX_FILES} files; rename it one directory at \
                     a time with path"
                )));
            }
        }
        if changes.is_empty() {
            return Err(ToolError::new(
                ToolErrorKind::NotFound,
                format!(
                    "`{name}` does not occur as a whole word in any project file (names are \
                     case-sensitive); check the spelling with search_files"
                ),
            ));
        }
        Ok(Plan::Edit(EditPlan {
            summary: format!(
                "rename `{name}` to `{new_name}`: {} in {}",
                plural(occurrences, "occurrence"),
                plural(changes.len(), "file")
            ),
            changes,
            destructive: None,
        }))
    }
}

/// Whether `text` is an identifier in the C family's sense (with `$`, as JavaScript allows).
pub fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|first| first.is_alphabetic() || first == '_' || first == '$')
        && chars.all(is_identifier_char)
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

/// Whether `word` occurs in `bytes` with no identifier character on either side.
fn contains_word(bytes: &[u8], word: &[u8]) -> bool {
    if word.is_empty() || bytes.len() < word.len() {
        return false;
    }
    (0..=bytes.len() - word.len()).any(|start| {
        bytes[start..].starts_with(word)
            && (start == 0 || !is_identifier_byte(bytes[start - 1]))
            && bytes
                .get(start + word.len())
                .is_none_or(|next| !is_identifier_byte(*next))
    })
}

/// `text` with every whole-word `name` replaced by `new_name`, and how many there were.
fn replace_word(text: &str, name: &str, new_name: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let mut rest = text;
    let mut previous: Option<char> = None;
    while let Some(found) = rest.find(name) {
        let before = rest[..found].chars().next_back().or(previous);
        let after = rest[found + name.len()..].chars().next();
        out.push_str(&rest[..found]);
        if before.is_some_and(is_identifier_char) || after.is_some_and(is_identifier_char) {
            out.push_str(name);
        } else {
            out.push_str(new_name);
            count += 1;
        }
        previous = name.chars().next_back();
        rest = &rest[found + name.len()..];
    }
    out.push_str(rest);
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_identifiers_are_replaced() {
        let (text, count) = replace_word(
            "getUser(); getUserName(); x.getUser; $getUser; getUser_2; (getUser)",
            "getUser",
            "fetchUser",
        );
        assert_eq!(
            text,
            "fetchUser(); getUserName(); x.fetchUser; $getUser; getUser_2; (fetchUser)"
        );
        assert_eq!(count, 3);
    }

    #[test]
    fn adjacent_occurrences_and_unicode_neighbours() {
        let (text, count) = replace_word("a a,a éa aé", "a", "b");
        assert_eq!(text, "b b,b éa aé");
        assert_eq!(count, 3);
        assert!(contains_word(b"x = calc_avg(1)", b"calc_avg"));
        assert!(!contains_word(b"x = calc_avg2(1)", b"calc_avg"));
        assert!(!contains_word(b"ab", b"abc"));
    }

    #[test]
    fn identifiers_are_recognised() {
        for good in ["mean", "_x", "$el", "getUserName", "Ünïcode"] {
            assert!(is_identifier(good), "{good}");
        }
        for bad in ["", "2x", "a-b", "f()", "a.b", "src/x"] {
            assert!(!is_identifier(bad), "{bad}");
        }
    }
}
