//! Putting a block's definitions into a file: each replaces its namesake (a container's
//! members one by one), new ones are added next to them, nothing else is touched.

use std::ops::Range;

use super::intent::{elision, stub_replaces_code};
use super::{Definition, DefinitionKind};

/// A block merged into a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merged {
    /// The file's new content.
    pub(crate) content: String,
    /// What changed, for the model and the summary.
    pub(crate) actions: Vec<String>,
    /// How many of the block's definitions were found in the file.
    pub(crate) matched: usize,
}

/// One replacement in the file.
struct Splice {
    range: Range<usize>,
    text: String,
}

/// Whether `block_definition` has a namesake among `file`'s definitions (what
/// [`merge`] would match).
pub(crate) fn matches(file: &[Definition], block_definition: &Definition) -> bool {
    if block_definition.name.is_empty() {
        return block_definition
            .members
            .iter()
            .any(|member| member_owner(file, member).is_some());
    }
    find(file, block_definition).is_some()
}

fn find<'a>(definitions: &'a [Definition], wanted: &Definition) -> Option<&'a Definition> {
    definitions
        .iter()
        .find(|candidate| candidate.name == wanted.name && candidate.kind == wanted.kind)
}

/// The top-level type of `file` that `member` (a type, not a method or a field, written
/// inside a container) stands for.
fn nested_type<'a>(file: &'a [Definition], member: &Definition) -> Option<&'a Definition> {
    matches!(
        member.kind,
        DefinitionKind::Type | DefinitionKind::Container
    )
    .then(|| find(file, member))
    .flatten()
}

/// The one container of `file` with a member like `member`.
fn member_owner<'a>(file: &'a [Definition], member: &Definition) -> Option<&'a Definition> {
    let mut owners = file.iter().filter(|definition| {
        definition.kind == DefinitionKind::Container && find(&definition.members, member).is_some()
    });
    let owner = owners.next()?;
    owners.next().is_none().then_some(owner)
}

/// Merges the definitions of `block` into `content` (the file `path`).
pub(crate) fn merge(
    path: &str,
    content: &str,
    file: &[Definition],
    block: &str,
    block_definitions: &[Definition],
) -> Result<Merged, String> {
    let mut splices = Vec::new();
    let mut actions = Vec::new();
    let mut matched = 0;
    let mut unmatched = Vec::new();
    let mut last_end: Option<usize> = None;
    for wanted in block_definitions {
        if wanted.kind == DefinitionKind::Container {
            let owner = if wanted.name.is_empty() {
                wanted
                    .members
                    .first()
                    .and_then(|member| member_owner(file, member))
            } else {
                find(file, wanted)
            };
            let Some(owner) = owner else {
                unmatched.push(wanted);
                continue;
            };
            matched += 1;
            last_end = last_end.max(Some(owner.outer.end));
            for member in &wanted.members {
                let existing = find(&owner.members, member);
                // A type written inside the class it stands beside (a Rust struct inside
                // its `impl`) is the file's top-level namesake, not a new member.
                let top = existing
                    .is_none()
                    .then(|| nested_type(file, member))
                    .flatten();
                let splice = if let Some(existing) = existing {
                    let splice = replacement(content, existing, block, member)?;
                    if splice.text != content[splice.range.clone()] {
                        actions.push(format!(
                            "replaced {} `{}` of `{}` in {path}",
                            noun(member.kind, true),
                            member.name,
                            owner.name
                        ));
                    }
                    splice
                } else if let Some(top) = top {
                    let splice = replacement(content, top, block, member)?;
                    if splice.text != content[splice.range.clone()] {
                        actions.push(format!(
                            "replaced {} `{}` in {path}",
                            noun(member.kind, false),
                            member.name
                        ));
                    }
                    splice
                } else {
                    let splice = new_member(path, content, owner, block, member)?;
                    actions.push(format!(
                        "added {} `{}` to `{}` in {path}",
                        noun(member.kind, true),
                        member.name,
                        owner.name
                    ));
                    splice
                };
                splices.push(splice);
            }
            continue;
        }
        let Some(existing) = find(file, wanted) else {
            unmatched.push(wanted);
            continue;
        };
        matched += 1;
        last_end = last_end.max(Some(existing.outer.end));
        let splice = replacement(content, existing, block, wanted)?;
        if splice.text != content[splice.range.clone()] {
            actions.push(format!(
                "replaced {} `{}` in {path}",
                noun(wanted.kind, false),
                wanted.name
            ));
        }
        splices.push(splice);
    }
    if let Some(end) = last_end {
        let gap = if path.ends_with(".py") {
            "\n\n\n"
        } else {
            "\n\n"
        };
        for added in unmatched.iter().filter(|added| !added.name.is_empty()) {
            let text = block_text(block, added);
            if let Some(marker) = elision(&text, "") {
                return Err(elided(&added.name, &marker));
            }
            splices.push(Splice {
                range: end..end,
                text: format!(
                    "{gap}{}",
                    reindent(&text, &line_indent(block, added.outer.start), "")
                ),
            });
            actions.push(format!(
                "added {} `{}` to {path}",
                noun(added.kind, false),
                added.name
            ));
        }
    }
    Ok(Merged {
        content: splice_all(content, splices)?,
        actions,
        matched,
    })
}

/// The block's `wanted` in place of the file's `existing`: with its wrapper (`export`,
/// decorators) when the block wrote one, else the declaration alone, so the file's
/// wrapper stays.
fn replacement(
    content: &str,
    existing: &Definition,
    block: &str,
    wanted: &Definition,
) -> Result<Splice, String> {
    let range = if wanted.outer == wanted.inner {
        existing.inner.clone()
    } else {
        existing.outer.clone()
    };
    let old = &content[range.clone()];
    let new = block_text(block, wanted);
    if let Some(marker) = elision(&new, old) {
        return Err(elided(&wanted.name, &marker));
    }
    if stub_replaces_code(&new, old) {
        return Err(format!(
            "the new `{}` has an empty or placeholder body where the file has code; write its \
             complete body",
            wanted.name
        ));
    }
    let text = reindent(
        &new,
        &line_indent(block, wanted.outer.start),
        &line_indent(content, range.start),
    );
    Ok(Splice { range, text })
}

/// A member the container does not have yet, as lines before its closing brace (or after
/// its indented body).
fn new_member(
    path: &str,
    content: &str,
    owner: &Definition,
    block: &str,
    member: &Definition,
) -> Result<Splice, String> {
    let Some(at) = owner.insert_at else {
        return Err(format!(
            "`{}` in {path} has no body a new member can be added to; add `{}` with \
             edit_file",
            owner.name, member.name
        ));
    };
    let text = block_text(block, member);
    if let Some(marker) = elision(&text, "") {
        return Err(elided(&member.name, &marker));
    }
    let indent = match owner.members.first() {
        Some(first) => line_indent(content, first.outer.start),
        None => {
            let unit = if content.contains("\n\t") {
                "\t"
            } else {
                "    "
            };
            format!("{}{unit}", line_indent(content, owner.outer.start))
        }
    };
    let body = reindent(&text, &line_indent(block, member.outer.start), &indent);
    let separator = if owner.members.is_empty() { "" } else { "\n" };
    let before = if at > 0 && !content[..at].ends_with('\n') {
        "\n"
    } else {
        ""
    };
    Ok(Splice {
        range: at..at,
        text: format!("{before}{separator}{indent}{body}\n"),
    })
}

fn block_text(block: &str, definition: &Definition) -> String {
    block[definition.outer.clone()].to_string()
}

fn elided(name: &str, marker: &str) -> String {
    format!(
        "the code for `{name}` contains `{marker}`, which stands for code it leaves out; \
         write the complete definition (nothing is merged from the file)"
    )
}

fn noun(kind: DefinitionKind, member: bool) -> &'static str {
    match (kind, member) {
        (DefinitionKind::Function, true) => "method",
        (DefinitionKind::Function, false) => "function",
        (DefinitionKind::Container, _) => "class",
        (DefinitionKind::Type, _) => "type",
        (DefinitionKind::Field, _) => "field",
    }
}

/// The leading whitespace of the line holding byte `offset`.
pub(crate) fn line_indent(source: &str, offset: usize) -> String {
    let start = source[..offset]
        .rfind('\n')
        .map_or(0, |newline| newline + 1);
    source[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// `text` (whose first line starts at the definition, later lines indented from `from`)
/// with its later lines moved to `to`.
fn reindent(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (index, line) in text.split('\n').enumerate() {
        if index == 0 {
            out.push_str(line);
            continue;
        }
        out.push('\n');
        if line.trim().is_empty() {
            continue;
        }
        let rest = line.strip_prefix(from).unwrap_or_else(|| line.trim_start());
        out.push_str(to);
        out.push_str(rest);
    }
    out
}

/// `content` with every splice made; the same splice twice (a definition a small model
/// wrote out twice) counts once, and overlapping splices are refused.
fn splice_all(content: &str, mut splices: Vec<Splice>) -> Result<String, String> {
    splices.sort_by_key(|splice| (splice.range.start, splice.range.end));
    splices.dedup_by(|later, earlier| later.range == earlier.range && later.text == earlier.text);
    for pair in splices.windows(2) {
        if pair[1].range.start < pair[0].range.end {
            return Err("two definitions of the reply change the same code".to_string());
        }
    }
    let mut out = content.to_string();
    for splice in splices.iter().rev() {
        out.replace_range(splice.range.clone(), &splice.text);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, kind: DefinitionKind, source: &str, text: &str) -> Definition {
        let start = source.find(text).unwrap();
        Definition {
            name: name.to_string(),
            kind,
            outer: start..start + text.len(),
            inner: start..start + text.len(),
            members: Vec::new(),
            insert_at: None,
        }
    }

    #[test]
    fn a_function_replaces_its_namesake_only() {
        let file = "fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n";
        let block = "fn b() {\n  3\n}\n";
        let merged = merge(
            "x.rs",
            file,
            &[
                def("a", DefinitionKind::Function, file, "fn a() {\n    1\n}"),
                def("b", DefinitionKind::Function, file, "fn b() {\n    2\n}"),
            ],
            block,
            &[def(
                "b",
                DefinitionKind::Function,
                block,
                "fn b() {\n  3\n}",
            )],
        )
        .unwrap();
        assert_eq!(merged.content, "fn a() {\n    1\n}\n\nfn b() {\n  3\n}\n");
        assert_eq!(merged.matched, 1);
        assert_eq!(merged.actions, vec!["replaced function `b` in x.rs"]);
    }

    #[test]
    fn an_identical_definition_changes_nothing() {
        let file = "fn a() {}\n";
        let definitions = [def("a", DefinitionKind::Function, file, "fn a() {}")];
        let merged = merge("x.rs", file, &definitions, file, &definitions).unwrap();
        assert_eq!(merged.content, file);
        assert!(merged.actions.is_empty());
        assert_eq!(merged.matched, 1);
    }

    #[test]
    fn elided_bodies_are_refused() {
        let file = "def a():\n    x = 1\n    return x\n";
        let block = "def a():\n    # ... existing code ...\n    return 2\n";
        let error = merge(
            "x.py",
            file,
            &[def("a", DefinitionKind::Function, file, file.trim_end())],
            block,
            &[def("a", DefinitionKind::Function, block, block.trim_end())],
        )
        .unwrap_err();
        assert!(error.contains("existing code"), "{error}");
    }

    #[test]
    fn reindenting_moves_later_lines_only() {
        assert_eq!(
            reindent("def a():\n  return 1\n\n  x", "", "    "),
            "def a():\n      return 1\n\n      x"
        );
        assert_eq!(reindent("a {\n    b\n  }", "  ", "\t"), "a {\n\t  b\n\t}");
        assert_eq!(line_indent("x\n    def a", 10), "    ");
    }

    #[test]
    fn overlapping_changes_are_refused() {
        let splices = vec![
            Splice {
                range: 0..4,
                text: String::new(),
            },
            Splice {
                range: 2..6,
                text: String::new(),
            },
        ];
        assert!(splice_all("abcdefgh", splices).is_err());
        let twice = |text: &str| Splice {
            range: 0..4,
            text: text.to_string(),
        };
        assert_eq!(
            splice_all("abcdefgh", vec![twice("X"), twice("X")]).unwrap(),
            "Xefgh"
        );
        assert!(splice_all("abcdefgh", vec![twice("X"), twice("Y")]).is_err());
    }
}
