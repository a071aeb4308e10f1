//! Project instructions: `AGENTS.md` and `HONE.md` from the repository root down to the
//! working directory, after the user's own file in the config directory.

use std::path::{Path, PathBuf};

/// Instruction file names, in the order they are read in each directory.
pub const INSTRUCTION_FILES: [&str; 2] = ["AGENTS.md", "HONE.md"];

/// One instruction file as it will be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionFile {
    /// Where it was found.
    pub path: PathBuf,
    /// How its path is shown: relative to the working directory when inside it, else absolute.
    pub shown: String,
    /// Its text (cut when the cap was reached).
    pub text: String,
    /// Whether the text was cut.
    pub truncated: bool,
}

/// The instructions for one working directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Instructions {
    /// Files to show, most general first: the user's, then the repository root's, then each
    /// directory down to the working directory.
    pub files: Vec<InstructionFile>,
    /// Files left out because the cap was reached.
    pub omitted: Vec<PathBuf>,
    /// The cap in bytes.
    pub max_bytes: usize,
    /// Where the user is, relative to the project root, when not at the root (the model is
    /// told, so paths the user writes are read from there).
    pub location: Option<String>,
}

impl Instructions {
    /// Finds the instruction files for `working_dir` in the project at `root` (found by
    /// `hone_tools::project::ProjectPlace`, the one rule for the repository root): the
    /// user's (`AGENTS.md`, `HONE.md` in `user_dir`, e.g. `~/.config/hone`), then those of
    /// every directory from `root` down to `working_dir` (only `working_dir` when it is not
    /// inside `root`). Their total size is capped at `max_bytes`; the most specific files
    /// (deepest directory first, the user's last) get the room first, the others are cut or
    /// left out.
    pub fn discover(
        root: &Path,
        working_dir: &Path,
        user_dir: Option<&Path>,
        max_bytes: usize,
    ) -> Self {
        let canonical = |path: &Path| path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let root = canonical(root);
        let working_dir = canonical(working_dir);
        // The user's own files may be symlinks anywhere; a project's may only point inside
        // the project (a repository could link `AGENTS.md` to `~/.ssh/id_rsa`).
        let mut found: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
        if let Some(user_dir) = user_dir {
            found.extend(files_in(user_dir).into_iter().map(|path| (path, None)));
        }
        let project_dirs = directories(&root, &working_dir);
        let boundary = project_dirs.first().cloned();
        for directory in &project_dirs {
            found.extend(
                files_in(directory)
                    .into_iter()
                    .map(|path| (path, boundary.clone())),
            );
        }
        let mut unique: Vec<(PathBuf, PathBuf)> = Vec::new();
        for (path, boundary) in found {
            let Ok(canonical) = path.canonicalize() else {
                continue;
            };
            if boundary.is_some_and(|boundary| !canonical.starts_with(boundary)) {
                continue;
            }
            if !unique.iter().any(|(_, seen)| *seen == canonical) {
                unique.push((path, canonical));
            }
        }
        let texts: Vec<(PathBuf, String)> = unique
            .into_iter()
            .filter_map(|(path, canonical)| {
                // Regular files only: a FIFO would hang, `/proc` files are no instructions.
                let text = hone_fs::read_to_string_regular(&canonical).ok()?;
                (!text.trim().is_empty()).then_some((path, text))
            })
            .collect();
        let mut left = max_bytes;
        let mut kept: Vec<Option<(String, bool)>> = vec![None; texts.len()];
        for (index, (_, text)) in texts.iter().enumerate().rev() {
            if left == 0 {
                continue;
            }
            if text.len() <= left {
                left -= text.len();
                kept[index] = Some((text.clone(), false));
            } else {
                let cut = floor_char_boundary(text, left);
                left = 0;
                if cut > 0 {
                    kept[index] = Some((text[..cut].to_string(), true));
                }
            }
        }
        let mut instructions = Instructions {
            max_bytes,
            ..Instructions::default()
        };
        for ((path, _), kept) in texts.into_iter().zip(kept) {
            match kept {
                Some((text, truncated)) => instructions.files.push(InstructionFile {
                    shown: shown_path(&path, &working_dir),
                    path,
                    text,
                    truncated,
                }),
                None => instructions.omitted.push(path),
            }
        }
        instructions
    }

    /// Whether there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Where the user is (when not at the root), then the instructions as one section with a
    /// heading per file naming its path.
    pub fn render(&self) -> String {
        let mut out = self
            .location
            .as_deref()
            .map_or_else(String::new, |location| {
                format!(
                    "# Where the user is\n\
                 The user is working in `{location}/` inside the project. Paths the user \
                 writes are relative to `{location}/`; tool paths stay relative to the project \
                 root (the user's `main.rs` is `{location}/main.rs`).\n"
                )
            });
        if self.is_empty() {
            return out;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(
            "# Project instructions\n\
             Instructions from the user and the project, most general first; a later file \
             takes precedence over an earlier one.\n",
        );
        for file in &self.files {
            out.push_str(&format!(
                "\n## {}\n\n{}\n",
                file.shown,
                file.text.trim_end()
            ));
            if file.truncated {
                out.push_str(&format!(
                    "\n[hone] The rest of {} was cut: instructions are limited to {} bytes \
                     (`[context] instructions_max_bytes`).\n",
                    file.shown, self.max_bytes
                ));
            }
        }
        for path in &self.omitted {
            out.push_str(&format!(
                "\n[hone] {} was left out: instructions are limited to {} bytes.\n",
                path.display(),
                self.max_bytes
            ));
        }
        out
    }
}

/// The instruction files present in `directory`, in [`INSTRUCTION_FILES`] order.
fn files_in(directory: &Path) -> Vec<PathBuf> {
    INSTRUCTION_FILES
        .iter()
        .map(|name| directory.join(name))
        .filter(|path| path.is_file())
        .collect()
}

/// The directories from `root` down to `working_dir`; only `working_dir` when it is not
/// inside `root`.
fn directories(root: &Path, working_dir: &Path) -> Vec<PathBuf> {
    let root = if working_dir.starts_with(root) {
        root
    } else {
        working_dir
    };
    let mut chain: Vec<PathBuf> = working_dir
        .ancestors()
        .take_while(|directory| directory.starts_with(root))
        .map(Path::to_path_buf)
        .collect();
    chain.reverse();
    chain
}

fn shown_path(path: &Path, working_dir: &Path) -> String {
    match path.strip_prefix(working_dir) {
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_directories_from_the_root_down_count() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("a/b");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(dir.path().join("a/AGENTS.md"), "parent\n").unwrap();
        std::fs::write(work.join("HONE.md"), "here\n").unwrap();
        // The root is where the user is: the parent's file is outside the project.
        let found = Instructions::discover(&work, &work, None, 1_000);
        let shown: Vec<&str> = found.files.iter().map(|file| file.shown.as_str()).collect();
        assert_eq!(shown, ["HONE.md"]);
        assert_eq!(
            found.render(),
            "# Project instructions\nInstructions from the user and the project, most general \
             first; a later file takes precedence over an earlier one.\n\n## HONE.md\n\nhere\n"
        );
        assert!(Instructions::default().render().is_empty());
    }

    #[test]
    fn project_instruction_files_that_link_outside_are_left_out() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(project.join("sub")).unwrap();
        std::fs::write(dir.path().join("secret.txt"), "canary-secret\n").unwrap();
        symlink("../secret.txt", project.join("AGENTS.md")).unwrap();
        symlink("/proc/self/environ", project.join("HONE.md")).unwrap();
        std::fs::write(project.join("sub/real.md"), "inside\n").unwrap();
        symlink("real.md", project.join("sub/AGENTS.md")).unwrap();
        let found = Instructions::discover(&project, &project.join("sub"), None, 10_000);
        let texts: Vec<&str> = found.files.iter().map(|file| file.text.as_str()).collect();
        assert_eq!(texts, ["inside\n"]);
    }

    #[test]
    fn a_fifo_named_like_an_instruction_file_does_not_hang() {
        let dir = tempfile::tempdir().unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join("AGENTS.md"))
            .status()
            .unwrap();
        assert!(made.success());
        assert!(
            Instructions::discover(dir.path(), dir.path(), None, 1_000)
                .files
                .is_empty()
        );
    }

    #[test]
    fn the_user_s_sub_directory_is_named_even_without_files() {
        let located = Instructions {
            location: Some("src/app".into()),
            ..Instructions::default()
        };
        let text = located.render();
        assert!(text.starts_with("# Where the user is\n"), "{text}");
        assert!(text.contains("relative to `src/app/`"), "{text}");
        assert!(!text.contains("# Project instructions"), "{text}");
        assert_eq!(Instructions::default().render(), "");
    }
}
