//! Rewinding a session against real files: files and conversation go back together, a file
//! changed since refuses the whole rewind, and a fork keeps the original.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_memory::{
    MemoryError, MessageStats, NewSession, Rewind, RewindFiles, RewindTarget, SessionStore,
    UndoError, rewind,
};
use hone_protocol::Message;
use hone_tools::{Plan, ToolContext};
use serde_json::json;

struct Project {
    _dir: tempfile::TempDir,
    context: ToolContext,
    store: SessionStore,
    session: String,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    let context = ToolContext::new(dir.path()).unwrap();
    let mut store = SessionStore::open_in_memory().unwrap();
    let session = store
        .create(&NewSession {
            project: hone_memory::project_key(context.root()),
            ..NewSession::default()
        })
        .unwrap()
        .id;
    Project {
        _dir: dir,
        context,
        store,
        session,
    }
}

impl Project {
    fn say(&mut self, text: &str) -> i64 {
        self.store
            .append_message(
                &self.session,
                &Message::user(text),
                &MessageStats::default(),
            )
            .unwrap();
        self.store
            .messages(&self.session)
            .unwrap()
            .last()
            .unwrap()
            .created_ms
    }

    /// Rewrites a.txt through `write_file` and journals it.
    fn write(&mut self, content: &str) {
        let bytes = std::fs::read(self.context.root().join("a.txt")).unwrap();
        self.context
            .reads()
            .record("a.txt", &hone_tools::files::hash_bytes(&bytes));
        let tool = hone_tools::builtin_tools()
            .into_iter()
            .find(|tool| tool.name() == "write_file")
            .unwrap();
        let arguments = json!({"path": "a.txt", "content": content});
        let Plan::Edit(plan) = tool.plan(&self.context, &arguments).unwrap() else {
            panic!("write_file planned no edit");
        };
        let applied = hone_tools::edit::apply(&self.context, &plan).unwrap();
        let key = hone_memory::project_key(self.context.root());
        self.store
            .record_edit(&key, &self.session, &applied, 50)
            .unwrap();
    }

    fn read(&self) -> String {
        std::fs::read_to_string(self.context.root().join("a.txt")).unwrap()
    }

    fn rewind(&mut self, rewind: Rewind) -> Result<hone_memory::RewindReport, UndoError> {
        let session = self.session.clone();
        hone_memory::rewind(&mut self.store, &self.context, &session, &rewind, 50)
    }
}

fn to(keep: u64, since_ms: i64) -> Rewind {
    Rewind {
        keep,
        since_ms,
        files: RewindFiles::Restore,
        target: RewindTarget::InPlace,
    }
}

#[test]
fn rewinding_in_place_restores_files_and_cuts_the_conversation() {
    let mut project = project();
    let point = project.say("first");
    project.write("two\n");
    project.say("second");
    let report = project.rewind(to(0, point)).unwrap();
    assert_eq!(report.session.id, project.session);
    assert_eq!(report.undone.len(), 1);
    assert!(project.store.messages(&project.session).unwrap().is_empty());
    assert_eq!(project.read(), "one\n");
}

#[test]
fn a_file_changed_since_refuses_and_changes_nothing() {
    let mut project = project();
    let point = project.say("first");
    project.write("two\n");
    std::fs::write(project.context.root().join("a.txt"), "someone else\n").unwrap();
    let error = project.rewind(to(0, point)).unwrap_err();
    assert!(matches!(error, UndoError::Revert(_)), "{error}");
    assert_eq!(project.store.messages(&project.session).unwrap().len(), 1);
    assert_eq!(project.read(), "someone else\n");
}

#[test]
fn a_fork_keeps_the_original_and_can_leave_files_alone() {
    let mut project = project();
    project.say("first");
    let point = project.say("second");
    project.write("two\n");
    let report = project
        .rewind(Rewind {
            files: RewindFiles::Keep,
            target: RewindTarget::Fork,
            ..to(1, point)
        })
        .unwrap();
    assert_ne!(report.session.id, project.session);
    assert_eq!(
        report.session.forked_from.as_deref(),
        Some(project.session.as_str())
    );
    assert!(report.undone.is_empty());
    assert_eq!(project.store.messages(&report.session.id).unwrap().len(), 1);
    assert_eq!(project.store.messages(&project.session).unwrap().len(), 2);
    assert_eq!(project.read(), "two\n");
}

#[test]
fn an_unknown_session_is_not_found() {
    let mut project = project();
    let context = ToolContext::new(project.context.root()).unwrap();
    let error = rewind(&mut project.store, &context, "NOPE", &to(0, 0), 50).unwrap_err();
    assert!(matches!(
        error,
        UndoError::Store(MemoryError::NotFound { .. })
    ));
}
