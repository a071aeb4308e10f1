//! Project instructions: discovery order from the user's file through the repository root
//! down to the working directory, and the size cap.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use hone_context::Instructions;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `outside/AGENTS.md` (above the repository), `repo/.git`, `repo/AGENTS.md`,
/// `repo/HONE.md`, `repo/pkg/AGENTS.md`, `repo/pkg/app/HONE.md`, and a user directory.
fn layout() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    write(&base.join("outside/AGENTS.md"), "not in the repository\n");
    let repo = base.join("outside/repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    write(&repo.join("AGENTS.md"), "root agents\n");
    write(&repo.join("HONE.md"), "root hone\n");
    write(&repo.join("pkg/AGENTS.md"), "package agents\n");
    write(&repo.join("pkg/app/HONE.md"), "app hone\n");
    write(
        &repo.join("pkg/app/src/AGENTS.md"),
        "below the working directory\n",
    );
    let user = base.join("config/hone");
    write(&user.join("AGENTS.md"), "user agents\n");
    (dir, repo.join("pkg/app"), user)
}

/// The repository of the working directory `repo/pkg/app`.
fn root_of(work: &Path) -> std::path::PathBuf {
    work.parent().unwrap().parent().unwrap().to_path_buf()
}

#[test]
fn files_are_found_from_the_user_through_the_root_down_to_the_working_directory() {
    let (_dir, work, user) = layout();
    let found = Instructions::discover(&root_of(&work), &work, Some(&user), 10_000);
    let texts: Vec<&str> = found.files.iter().map(|file| file.text.trim()).collect();
    assert_eq!(
        texts,
        [
            "user agents",
            "root agents",
            "root hone",
            "package agents",
            "app hone"
        ]
    );
    assert!(found.omitted.is_empty());
    let rendered = found.render();
    let shown: Vec<&str> = rendered
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .collect();
    assert_eq!(shown.len(), 5);
    assert!(shown[0].ends_with("config/hone/AGENTS.md"), "{shown:?}");
    assert!(shown[1].ends_with("outside/repo/AGENTS.md"), "{shown:?}");
    assert!(shown[3].ends_with("repo/pkg/AGENTS.md"), "{shown:?}");
    assert_eq!(
        shown[4], "HONE.md",
        "inside the working directory: relative"
    );
    let order: Vec<usize> = [
        "user agents",
        "root agents",
        "root hone",
        "package agents",
        "app hone",
    ]
    .iter()
    .map(|text| rendered.find(text).unwrap())
    .collect();
    assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{rendered}");
}

#[test]
fn the_cap_keeps_the_most_specific_files_and_says_what_was_cut() {
    let (_dir, work, user) = layout();
    // "app hone\n" (9) + "package agents\n" (15) fit in 30; "root hone\n" gets 6 bytes.
    let found = Instructions::discover(&root_of(&work), &work, Some(&user), 30);
    let texts: Vec<(&str, bool)> = found
        .files
        .iter()
        .map(|file| (file.text.as_str(), file.truncated))
        .collect();
    assert_eq!(
        texts,
        [
            ("root h", true),
            ("package agents\n", false),
            ("app hone\n", false)
        ]
    );
    assert_eq!(found.omitted.len(), 2, "the user's and the root AGENTS.md");
    let rendered = found.render();
    assert!(rendered.contains("The rest of"), "{rendered}");
    assert!(rendered.contains("was left out"), "{rendered}");
    let total: usize = found.files.iter().map(|file| file.text.len()).sum();
    assert!(total <= 30);
}

#[test]
fn without_files_nothing_is_rendered() {
    let dir = tempfile::tempdir().unwrap();
    let found = Instructions::discover(dir.path(), dir.path(), None, 1_000);
    assert!(found.is_empty());
    assert_eq!(found.render(), "");
}
