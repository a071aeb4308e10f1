//! Whether new content keeps what a file had: every definition with the same text (a pure
//! addition), for `write_file` on a file the model never read.

use super::{CodeMapper, Definition, DefinitionKind};

/// How many losses a refusal lists.
const SHOWN: usize = 5;

/// What `after` would lose or change of `before` (the file `path`): definitions by name,
/// or, without a mapper for the language, lines (`before`'s lines must appear in order in
/// `after`). Empty when `after` only adds.
pub fn lost_definitions(
    mapper: Option<&dyn CodeMapper>,
    path: &str,
    before: &str,
    after: &str,
) -> Vec<String> {
    let parsed = mapper.and_then(|mapper| {
        Some((
            mapper.definitions(path, before)?,
            mapper.definitions(path, after)?,
        ))
    });
    let mut lost = match parsed {
        Some((old, new)) => lost_by_definition(before, &old, after, &new),
        None => lost_lines(before, after),
    };
    lost.truncate(SHOWN);
    lost
}

fn lost_by_definition(
    before: &str,
    old: &[Definition],
    after: &str,
    new: &[Definition],
) -> Vec<String> {
    let mut lost = Vec::new();
    for definition in old {
        let label = if definition.name.is_empty() {
            "a fragment".to_string()
        } else {
            format!("`{}`", definition.name)
        };
        let Some(kept) = new.iter().find(|candidate| {
            candidate.name == definition.name && candidate.kind == definition.kind
        }) else {
            lost.push(format!("{label} (removed)"));
            continue;
        };
        if definition.kind == DefinitionKind::Container {
            for member in &definition.members {
                let same = kept.members.iter().any(|candidate| {
                    candidate.name == member.name
                        && after[candidate.outer.clone()] == before[member.outer.clone()]
                });
                if !same {
                    lost.push(format!(
                        "`{}.{}` (removed or changed)",
                        definition.name, member.name
                    ));
                }
            }
        } else if after[kept.outer.clone()] != before[definition.outer.clone()] {
            lost.push(format!("{label} (changed)"));
        }
    }
    lost
}

fn lost_lines(before: &str, after: &str) -> Vec<String> {
    let mut remaining = after.lines();
    for (number, line) in before.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if !remaining.any(|candidate| candidate.trim_end() == line.trim_end()) {
            return vec![format!(
                "line {} `{}` (removed or changed)",
                number + 1,
                line.trim()
            )];
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_lines_lose_nothing() {
        assert!(lost_definitions(None, "a.txt", "a\nb\n", "a\n\nb\nc\n").is_empty());
    }

    #[test]
    fn a_changed_line_is_named() {
        let lost = lost_definitions(None, "a.txt", "a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(lost, vec!["line 2 `b` (removed or changed)"]);
    }
}
