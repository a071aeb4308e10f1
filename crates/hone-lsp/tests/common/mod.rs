//! An LSP client for the tests: the server runs in process on a pair of pipes, against a
//! scripted fill-in-the-middle server (Ollama's `/api/generate`) and a scripted chat model
//! for the agent turns of code actions.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hone_config::{CliOverrides, ConfigSources};
use hone_runtime::{RuntimeOptions, Unattended};
use hone_server::Server;
use hone_testkit::MockServer;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// `src/main.rs`: the cursor goes on the empty line of `main` (line 4, column 4).
pub const MAIN: &str = "mod geo;\n\nfn main() {\n    let size = geo::area(3, 4);\n    \n}\n";
/// `src/geo.rs`: the definition the index finds for `area`.
pub const GEO: &str = "pub fn area(width: u32, height: u32) -> u32 {\n    width * height\n}\n";

/// A running server and its editor side.
pub struct Lsp {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub fim: MockServer,
    pub chat: MockServer,
    writer: DuplexStream,
    reader: BufReader<DuplexStream>,
    next: u64,
    /// Notifications the server sent, in order.
    pub notifications: Vec<Value>,
    /// The `workspace/applyEdit` requests the server sent (each answered `applied`).
    pub applied: Vec<Value>,
}

/// The configuration naming the scripted fill-in-the-middle server as the completion model.
pub fn fim_config(fim: &MockServer) -> String {
    format!(
        "[roles]\ncompletion = {{ model = \"coder\", provider = \"fim\" }}\n\n\
         [providers.fim]\nkind = \"ollama\"\nbase_url = \"{}\"\n",
        fim.url()
    )
}

fn options(dir: &Path, root: &Path, config_text: &str, chat: &MockServer) -> RuntimeOptions {
    let config = dir.join("config.toml");
    std::fs::write(&config, config_text).unwrap();
    RuntimeOptions {
        sources: ConfigSources {
            user_file: Some(config),
            project_dir: Some(root.to_path_buf()),
            env: [(
                "OPENAI_API_KEY".to_string(),
                "test-key-abcdef123456".to_string(),
            )]
            .into_iter()
            .collect(),
        },
        root: root.to_path_buf(),
        working_dir: None,
        overrides: CliOverrides {
            provider: Some("openai".into()),
            base_url: Some(chat.url()),
            approval: Some("auto-edit".into()),
            sandbox: Some(hone_sandbox::SandboxMode::Off),
            ..CliOverrides::default()
        },
        store_path: Some(dir.join("sessions.db")),
    }
}

impl Lsp {
    /// A project with `src/main.rs` and `src/geo.rs`, a server on it, initialized.
    pub async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/main.rs"), MAIN).unwrap();
        std::fs::write(root.join("src/geo.rs"), GEO).unwrap();
        let fim = MockServer::start().await;
        let config = fim_config(&fim);
        Self::serve(dir, &root, fim, &config).await
    }

    /// A server on the project `root` (inside `dir`) with the configuration `config`,
    /// initialized.
    pub async fn serve(dir: tempfile::TempDir, root: &Path, fim: MockServer, config: &str) -> Self {
        let root = root.canonicalize().unwrap();
        let chat = MockServer::start().await;
        let server: Arc<Server> = Server::open(
            options(dir.path(), &root, config, &chat),
            Arc::new(Unattended),
        )
        .unwrap();
        let (writer, server_input) = tokio::io::duplex(1 << 22);
        let (server_output, reader) = tokio::io::duplex(1 << 22);
        tokio::spawn(hone_lsp::serve_on(server, server_input, server_output));
        let mut lsp = Self {
            dir,
            root,
            fim,
            chat,
            writer,
            reader: BufReader::new(reader),
            next: 0,
            notifications: Vec::new(),
            applied: Vec::new(),
        };
        let init = lsp
            .request("initialize", json!({"capabilities": {}, "processId": null}))
            .await;
        assert_eq!(init["result"]["serverInfo"]["name"], "hone", "{init}");
        lsp.notify("initialized", json!({})).await;
        lsp
    }

    /// The URI of `relative` in the project.
    pub fn uri(&self, relative: &str) -> String {
        format!("file://{}", self.root.join(relative).display())
    }

    pub async fn send(&mut self, message: Value) {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.writer.write_all(frame.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request without waiting; returns its id.
    pub async fn start_request(&mut self, method: &str, params: Value) -> u64 {
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Sends a request and waits for its response.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.start_request(method, params).await;
        self.response(id).await
    }

    /// The response to request `id`, answering the server's own requests meanwhile.
    pub async fn response(&mut self, id: u64) -> Value {
        loop {
            let message = self.receive().await;
            if message.get("method").is_some() {
                if let Some(request_id) = message.get("id") {
                    let result = if message["method"] == "workspace/applyEdit" {
                        self.applied.push(message["params"].clone());
                        json!({"applied": true})
                    } else {
                        Value::Null
                    };
                    let answer = json!({"jsonrpc": "2.0", "id": request_id, "result": result});
                    self.send(answer).await;
                } else {
                    self.notifications.push(message);
                }
                continue;
            }
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Waits until a notification with `method` whose params satisfy `wanted` has come
    /// (notifications may follow the response they belong to); panics after 30 seconds.
    pub async fn wait_for_notification(&mut self, method: &str, wanted: impl Fn(&Value) -> bool) {
        let seen = |notes: &[Value]| {
            notes
                .iter()
                .any(|note| note["method"] == method && wanted(&note["params"]))
        };
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        while !seen(&self.notifications) {
            let message = tokio::time::timeout_at(deadline, self.receive())
                .await
                .unwrap_or_else(|_| panic!("no {method} came: {:?}", self.notifications));
            if message.get("method").is_some() && message.get("id").is_none() {
                self.notifications.push(message);
            }
        }
    }

    async fn receive(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).await.unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length: ") {
                length = value.parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).await.unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// Opens `relative` (or any URI) with `text`.
    pub async fn open(&mut self, uri: &str, text: &str) {
        self.open_as(uri, text, "rust").await;
    }

    /// Opens `uri` with `text` in `language`.
    pub async fn open_as(&mut self, uri: &str, text: &str, language: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        )
        .await;
    }

    /// `textDocument/inlineCompletion` at `line:character` of `uri`.
    pub async fn inline(&mut self, uri: &str, line: u32, character: u32) -> Value {
        self.request(
            "textDocument/inlineCompletion",
            position(uri, line, character),
        )
        .await
    }
}

/// Inline completion parameters.
pub fn position(uri: &str, line: u32, character: u32) -> Value {
    json!({
        "textDocument": {"uri": uri},
        "position": {"line": line, "character": character},
        "context": {"triggerKind": 1},
    })
}
