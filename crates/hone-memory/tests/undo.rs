//! Undo against real files: across a reopened store, all or nothing, refused on conflicts,
//! and pending entries left by a process killed around a write.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use hone_memory::{NewSession, RevertError, SessionStore, UndoError, undo_latest};
use hone_tools::edit::AppliedEdit;
use hone_tools::{EditPlan, Plan, ToolContext};
use serde_json::json;

struct Project {
    _dir: tempfile::TempDir,
    context: ToolContext,
    key: String,
    store_path: std::path::PathBuf,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(root.join("b.txt"), "beta\n").unwrap();
    let context = ToolContext::new(&root).unwrap();
    let key = hone_memory::project_key(context.root());
    Project {
        store_path: dir.path().join("data/sessions.db"),
        _dir: dir,
        context,
        key,
    }
}

impl Project {
    fn root(&self) -> &Path {
        self.context.root()
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root().join(path)).unwrap()
    }

    /// Plans a call of the built-in tool `name`, as a model that read every file would.
    fn plan(&self, name: &str, arguments: serde_json::Value) -> EditPlan {
        for entry in std::fs::read_dir(self.root()).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                let bytes = std::fs::read(entry.path()).unwrap();
                let name = entry.file_name().to_string_lossy().into_owned();
                self.context
                    .reads()
                    .record(&name, &hone_tools::files::hash_bytes(&bytes));
            }
        }
        let tool = hone_tools::builtin_tools()
            .into_iter()
            .find(|tool| tool.name() == name)
            .unwrap();
        match tool.plan(&self.context, &arguments).unwrap() {
            Plan::Edit(plan) => plan,
            other => panic!("{name} planned {other:?}"),
        }
    }

    /// Rewrites `path` through `write_file` and journals it.
    fn write(&self, store: &mut SessionStore, session: &str, path: &str, content: &str) {
        let plan = self.plan("write_file", json!({"path": path, "content": content}));
        let applied = hone_tools::edit::apply(&self.context, &plan).unwrap();
        store.record_edit(&self.key, session, &applied, 10).unwrap();
    }
}

fn open(project: &Project) -> (SessionStore, String) {
    let mut store = SessionStore::open(&project.store_path).unwrap();
    let session = store
        .create(&NewSession {
            project: project.key.clone(),
            ..NewSession::default()
        })
        .unwrap();
    (store, session.id)
}

#[test]
fn edits_are_undone_after_the_store_is_reopened() {
    let project = project();
    let (mut store, session) = open(&project);
    project.write(&mut store, &session, "a.txt", "ALPHA\n");
    project.write(&mut store, &session, "new.txt", "fresh\n");
    drop(store);

    let mut store = SessionStore::open(&project.store_path).unwrap();
    let context = ToolContext::new(project.root()).unwrap();
    let report = undo_latest(&mut store, &context, 1, 10).unwrap();
    assert_eq!(report.undone.len(), 1);
    assert!(report.undone[0].summary.contains("new.txt"), "{report:?}");
    assert!(!project.root().join("new.txt").exists());
    assert_eq!(project.read("a.txt"), "ALPHA\n");

    let report = undo_latest(&mut store, &context, 5, 10).unwrap();
    assert_eq!(report.undone.len(), 1);
    assert_eq!(project.read("a.txt"), "alpha\n");
    assert!(
        undo_latest(&mut store, &context, 1, 10)
            .unwrap()
            .undone
            .is_empty()
    );
}

#[test]
fn a_file_changed_after_the_edit_is_a_conflict_and_nothing_changes() {
    let project = project();
    let (mut store, session) = open(&project);
    project.write(&mut store, &session, "a.txt", "ALPHA\n");
    project.write(&mut store, &session, "b.txt", "BETA\n");
    // Someone edits a.txt after hone did.
    std::fs::write(project.root().join("a.txt"), "ALPHA by hand\n").unwrap();

    let error = undo_latest(&mut store, &project.context, 2, 10).unwrap_err();
    match &error {
        UndoError::Revert(RevertError::Conflict { summary, detail }) => {
            assert!(summary.contains("a.txt"), "{summary}");
            assert!(detail.contains("a.txt"), "{detail}");
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert!(error.to_string().contains("nothing was changed"), "{error}");
    // b.txt was undone first, then restored when a.txt refused: all or nothing.
    assert_eq!(project.read("b.txt"), "BETA\n");
    assert_eq!(project.read("a.txt"), "ALPHA by hand\n");
    assert_eq!(store.undo_stack(&project.key, 10).unwrap().len(), 2);

    // The newest edit alone can still be undone.
    let report = undo_latest(&mut store, &project.context, 1, 10).unwrap();
    assert_eq!(report.undone.len(), 1);
    assert_eq!(project.read("b.txt"), "beta\n");
}

#[test]
fn the_depth_bounds_what_can_be_undone() {
    let project = project();
    let (mut store, session) = open(&project);
    for round in 0..4 {
        project.write(&mut store, &session, "a.txt", &format!("v{round}\n"));
    }
    let report = undo_latest(&mut store, &project.context, 10, 2).unwrap();
    assert_eq!(report.undone.len(), 2);
    assert_eq!(project.read("a.txt"), "v1\n");
}

#[test]
fn pending_entries_are_resolved_by_looking_at_the_files() {
    let project = project();
    let (mut store, session) = open(&project);
    project.write(&mut store, &session, "a.txt", "ALPHA\n");

    // Killed after journaling, before writing: dropped, and the older edit is undone.
    let never = project.plan("write_file", json!({"path": "b.txt", "content": "BETA\n"}));
    store
        .record_pending(&project.key, &session, &as_applied(&never))
        .unwrap();
    let report = undo_latest(&mut store, &project.context, 1, 10).unwrap();
    assert_eq!(report.discarded, 1);
    assert_eq!(report.undone.len(), 1);
    assert_eq!(project.read("a.txt"), "alpha\n");
    assert_eq!(project.read("b.txt"), "beta\n");

    // Killed after writing, before marking it applied: undone like any edit.
    let written = project.plan("write_file", json!({"path": "b.txt", "content": "BETA\n"}));
    store
        .record_pending(&project.key, &session, &as_applied(&written))
        .unwrap();
    hone_tools::edit::apply(&project.context, &written).unwrap();
    let report = undo_latest(&mut store, &project.context, 1, 10).unwrap();
    assert_eq!((report.undone.len(), report.discarded), (1, 0));
    assert_eq!(project.read("b.txt"), "beta\n");
    assert!(store.undo_stack(&project.key, 10).unwrap().is_empty());
}

fn as_applied(plan: &EditPlan) -> AppliedEdit {
    AppliedEdit {
        changes: plan.changes.clone(),
        summary: plan.summary.clone(),
    }
}

#[test]
fn moves_and_deletions_are_undone() {
    let project = project();
    let (mut store, session) = open(&project);
    for (tool, arguments) in [
        ("move_file", json!({"from": "a.txt", "to": "moved/a.txt"})),
        ("delete_file", json!({"path": "b.txt"})),
    ] {
        let plan = project.plan(tool, arguments);
        let applied = hone_tools::edit::apply(&project.context, &plan).unwrap();
        store
            .record_edit(&project.key, &session, &applied, 10)
            .unwrap();
    }
    assert!(!project.root().join("a.txt").exists());
    assert!(!project.root().join("b.txt").exists());
    let report = undo_latest(&mut store, &project.context, 2, 10).unwrap();
    assert_eq!(report.undone.len(), 2);
    assert_eq!(project.read("a.txt"), "alpha\n");
    assert_eq!(project.read("b.txt"), "beta\n");
    assert!(!project.root().join("moved/a.txt").exists());
}
