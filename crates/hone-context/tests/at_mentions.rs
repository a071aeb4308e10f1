//! `@path` mentions expanded against a real project directory.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_context::at_mentions::{MentionError, expand};
use hone_policy::PathGuard;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src/auth")).unwrap();
    std::fs::write(root.join("src/a.rs"), "fn a() {}\nfn b() {}\n").unwrap();
    std::fs::write(root.join("src/auth/login.rs"), "").unwrap();
    std::fs::write(root.join(".env"), "API_KEY=hunter2\n").unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/out.txt"), "generated\n").unwrap();
    dir
}

fn guard(dir: &tempfile::TempDir) -> PathGuard {
    PathGuard::new(dir.path()).unwrap()
}

#[test]
fn a_mentioned_file_is_attached_with_numbered_lines() {
    let dir = project();
    let expanded = expand(&guard(&dir), "explain @src/a.rs.", 4_000);
    assert!(expanded.problems.is_empty(), "{:?}", expanded.problems);
    assert!(expanded.text.starts_with("explain @src/a.rs."));
    assert!(
        expanded
            .text
            .contains("src/a.rs\n```\n    1  fn a() {}\n    2  fn b() {}\n```"),
        "{}",
        expanded.text
    );
    assert_eq!(expanded.attached.len(), 1);
    assert_eq!(expanded.attached[0].describe(), "src/a.rs (2 lines)");
}

#[test]
fn a_mentioned_directory_attaches_its_listing_without_ignored_entries() {
    let dir = project();
    let expanded = expand(&guard(&dir), "what is in @src/ and @./", 4_000);
    assert!(expanded.problems.is_empty(), "{:?}", expanded.problems);
    assert!(
        expanded
            .text
            .contains("src/ (directory)\n```\na.rs\nauth/\n```"),
        "{}",
        expanded.text
    );
    assert_eq!(expanded.attached[0].describe(), "src/ (2 entries)");
    let root_listing = expanded.text.split("./ (directory)").nth(1).unwrap();
    assert!(
        !root_listing.contains("build/"),
        "git-ignored: {root_listing}"
    );
    assert!(root_listing.contains("src/"));
}

#[test]
fn a_missing_path_is_reported_and_the_prompt_kept() {
    let dir = project();
    let expanded = expand(&guard(&dir), "fix @src/nope.rs", 4_000);
    assert_eq!(expanded.text, "fix @src/nope.rs");
    assert_eq!(
        expanded.problems,
        [MentionError::Missing {
            path: "src/nope.rs".into()
        }]
    );
    assert_eq!(
        expanded.problems[0].to_string(),
        "@src/nope.rs: no such file or directory in the project"
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_project_is_refused() {
    let dir = project();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "top secret\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        dir.path().join("link.txt"),
    )
    .unwrap();
    let expanded = expand(&guard(&dir), "read @link.txt and @../x", 4_000);
    assert!(!expanded.text.contains("top secret"));
    assert!(expanded.attached.is_empty());
    assert_eq!(expanded.problems.len(), 2);
    assert!(
        expanded
            .problems
            .iter()
            .all(|problem| matches!(problem, MentionError::Refused { .. })),
        "{:?}",
        expanded.problems
    );
}

#[test]
fn secret_and_git_ignored_files_are_refused() {
    let dir = project();
    let expanded = expand(&guard(&dir), "use @.env and @build/out.txt", 4_000);
    assert!(!expanded.text.contains("hunter2") && !expanded.text.contains("generated"));
    assert_eq!(
        expanded.problems,
        [
            MentionError::Secret {
                path: ".env".into()
            },
            MentionError::GitIgnored {
                path: "build/out.txt".into()
            }
        ]
    );
}

#[test]
fn configured_secret_globs_are_refused_too() {
    let dir = project();
    std::fs::write(dir.path().join("prod.secret"), "token\n").unwrap();
    let guard = guard(&dir)
        .with_secret_files(hone_policy::SecretFiles::new(&["*.secret".to_string()]).unwrap());
    let expanded = expand(&guard, "use @prod.secret", 4_000);
    assert_eq!(
        expanded.problems,
        [MentionError::Secret {
            path: "prod.secret".into()
        }]
    );
}

#[test]
fn emails_are_not_mentions() {
    let dir = project();
    let expanded = expand(&guard(&dir), "mail a@b.com about src/a.rs", 4_000);
    assert_eq!(expanded.text, "mail a@b.com about src/a.rs");
    assert!(expanded.attached.is_empty() && expanded.problems.is_empty());
}

#[test]
fn a_big_file_is_cut_to_the_budget() {
    let dir = project();
    let big: String = (1..=2_000).map(|n| format!("line number {n}\n")).collect();
    std::fs::write(dir.path().join("big.txt"), big).unwrap();
    let expanded = expand(&guard(&dir), "@big.txt @src/a.rs", 500);
    let attached = &expanded.attached[0];
    assert!(
        attached.count > 10 && attached.count < 2_000,
        "{attached:?}"
    );
    assert!(expanded.text.contains("(cut at line"));
    let tokens = hone_protocol::estimate_tokens(&expanded.text);
    assert!(tokens < 500 + 60, "{tokens}");
    assert!(
        matches!(
            expanded.problems.as_slice(),
            [MentionError::OverBudget { .. }]
        ),
        "{:?}",
        expanded.problems
    );
}
