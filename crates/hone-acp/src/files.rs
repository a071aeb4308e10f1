//! The editor's buffers as hone's workspace files: when the editor offers the `fs`
//! capabilities, the tools read through `fs/read_text_file` (the model sees unsaved
//! changes) and write through `fs/write_text_file` (edits land in the editor's buffers).

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use agent_client_protocol::Client as Editor;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema as acp;
use hone_server::WorkspaceFiles;

/// How long a tool waits for the editor to answer a file request.
const ANSWER_WAIT: Duration = Duration::from_secs(60);

/// What the editor offered in `initialize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FsOffer {
    pub(crate) read: bool,
    pub(crate) write: bool,
}

impl FsOffer {
    pub(crate) fn of(capabilities: &acp::ClientCapabilities) -> Self {
        Self {
            read: capabilities.fs.read_text_file,
            write: capabilities.fs.write_text_file,
        }
    }

    pub(crate) fn any(self) -> bool {
        self.read || self.write
    }
}

/// The files of one ACP session, through the editor. The tools call it from blocking
/// threads; each call is sent from a task of the runtime and waited for here.
pub(crate) struct EditorFiles {
    editor: ConnectionTo<Editor>,
    runtime: tokio::runtime::Handle,
    offer: FsOffer,
    /// The ACP session id, known once hone opened the session (no tool runs before).
    session: Arc<OnceLock<String>>,
}

impl EditorFiles {
    /// Files through `editor` as `offer` allows, for the session named later in `session`.
    /// Must be called on the runtime.
    pub(crate) fn new(
        editor: ConnectionTo<Editor>,
        offer: FsOffer,
        session: Arc<OnceLock<String>>,
    ) -> Self {
        Self {
            editor,
            runtime: tokio::runtime::Handle::current(),
            offer,
            session,
        }
    }

    fn session(&self) -> std::io::Result<String> {
        self.session
            .get()
            .cloned()
            .ok_or_else(|| std::io::Error::other("the editor's session is not open yet"))
    }

    /// Runs `request` on the runtime and waits for its answer.
    fn ask<T: Send + 'static>(
        &self,
        request: impl Future<Output = Result<T, agent_client_protocol::Error>> + Send + 'static,
    ) -> std::io::Result<T> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.runtime.spawn(async move {
            let _ = tx.send(request.await);
        });
        match rx.recv_timeout(ANSWER_WAIT) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(error)) => Err(std::io::Error::other(format!(
                "the editor answered: {}",
                error.message
            ))),
            Err(_) => Err(std::io::Error::other(format!(
                "the editor did not answer within {} s",
                ANSWER_WAIT.as_secs()
            ))),
        }
    }
}

impl WorkspaceFiles for EditorFiles {
    fn read_text(&self, path: &Path) -> std::io::Result<Option<String>> {
        if !self.offer.read {
            return Ok(None);
        }
        let request = acp::ReadTextFileRequest::new(self.session()?, path.to_path_buf());
        let editor = self.editor.clone();
        let response = self.ask(async move { editor.send_request(request).block_task().await })?;
        Ok(Some(response.content))
    }

    fn write_text(&self, path: &Path, text: &str) -> std::io::Result<bool> {
        if !self.offer.write {
            return Ok(false);
        }
        let request =
            acp::WriteTextFileRequest::new(self.session()?, path.to_path_buf(), text.to_string());
        let editor = self.editor.clone();
        self.ask(async move { editor.send_request(request).block_task().await })?;
        Ok(true)
    }
}
