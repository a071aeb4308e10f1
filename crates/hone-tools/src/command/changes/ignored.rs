//! Which paths a command's changes leave out of the journal: those git ignores (the
//! `.gitignore` files of the project and `.git/info/exclude`) and those `.honeignore`
//! hides from the model.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::Gitignore;

use crate::PathGuard;

/// The ignore rules of one project, read as they are needed.
pub(crate) struct IgnoreRules {
    guard: PathGuard,
    /// Each directory's `.gitignore` (relative directory → its rules, if any).
    per_directory: RefCell<HashMap<PathBuf, Option<Gitignore>>>,
    /// `.git/info/exclude`.
    exclude: Option<Gitignore>,
}

impl IgnoreRules {
    /// The rules of the project `guard` watches.
    pub(crate) fn new(guard: &PathGuard) -> Self {
        let exclude_file = guard.root().join(".git/info/exclude");
        let exclude = exclude_file
            .is_file()
            .then(|| rules(guard.root(), &exclude_file))
            .flatten();
        Self {
            guard: guard.clone(),
            per_directory: RefCell::new(HashMap::new()),
            exclude,
        }
    }

    /// Whether `relative` (a root-relative path, `/`-separated) is ignored.
    pub(crate) fn is_ignored(&self, relative: &str, is_dir: bool) -> bool {
        if self.guard.is_ignored(relative, is_dir) {
            return true;
        }
        let root = self.guard.root();
        let absolute = root.join(relative);
        // The deepest `.gitignore` with a say decides, as in git.
        let mut directory = Path::new(relative).parent();
        while let Some(dir) = directory {
            match self.matched(dir, &absolute, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
            directory = dir.parent();
        }
        self.exclude.as_ref().is_some_and(|exclude| {
            exclude
                .matched_path_or_any_parents(&absolute, is_dir)
                .is_ignore()
        })
    }

    fn matched(&self, dir: &Path, absolute: &Path, is_dir: bool) -> Match<()> {
        let mut cache = self.per_directory.borrow_mut();
        let root = self.guard.root();
        let entry = cache.entry(dir.to_path_buf()).or_insert_with(|| {
            let base = root.join(dir);
            let file = base.join(".gitignore");
            file.is_file().then(|| rules(&base, &file)).flatten()
        });
        match entry {
            Some(rules) => match rules.matched_path_or_any_parents(absolute, is_dir) {
                Match::Ignore(_) => Match::Ignore(()),
                Match::Whitelist(_) => Match::Whitelist(()),
                Match::None => Match::None,
            },
            None => Match::None,
        }
    }
}

/// The rules of the ignore file `file`, matched against paths below `base`.
fn rules(base: &Path, file: &Path) -> Option<Gitignore> {
    let mut builder = ignore::gitignore::GitignoreBuilder::new(base);
    // A line that does not parse is skipped, as git does.
    let _ = builder.add(file);
    builder.build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignore_files_at_every_level_exclude_and_honeignore_decide() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/info")).unwrap();
        std::fs::create_dir_all(root.join("web/src")).unwrap();
        std::fs::write(root.join(".gitignore"), "dist/\n*.log\n").unwrap();
        std::fs::write(root.join("web/.gitignore"), "!keep.log\ncache/\n").unwrap();
        std::fs::write(root.join(".git/info/exclude"), "scratch.txt\n").unwrap();
        std::fs::write(root.join(".honeignore"), ".env\n").unwrap();
        let rules = IgnoreRules::new(&PathGuard::new(root).unwrap());
        for ignored in [
            "dist/app.js",
            "debug.log",
            "web/cache/x",
            "scratch.txt",
            ".env",
            "web/src/trace.log",
        ] {
            assert!(rules.is_ignored(ignored, false), "{ignored}");
        }
        for kept in ["src/main.rs", "web/keep.log", "web/src/app.ts", "README.md"] {
            assert!(!rules.is_ignored(kept, false), "{kept}");
        }
        assert!(rules.is_ignored("dist", true));
    }
}
