//! Tab completion of project paths and `@path` mentions (symbols come from the host's
//! code index).

use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// What completes `word`: for an `@path` mention, the project paths (git-ignored ones
/// left out) with the `@` kept; otherwise the paths, and symbols are up to the caller.
pub(crate) fn mentions(root: &Path, word: &str, limit: usize) -> Option<Vec<String>> {
    let partial = word.strip_prefix('@')?;
    let ignore = root_gitignore(root);
    Some(
        paths(root, partial, usize::MAX)
            .into_iter()
            .filter(|path| {
                let is_dir = path.ends_with('/');
                !ignore
                    .matched_path_or_any_parents(path.trim_end_matches('/'), is_dir)
                    .is_ignore()
            })
            .take(limit)
            .map(|path| format!("@{path}"))
            .collect(),
    )
}

/// The project's top `.gitignore` (an empty matcher without one).
fn root_gitignore(root: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(root);
    let file = root.join(".gitignore");
    if file.is_file() {
        let _ = builder.add(file);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// Paths under `root` that complete `word` (root-relative; directories end with `/`).
pub(crate) fn paths(root: &Path, word: &str, limit: usize) -> Vec<String> {
    let (dir, prefix) = match word.rfind('/') {
        Some(index) => (&word[..=index], &word[index + 1..]),
        None => ("", word),
    };
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return Vec::new();
    };
    let mut found: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            if !name.starts_with(prefix) || name == ".git" {
                return None;
            }
            if name.starts_with('.') && !prefix.starts_with('.') {
                return None;
            }
            let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
            Some(format!("{dir}{name}{}", if is_dir { "/" } else { "" }))
        })
        .collect();
    found.sort();
    found.truncate(limit);
    found
}

/// The longest prefix all `candidates` share.
pub(crate) fn common_prefix(candidates: &[String]) -> String {
    let Some(first) = candidates.first() else {
        return String::new();
    };
    let mut end = first.len();
    for other in &candidates[1..] {
        end = first
            .char_indices()
            .zip(other.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((index, c), _)| index + c.len_utf8())
            .min(end);
    }
    first[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_files_and_directories_relative_to_the_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/auth")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
        std::fs::write(dir.path().join("src/.hidden"), "").unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        assert_eq!(paths(dir.path(), "sr", 10), ["src/"]);
        assert_eq!(paths(dir.path(), "src/", 10), ["src/auth/", "src/main.rs"]);
        assert_eq!(paths(dir.path(), "src/m", 10), ["src/main.rs"]);
        assert_eq!(paths(dir.path(), "src/.", 10), ["src/.hidden"]);
        assert!(paths(dir.path(), ".g", 10).is_empty());
        assert!(paths(dir.path(), "nope/x", 10).is_empty());
    }

    #[test]
    fn completes_at_mentions_without_git_ignored_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::create_dir_all(dir.path().join("target")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
        std::fs::write(dir.path().join("secret.log"), "").unwrap();
        std::fs::write(dir.path().join("setup.sh"), "").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "target/\n*.log\n").unwrap();
        assert_eq!(
            mentions(dir.path(), "@s", 10).unwrap(),
            ["@setup.sh", "@src/"]
        );
        assert_eq!(
            mentions(dir.path(), "@src/m", 10).unwrap(),
            ["@src/main.rs"]
        );
        assert!(mentions(dir.path(), "@t", 10).unwrap().is_empty());
        assert_eq!(mentions(dir.path(), "src", 10), None, "not a mention");
    }

    #[test]
    fn common_prefixes() {
        let words = |list: &[&str]| list.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(common_prefix(&words(&["src/auth/", "src/main.rs"])), "src/");
        assert_eq!(common_prefix(&words(&["abc"])), "abc");
        assert_eq!(common_prefix(&[]), "");
        assert_eq!(common_prefix(&words(&["é1", "é2"])), "é");
    }
}
