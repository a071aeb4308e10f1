//! The tools through a face's `WorkspaceFiles` (an editor's buffers): reads see the
//! buffer, writes and undo go to it, the hash guard holds for what it returns, and what it
//! does not hold (binary files, files it declines) stays on disk.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hone_tools::edit::{apply, undo};
use hone_tools::files::WorkspaceFiles;
use hone_tools::{EditPlan, Plan, ToolContext, ToolErrorKind};
use serde_json::{Value, json};
use tempfile::TempDir;

/// Buffers by absolute path; paths without one are read from disk. Writes are recorded.
#[derive(Default)]
struct Buffers {
    open: Mutex<HashMap<PathBuf, String>>,
    reads: Mutex<Vec<PathBuf>>,
    fail_writes: bool,
}

impl WorkspaceFiles for Buffers {
    fn read_text(&self, path: &Path) -> std::io::Result<Option<String>> {
        assert!(path.is_absolute(), "{}", path.display());
        self.reads.lock().unwrap().push(path.to_path_buf());
        Ok(self.open.lock().unwrap().get(path).cloned())
    }

    fn write_text(&self, path: &Path, text: &str) -> std::io::Result<bool> {
        assert!(path.is_absolute(), "{}", path.display());
        if self.fail_writes {
            return Err(std::io::Error::other("the editor refused"));
        }
        self.open
            .lock()
            .unwrap()
            .insert(path.to_path_buf(), text.to_string());
        Ok(true)
    }
}

fn project(files: &[(&str, &[u8])], buffers: Arc<Buffers>) -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        std::fs::write(dir.path().join(path), content).unwrap();
    }
    let context = ToolContext::new(dir.path())
        .unwrap()
        .with_workspace_files(Some(buffers as Arc<dyn WorkspaceFiles>));
    (dir, context)
}

fn absolute(context: &ToolContext, path: &str) -> PathBuf {
    context.root().join(path)
}

fn run(context: &ToolContext, name: &str, arguments: Value) -> Plan {
    hone_tools::builtin_tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap()
        .plan(context, &arguments)
        .unwrap()
}

fn shown(plan: Plan) -> String {
    match plan {
        Plan::Done(output) => output.content,
        other => panic!("expected output, got {other:?}"),
    }
}

fn edit(plan: Plan) -> EditPlan {
    match plan {
        Plan::Edit(plan) => plan,
        other => panic!("expected an edit, got {other:?}"),
    }
}

#[test]
fn read_file_shows_the_unsaved_buffer_not_the_disk() {
    let buffers = Arc::new(Buffers::default());
    let (_dir, context) = project(&[("a.txt", b"on disk\n")], Arc::clone(&buffers));
    buffers
        .open
        .lock()
        .unwrap()
        .insert(absolute(&context, "a.txt"), "unsaved buffer\n".into());
    let text = shown(run(&context, "read_file", json!({"path": "a.txt"})));
    assert!(text.contains("unsaved buffer"), "{text}");
    assert!(!text.contains("on disk"), "{text}");
    assert_eq!(
        *buffers.reads.lock().unwrap(),
        [absolute(&context, "a.txt")]
    );
}

#[test]
fn a_file_without_a_buffer_is_read_from_disk() {
    let buffers = Arc::new(Buffers::default());
    let (_dir, context) = project(&[("a.txt", b"on disk\n")], buffers);
    let text = shown(run(&context, "read_file", json!({"path": "a.txt"})));
    assert!(text.contains("on disk"), "{text}");
}

#[test]
fn binary_files_never_go_to_the_face() {
    let buffers = Arc::new(Buffers::default());
    let (_dir, context) = project(&[("b.bin", b"\x7fELF\0\0")], Arc::clone(&buffers));
    let text = shown(run(&context, "read_file", json!({"path": "b.bin"})));
    assert!(text.contains("binary file"), "{text}");
    assert!(buffers.reads.lock().unwrap().is_empty());
}

#[test]
fn edits_are_planned_on_the_buffer_written_to_it_and_undone_in_it() {
    let buffers = Arc::new(Buffers::default());
    let (dir, context) = project(&[("a.txt", b"one\n")], Arc::clone(&buffers));
    let path = absolute(&context, "a.txt");
    buffers
        .open
        .lock()
        .unwrap()
        .insert(path.clone(), "one\ntwo\n".into());
    run(&context, "read_file", json!({"path": "a.txt"}));
    let plan = edit(run(
        &context,
        "edit_file",
        json!({"path": "a.txt", "old_text": "two", "new_text": "three"}),
    ));
    let applied = apply(&context, &plan).unwrap();
    assert_eq!(buffers.open.lock().unwrap()[&path], "one\nthree\n");
    // The disk is the editor's business.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "one\n"
    );
    undo(&context, &applied).unwrap();
    assert_eq!(buffers.open.lock().unwrap()[&path], "one\ntwo\n");
}

#[test]
fn a_buffer_changed_after_the_plan_is_a_conflict() {
    let buffers = Arc::new(Buffers::default());
    let (_dir, context) = project(&[("a.txt", b"one\n")], Arc::clone(&buffers));
    let path = absolute(&context, "a.txt");
    run(&context, "read_file", json!({"path": "a.txt"}));
    let plan = edit(run(
        &context,
        "edit_file",
        json!({"path": "a.txt", "old_text": "one", "new_text": "two"}),
    ));
    buffers
        .open
        .lock()
        .unwrap()
        .insert(path.clone(), "typed in the editor\n".into());
    let error = apply(&context, &plan).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Conflict, "{}", error.message);
    assert_eq!(buffers.open.lock().unwrap()[&path], "typed in the editor\n");
}

#[test]
fn a_write_the_face_refuses_is_an_error_and_nothing_changes() {
    let buffers = Arc::new(Buffers {
        fail_writes: true,
        ..Buffers::default()
    });
    let (dir, context) = project(&[("a.txt", b"one\n")], buffers);
    run(&context, "read_file", json!({"path": "a.txt"}));
    let plan = edit(run(
        &context,
        "edit_file",
        json!({"path": "a.txt", "old_text": "one", "new_text": "two"}),
    ));
    let error = apply(&context, &plan).unwrap_err();
    assert!(
        error.message.contains("the editor refused"),
        "{}",
        error.message
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "one\n"
    );
}
