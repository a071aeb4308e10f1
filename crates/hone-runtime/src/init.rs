//! `/init`: a first `AGENTS.md` for a project, from its files (languages, layout, entry
//! points) and manifests (build and test commands). The front end proposes it as an edit
//! (`Request::WriteFile`), so it is shown as a diff and approved like any other.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use hone_protocol::Language;
use hone_tools::project::manifest_commands;

/// The file `/init` writes, at the project root.
pub const AGENTS_FILE: &str = "AGENTS.md";
/// Files looked at, at most (a huge tree is summarised from its first files).
const FILES_SEEN: usize = 20_000;
/// Entry points listed, at most.
const ENTRY_POINTS: usize = 12;

/// File names that start a program or a library.
const ENTRY_NAMES: &[&str] = &[
    "main.rs",
    "lib.rs",
    "main.go",
    "main.py",
    "__main__.py",
    "app.py",
    "manage.py",
    "index.ts",
    "index.js",
    "main.ts",
    "main.js",
    "server.ts",
    "server.js",
    "Main.java",
    "main.c",
    "main.cpp",
    "Program.cs",
];

/// The text of a first `AGENTS.md` for the project at `root`: languages by file count,
/// the top-level layout, entry points and the detected commands. Walks the project
/// with its ignore rules (`.gitignore`, `.honeignore`).
pub fn agents_md(root: &Path) -> String {
    let mut languages: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut top: BTreeMap<String, usize> = BTreeMap::new();
    let mut entries: Vec<String> = Vec::new();
    let walk = ignore::WalkBuilder::new(root)
        .add_custom_ignore_filename(".honeignore")
        .build();
    for entry in walk.filter_map(Result::ok).take(FILES_SEEN) {
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let relative = relative.to_string_lossy().replace('\\', "/");
        if relative.starts_with(".hone/") {
            continue;
        }
        if let Some(language) = Language::from_path(&relative) {
            *languages.entry(language.as_str()).or_default() += 1;
        }
        if let Some((dir, _)) = relative.split_once('/') {
            *top.entry(format!("{dir}/")).or_default() += 1;
        }
        let name = relative.rsplit('/').next().unwrap_or(&relative);
        if ENTRY_NAMES.contains(&name) && relative.matches('/').count() <= 3 {
            entries.push(relative);
        }
    }
    entries.sort_by_key(|path| (path.matches('/').count(), path.clone()));
    entries.truncate(ENTRY_POINTS);
    render(root, &languages, &top, &entries)
}

fn render(
    root: &Path,
    languages: &BTreeMap<&'static str, usize>,
    top: &BTreeMap<String, usize>,
    entries: &[String],
) -> String {
    let name = root.file_name().map_or_else(
        || "this project".to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let mut text = format!(
        "# {name}\n\nGuidance for coding agents working in this repository (written by `hone /init`; edit freely).\n"
    );
    let mut by_count: Vec<(&&str, &usize)> = languages.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if !by_count.is_empty() {
        text.push_str("\n## Languages\n\n");
        for (language, count) in by_count {
            let _ = writeln!(text, "- {language} ({count} files)");
        }
    }
    if !top.is_empty() {
        text.push_str("\n## Layout\n\n");
        for (dir, count) in top {
            let _ = writeln!(text, "- `{dir}` ({count} files)");
        }
    }
    if !entries.is_empty() {
        text.push_str("\n## Entry points\n\n");
        for entry in entries {
            let _ = writeln!(text, "- `{entry}`");
        }
    }
    let commands = manifest_commands(root);
    text.push_str("\n## Commands\n\n");
    if commands.is_empty() {
        text.push_str("- No build or test commands were detected; add them here.\n");
    }
    for (kind, command) in commands {
        let _ = writeln!(text, "- {kind}: `{command}`");
    }
    text.push_str(
        "\n## Conventions\n\n- Run the tests after a change and keep them passing.\n- Follow the style of the surrounding code.\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_languages_layout_entry_points_and_commands() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/bin")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(root.join("src/util.rs"), "\n").unwrap();
        std::fs::write(root.join("target/junk.rs"), "\n").unwrap();
        std::fs::write(
            root.join("package.json"),
            r#"{"scripts": {"test": "vitest"}}"#,
        )
        .unwrap();
        std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(root)
            .status()
            .unwrap();
        let text = agents_md(root);
        assert!(text.contains("- rust (2 files)"), "{text}");
        assert!(text.contains("- `src/` (2 files)"), "{text}");
        assert!(!text.contains("target/"), "ignored: {text}");
        assert!(text.contains("- `src/main.rs`"), "{text}");
        assert!(text.contains("- test: `cargo test`"), "{text}");
        assert!(text.contains("- test: `npm test`"), "{text}");
        assert!(!text.contains("npm run build"), "{text}");
    }

    #[test]
    fn without_manifests_it_says_no_commands_were_found() {
        let dir = tempfile::tempdir().unwrap();
        assert!(agents_md(dir.path()).contains("No build or test commands were detected"));
    }
}
