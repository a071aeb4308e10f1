//! Tracked files: pinned by path or glob, shown in full or as an outline, refreshed after
//! they change. Each snapshot is one text block in the conversation; only the newest
//! snapshot of a file is sent.

use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use hone_protocol::Language;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::ContextError;
use crate::outline::{Outliner, outline_with};

/// Files one pattern (or one request) may pin at most.
pub const MAX_TRACKED_FILES: usize = 100;
/// Files larger than this are shown as an outline even in full mode.
pub const MAX_FULL_BYTES: usize = 200 * 1024;
/// How a snapshot block starts.
const SNAPSHOT_OPEN: &str = "<tracked_file path=\"";
/// Bytes looked at to tell binary files apart.
const BINARY_PROBE: usize = 8_000;

pub use hone_api::TrackMode;

/// A pinned file and the hash of its last snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackedFile {
    /// Root-relative path with `/` separators.
    pub path: String,
    /// How it is shown.
    pub mode: TrackMode,
    /// Content hash of the snapshot last put into the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// What a tracked file looks like right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Root-relative path.
    pub path: String,
    /// How it is shown (a large file asked for in full is shown as an outline).
    pub mode: TrackMode,
    /// The content or the outline.
    pub text: String,
    /// Lines of the file.
    pub lines: usize,
    /// Hash of the file's content.
    pub hash: String,
    /// Why the file is shown differently than asked, if it is.
    pub note: Option<String>,
}

impl Snapshot {
    /// The block put into the conversation.
    pub fn block(&self) -> String {
        let note = self
            .note
            .as_deref()
            .map(|note| format!(" note=\"{note}\""))
            .unwrap_or_default();
        format!(
            "{SNAPSHOT_OPEN}{}\" mode=\"{}\" lines=\"{}\"{note}>\n{}\n</tracked_file>",
            self.path,
            self.mode.as_str(),
            self.lines,
            self.text.trim_end_matches('\n')
        )
    }

    /// The section of a `hone context` document: a heading and a fenced block.
    pub fn markdown(&self) -> String {
        let fence = fence_for(&self.text);
        let language = match self.mode {
            TrackMode::Full => Language::fence_name(&self.path),
            TrackMode::Outline => "text",
        };
        let mut out = format!("### {}", self.path);
        if self.mode == TrackMode::Outline {
            out.push_str(" (outline)");
        }
        out.push_str("\n\n");
        if let Some(note) = &self.note {
            out.push_str(&format!("_{note}_\n\n"));
        }
        out.push_str(&format!(
            "{fence}{language}\n{}\n{fence}\n",
            self.text.trim_end_matches('\n')
        ));
        out
    }
}

/// Whether a text block is a tracked-file snapshot.
pub fn is_snapshot(text: &str) -> bool {
    text.starts_with(SNAPSHOT_OPEN)
}

/// The path of a snapshot block.
pub fn snapshot_path(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(SNAPSHOT_OPEN)?;
    rest.split('"').next()
}

/// What replaces an older snapshot of a file that has a newer one.
pub(crate) fn superseded_stub(path: &str) -> String {
    format!(
        "[hone] An older snapshot of the tracked file `{path}` was removed; the newest one is \
         further down."
    )
}

/// What replaces the snapshots of a file that is no longer tracked.
pub(crate) fn untracked_stub(path: &str) -> String {
    format!("[hone] `{path}` is no longer tracked; its snapshot was removed.")
}

/// The files a list of patterns names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// Root-relative paths, sorted, without duplicates.
    pub files: Vec<String>,
    /// Patterns that named no file.
    pub unmatched: Vec<String>,
    /// Whether more files matched than [`MAX_TRACKED_FILES`].
    pub truncated: bool,
}

/// Resolves `patterns` (paths, directories or globs such as `src/**/*.rs`, relative to
/// `root`) to files inside `root`, honouring `.gitignore` for globs and directories.
pub fn resolve(root: &Path, patterns: &[String]) -> Result<Resolved, ContextError> {
    let root = root
        .canonicalize()
        .map_err(|source| ContextError::io(root, source))?;
    let mut resolved = Resolved::default();
    let mut globs: Vec<(String, Glob)> = Vec::new();
    for pattern in patterns {
        let trimmed = pattern.trim().trim_start_matches("./");
        if trimmed.is_empty() {
            continue;
        }
        if is_glob(trimmed) {
            globs.push((pattern.clone(), glob(trimmed)?));
            continue;
        }
        let relative =
            inside(&root, trimmed).ok_or_else(|| ContextError::OutsideRoot(pattern.clone()))?;
        let absolute = root.join(&relative);
        if absolute.is_dir() {
            let directory = relative.trim_end_matches('/');
            globs.push((pattern.clone(), glob(&format!("{directory}/**"))?));
        } else if absolute.is_file() {
            resolved.files.push(relative);
        } else {
            resolved.unmatched.push(pattern.clone());
        }
    }
    if !globs.is_empty() {
        let mut builder = GlobSetBuilder::new();
        for (_, glob) in &globs {
            builder.add(glob.clone());
        }
        let set = builder
            .build()
            .map_err(|error| ContextError::Pattern(error.to_string()))?;
        let matched = walk(&root, &set, globs.len());
        for ((pattern, _), files) in globs.iter().zip(&matched) {
            if files.is_empty() {
                resolved.unmatched.push(pattern.clone());
            }
        }
        resolved.files.extend(matched.into_iter().flatten());
    }
    resolved.files.sort();
    resolved.files.dedup();
    if resolved.files.len() > MAX_TRACKED_FILES {
        resolved.files.truncate(MAX_TRACKED_FILES);
        resolved.truncated = true;
    }
    Ok(resolved)
}

fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

fn glob(pattern: &str) -> Result<Glob, ContextError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|error| ContextError::Pattern(format!("`{pattern}`: {error}")))
}

/// Files under `root` matching each glob of `set` (one list per glob).
fn walk(root: &Path, set: &GlobSet, count: usize) -> Vec<Vec<String>> {
    let mut matched = vec![Vec::new(); count];
    let walker = ignore::WalkBuilder::new(root)
        .require_git(false)
        .add_custom_ignore_filename(".honeignore")
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(relative) = slash_path(relative) else {
            continue;
        };
        for index in set.matches(&relative) {
            matched[index].push(relative.clone());
        }
    }
    matched
}

/// `path` with `/` separators, `None` when it is not valid UTF-8.
fn slash_path(path: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = path
        .components()
        .map(|component| component.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}

/// The root-relative form of `given` when it stays inside `root` (no `..` escape, no
/// absolute path elsewhere, no symlink out).
fn inside(root: &Path, given: &str) -> Option<String> {
    let path = Path::new(given);
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let resolved = match joined.canonicalize() {
        Ok(resolved) => resolved,
        Err(_) => normalize(&joined)?,
    };
    let relative = resolved.strip_prefix(root).ok()?;
    slash_path(relative).filter(|relative| !relative.is_empty())
}

/// `path` with `.` and `..` resolved lexically; `None` when `..` climbs above the start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

/// Reads `path` (root-relative) and renders it in `mode`.
pub fn snapshot(
    root: &Path,
    path: &str,
    mode: TrackMode,
    outliner: Option<&dyn Outliner>,
) -> Result<Snapshot, ContextError> {
    let absolute = root.join(path);
    let bytes = std::fs::read(&absolute).map_err(|source| ContextError::io(&absolute, source))?;
    if bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) {
        return Err(ContextError::Binary(path.to_string()));
    }
    let content = String::from_utf8_lossy(&bytes);
    let hash = hash(&bytes);
    let lines = content.lines().count();
    let (mode, text, note) = match mode {
        TrackMode::Full if bytes.len() > MAX_FULL_BYTES => (
            TrackMode::Outline,
            outline_with(outliner, path, &content),
            Some(format!(
                "{} KB is too large to show in full; outline shown",
                bytes.len() / 1024
            )),
        ),
        TrackMode::Full => (TrackMode::Full, content.into_owned(), None),
        TrackMode::Outline => (
            TrackMode::Outline,
            outline_with(outliner, path, &content),
            None,
        ),
    };
    Ok(Snapshot {
        path: path.to_string(),
        mode,
        text,
        lines,
        hash,
        note,
    })
}

/// Hex SHA-256 prefix of `bytes`, enough to notice a change.
pub(crate) fn hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A backtick fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for character in text.chars() {
        if character == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join("src/a.rs"), "pub fn a() {}\n").unwrap();
        std::fs::write(root.join("src/deep/b.rs"), "fn b() {}\n").unwrap();
        std::fs::write(root.join("src/c.txt"), "c\n").unwrap();
        std::fs::write(root.join("target/x.rs"), "fn x() {}\n").unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("bin.dat"), [0u8, 1, 2]).unwrap();
        dir
    }

    fn patterns(list: &[&str]) -> Vec<String> {
        list.iter().map(|pattern| (*pattern).to_string()).collect()
    }

    #[test]
    fn globs_paths_and_directories_resolve_inside_the_root() {
        let dir = project();
        let resolved = resolve(dir.path(), &patterns(&["src/**/*.rs", "missing.rs"])).unwrap();
        assert_eq!(resolved.files, ["src/a.rs", "src/deep/b.rs"]);
        assert_eq!(resolved.unmatched, ["missing.rs"]);
        let single = resolve(dir.path(), &patterns(&["src/*.rs", "./src/c.txt"])).unwrap();
        assert_eq!(single.files, ["src/a.rs", "src/c.txt"]);
        let directory = resolve(dir.path(), &patterns(&["src/deep"])).unwrap();
        assert_eq!(directory.files, ["src/deep/b.rs"]);
        let ignored = resolve(dir.path(), &patterns(&["**/*.rs"])).unwrap();
        assert!(!ignored.files.iter().any(|file| file.starts_with("target")));
    }

    #[test]
    fn paths_outside_the_root_are_refused() {
        let dir = project();
        for escape in ["../etc/passwd", "/etc/passwd", "src/../../x"] {
            let error = resolve(dir.path(), &patterns(&[escape])).unwrap_err();
            assert!(
                matches!(error, ContextError::OutsideRoot(_)),
                "{escape}: {error}"
            );
        }
    }

    #[test]
    fn snapshots_render_as_blocks_and_markdown() {
        let dir = project();
        let full = snapshot(dir.path(), "src/a.rs", TrackMode::Full, None).unwrap();
        assert_eq!(
            full.block(),
            "<tracked_file path=\"src/a.rs\" mode=\"full\" lines=\"1\">\npub fn a() {}\n</tracked_file>"
        );
        assert!(is_snapshot(&full.block()));
        assert_eq!(snapshot_path(&full.block()), Some("src/a.rs"));
        assert_eq!(
            full.markdown(),
            "### src/a.rs\n\n```rust\npub fn a() {}\n```\n"
        );
        let outline = snapshot(dir.path(), "src/a.rs", TrackMode::Outline, None).unwrap();
        assert_eq!(outline.text, "    1  pub fn a() {}");
        assert_eq!(full.hash, outline.hash);
        let binary = snapshot(dir.path(), "bin.dat", TrackMode::Full, None).unwrap_err();
        assert!(matches!(binary, ContextError::Binary(_)), "{binary}");
    }

    #[test]
    fn fences_outgrow_backticks_in_the_content() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ```rust``` b"), "````");
    }
}
