//! "Did you mean": the existing paths closest to one that does not exist.

use crate::files::similarity::name_similarity;
use crate::files::walk::{project_walker, relative_path};
use crate::{ToolContext, ToolError, ToolErrorKind};

/// How many project entries are scored at most (keeps a miss cheap in huge trees).
const MAX_CANDIDATES: usize = 50_000;
/// How many suggestions are returned at most.
const MAX_SUGGESTIONS: usize = 3;

/// Existing project paths (files and directories, root-relative) closest to `missing`,
/// best first: same file name with a matching tail (`path/to/src/store.ts` →
/// `src/store.ts`), then similar names. Empty when nothing is close.
pub fn suggest_paths(context: &ToolContext, missing: &str) -> Vec<String> {
    let wanted = Wanted::new(context, missing);
    if wanted.parts.is_empty() {
        return Vec::new();
    }
    let root = context.root();
    let mut scored: Vec<(f64, String)> = project_walker(context, root)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.depth() > 0)
        .take(MAX_CANDIDATES)
        .filter_map(|entry| {
            let relative = relative_path(root, entry.path());
            wanted.score(&relative).map(|score| (score, relative))
        })
        .collect();
    scored.sort_by(|(a_score, a_path), (b_score, b_path)| {
        b_score
            .total_cmp(a_score)
            .then(a_path.len().cmp(&b_path.len()))
            .then(a_path.cmp(b_path))
    });
    let Some(&(best, _)) = scored.first() else {
        return Vec::new();
    };
    scored
        .into_iter()
        .take_while(|(score, _)| *score >= best - 1.0)
        .take(MAX_SUGGESTIONS)
        .map(|(_, path)| path)
        .collect()
}

/// A [`ToolErrorKind::NotFound`] error for `given` that names the closest existing paths;
/// `hint` (may be empty) says what else the model can do.
pub fn not_found(context: &ToolContext, given: &str, hint: &str) -> ToolError {
    let suggestions = suggest_paths(context, given);
    let mut message = format!("`{given}` does not exist.");
    match suggestions.as_slice() {
        [] => message.push_str(" Use glob_files or list_dir to find the right path."),
        [only] => message.push_str(&format!(" Did you mean `{only}`?")),
        several => {
            let quoted: Vec<String> = several.iter().map(|path| format!("`{path}`")).collect();
            message.push_str(&format!(" Did you mean one of {}?", quoted.join(", ")));
        }
    }
    if !hint.is_empty() {
        message.push(' ');
        message.push_str(hint);
    }
    ToolError::new(ToolErrorKind::NotFound, message)
}

/// The missing path, normalised for comparison.
struct Wanted {
    lower: String,
    parts: Vec<String>,
}

impl Wanted {
    fn new(context: &ToolContext, missing: &str) -> Self {
        let unified = missing.trim().replace('\\', "/");
        let root = context.root().to_string_lossy().replace('\\', "/");
        let relative = unified.strip_prefix(root.as_str()).unwrap_or(&unified);
        let parts: Vec<String> = relative
            .split('/')
            .filter(|part| !part.is_empty() && *part != ".")
            .map(str::to_lowercase)
            .collect();
        Self {
            lower: parts.join("/"),
            parts,
        }
    }

    /// How close `candidate` is; `None` when it is not worth suggesting.
    fn score(&self, candidate: &str) -> Option<f64> {
        let lower = candidate.to_lowercase();
        let parts: Vec<&str> = lower.split('/').collect();
        let name = parts.last().copied().unwrap_or_default();
        let wanted_name = self.parts.last().map(String::as_str).unwrap_or_default();
        let name_score = if name == wanted_name {
            1.0
        } else {
            name_similarity(name, wanted_name)
        };
        let shared_tail = self
            .parts
            .iter()
            .rev()
            .zip(parts.iter().rev())
            .take_while(|(wanted, part)| wanted.as_str() == **part)
            .count();
        if name_score < 0.6 && shared_tail == 0 {
            return None;
        }
        let mut score = 2.0 * name_score + name_similarity(&lower, &self.lower);
        score += 0.5 * shared_tail.min(3) as f64;
        // One path is a tail of the other: an extra or a missing leading directory.
        if shared_tail == parts.len() || shared_tail == self.parts.len() {
            score += 1.0;
        }
        (score >= 2.0).then_some(score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[&str]) -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x\n").unwrap();
        }
        let context = ToolContext::new(dir.path()).unwrap();
        (dir, context)
    }

    #[test]
    fn an_extra_leading_directory_is_recognised() {
        let (_dir, context) = project(&["src/store.ts", "src/main.ts", "README.md"]);
        let suggestions = suggest_paths(&context, "path/to/src/store.ts");
        assert_eq!(
            suggestions.first().map(String::as_str),
            Some("src/store.ts")
        );
    }

    #[test]
    fn a_typo_in_a_directory_or_name_is_recognised() {
        let (_dir, context) = project(&["src/components/Button.tsx", "src/lib.rs"]);
        assert_eq!(
            suggest_paths(&context, "src/componets/Button.tsx"),
            vec!["src/components/Button.tsx"]
        );
        assert_eq!(suggest_paths(&context, "src/lbi.rs"), vec!["src/lib.rs"]);
    }

    #[test]
    fn unrelated_names_are_not_suggested() {
        let (_dir, context) = project(&["src/store.ts"]);
        assert!(suggest_paths(&context, "docs/architecture.md").is_empty());
    }

    #[test]
    fn the_error_names_the_suggestion_and_the_hint() {
        let (_dir, context) = project(&["src/store.ts"]);
        let error = not_found(&context, "store.ts", "To create it, use write_file.");
        assert_eq!(error.kind, ToolErrorKind::NotFound);
        assert!(
            error.message.contains("Did you mean `src/store.ts`?"),
            "{}",
            error.message
        );
        assert!(
            error.message.ends_with("use write_file."),
            "{}",
            error.message
        );
    }
}
