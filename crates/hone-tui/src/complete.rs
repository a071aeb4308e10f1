//! Tab completion of project paths (symbols come from the host's code index).

use std::path::Path;

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
    fn common_prefixes() {
        let words = |list: &[&str]| list.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(common_prefix(&words(&["src/auth/", "src/main.rs"])), "src/");
        assert_eq!(common_prefix(&words(&["abc"])), "abc");
        assert_eq!(common_prefix(&[]), "");
        assert_eq!(common_prefix(&words(&["é1", "é2"])), "é");
    }
}
