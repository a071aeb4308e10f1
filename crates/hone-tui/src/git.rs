//! The current git branch, read from `.git/HEAD` (no git process).

use std::path::Path;

/// The branch checked out at `root` (or the short commit when detached).
pub fn branch(root: &Path) -> Option<String> {
    let dot_git = root
        .ancestors()
        .map(|dir| dir.join(".git"))
        .find(|path| path.exists())?;
    let git_dir = if dot_git.is_file() {
        // A worktree or submodule: `gitdir: <path>`.
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.strip_prefix("gitdir:")?.trim();
        dot_git.parent()?.join(target)
    } else {
        dot_git
    };
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref:") {
        Some(reference) => {
            let reference = reference.trim();
            Some(
                reference
                    .strip_prefix("refs/heads/")
                    .unwrap_or(reference)
                    .to_string(),
            )
        }
        None => Some(head.chars().take(8).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_branches_detached_heads_and_worktrees() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(branch(&dir.path().join("nested")), None);
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        assert_eq!(
            branch(&dir.path().join("src")).as_deref(),
            Some("feature/x")
        );
        std::fs::write(dir.path().join(".git/HEAD"), "0123456789abcdef\n").unwrap();
        assert_eq!(branch(dir.path()).as_deref(), Some("01234567"));

        let worktree = tempfile::tempdir().unwrap();
        std::fs::write(
            worktree.path().join(".git"),
            format!("gitdir: {}\n", dir.path().join(".git").display()),
        )
        .unwrap();
        assert_eq!(branch(worktree.path()).as_deref(), Some("01234567"));
    }
}
