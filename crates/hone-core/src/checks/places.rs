//! Where a check's output points: the project files and lines it names, and its absolute
//! project paths made relative.

use std::path::Path;

use hone_policy::PathGuard;

/// `output` with the project's absolute paths made relative (`/tmp/x/src/a.js:3` →
/// `src/a.js:3`; `file:///tmp/x/src/a.js` → `src/a.js`).
pub(super) fn inside_paths(output: &str, root: &Path) -> String {
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut text = output.to_string();
    for root in [canonical.as_path(), root] {
        let Some(root) = root.to_str().filter(|root| root.len() > 1) else {
            continue;
        };
        let prefix = format!("{}/", root.trim_end_matches('/'));
        text = text
            .replace(&format!("file://{prefix}"), "")
            .replace(&prefix, "");
    }
    text
}

/// The text of the project file `path` (relative to the root), or `None` when the guard
/// refuses it (outside the project once symlinks are resolved — a link a repository
/// planted, `test/a.js -> ~/.ssh/id_ed25519`, must not bring an outside file into the
/// request — or hidden by `.honeignore`) or it is not a regular file.
pub(super) fn read_inside(guard: &PathGuard, path: &str) -> Option<String> {
    let resolved = guard.resolve_read(path).ok()?;
    hone_fs::read_to_string_regular(&resolved.absolute).ok()
}

/// Project files and lines named in `output`: `path:line` (compilers, tsc's
/// `path(line,col)`, node's stack frames) and Python's `File "path", line N`.
pub(super) fn places(output: &str, guard: &PathGuard) -> Vec<(String, usize)> {
    let root = guard.root();
    let mut found: Vec<(String, usize)> = Vec::new();
    for line in output.lines() {
        for (path, number) in python_frames(line).into_iter().chain(colon_places(line)) {
            let relative = relative(&path, root);
            if relative.is_empty() || relative.starts_with("..") || relative.contains("/.") {
                continue;
            }
            if !found.contains(&(relative.clone(), number))
                && read_inside(guard, &relative).is_some()
            {
                found.push((relative, number));
            }
        }
    }
    found
}

fn python_frames(line: &str) -> Option<(String, usize)> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (path, rest) = rest.split_once('"')?;
    let rest = rest.trim_start().strip_prefix(", line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((path.to_string(), digits.parse().ok()?))
}

/// `path:line` and `path(line,` occurrences in `line`.
fn colon_places(line: &str) -> Vec<(String, usize)> {
    let mut places = Vec::new();
    for word in line.split(|c: char| c.is_whitespace() || c == '\'' || c == '"' || c == '`') {
        let word = word
            .trim_start_matches(['(', '['])
            .trim_start_matches("file://");
        let Some(split) = word.find([':', '(']) else {
            continue;
        };
        let (path, rest) = word.split_at(split);
        let digits: String = rest[1..].chars().take_while(char::is_ascii_digit).collect();
        let looks_like_file = path.contains('.') && !path.contains("://");
        if looks_like_file && let Ok(number) = digits.parse::<usize>() {
            places.push((path.to_string(), number));
        }
    }
    places
}

/// `path` relative to `root` (absolute paths inside it, or already relative).
fn relative(path: &str, root: &Path) -> String {
    let candidate = Path::new(path);
    if candidate.is_absolute() {
        let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        return candidate
            .strip_prefix(&canonical)
            .or_else(|_| candidate.strip_prefix(root))
            .map(|inside| inside.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    path.trim_start_matches("./").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_places_are_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "fn a() {}\nfn b() { x }\n").unwrap();
        let guard = PathGuard::new(dir.path()).unwrap();
        let found = places(
            "error[E0425]: cannot find value `x`\n --> src/lib.rs:2:10\nsrc/app.ts(4,2): error",
            &guard,
        );
        assert_eq!(found, [("src/lib.rs".to_string(), 2)]);
        assert!(places("see https://example.com:443/x", &guard).is_empty());
    }

    #[test]
    fn project_paths_become_relative_and_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display();
        let output = format!(
            "at {root}/test/a.test.js:6:33\nfile://{root}/lib/a.js:2\n/usr/lib/node/x.js:1\n"
        );
        assert_eq!(
            inside_paths(&output, dir.path()),
            "at test/a.test.js:6:33\nlib/a.js:2\n/usr/lib/node/x.js:1\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_project_and_ignored_files_are_not_read() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "key\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.js"), "one\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("b.js")).unwrap();
        std::fs::write(dir.path().join(".env"), "TOKEN=1\n").unwrap();
        std::fs::write(dir.path().join(".honeignore"), ".env\n").unwrap();
        let guard = PathGuard::new(dir.path()).unwrap();
        assert_eq!(read_inside(&guard, "a.js").as_deref(), Some("one\n"));
        assert_eq!(read_inside(&guard, "b.js"), None);
        assert_eq!(read_inside(&guard, "../x"), None);
        // A file `.honeignore` hides is not shown either.
        assert_eq!(read_inside(&guard, ".env"), None);
        assert_eq!(
            places("at b.js:1\nat a.js:1\nat .env:1", &guard),
            [("a.js".to_string(), 1)]
        );
    }
}
