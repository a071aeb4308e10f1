//! One client of the server: [`Connection`] (calls in, messages out, whatever the
//! transport) and [`Client`], typed calls for Rust code in the same process.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hone_api::Request;
use hone_api::rpc::{Call, RpcError, RpcId, ServerMessage, SessionEvent};
use hone_runtime::FaceSetup;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::server::{Server, lock};

/// What the server keeps of a client.
pub(crate) struct ClientState {
    pub(crate) id: u64,
    out: mpsc::UnboundedSender<ServerMessage>,
    /// The session its requests go to by default (the last it opened or joined).
    current: Mutex<Option<String>>,
    /// Set when the client left: nothing attaches it again.
    closed: AtomicBool,
    /// What the face adds to the session the call with this id opens
    /// ([`Client::open_with`]).
    setups: Mutex<HashMap<String, FaceSetup>>,
}

impl ClientState {
    pub(crate) fn new(id: u64, out: mpsc::UnboundedSender<ServerMessage>) -> Self {
        Self {
            id,
            out,
            current: Mutex::new(None),
            closed: AtomicBool::new(false),
            setups: Mutex::new(HashMap::new()),
        }
    }

    /// Sends a message; false when the client is gone.
    pub(crate) fn send(&self, message: ServerMessage) -> bool {
        !self.closed.load(Ordering::Relaxed) && self.out.send(message).is_ok()
    }

    /// The id this client gave a request, when the core's `request_id` is one of its own.
    pub(crate) fn own_id<'a>(&self, core_id: &'a str) -> Option<&'a str> {
        core_id.strip_prefix(&format!("c{}:", self.id))
    }

    /// The core's id for this client's request `id`.
    pub(crate) fn core_id(&self, id: &str) -> String {
        format!("c{}:{id}", self.id)
    }

    pub(crate) fn current(&self) -> Option<String> {
        lock(&self.current).clone()
    }

    pub(crate) fn set_current(&self, key: Option<String>) {
        *lock(&self.current) = key;
    }

    /// What the face adds to the session its call `id` opens (default: nothing).
    pub(crate) fn take_setup(&self, id: &str) -> FaceSetup {
        lock(&self.setups).remove(id).unwrap_or_default()
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }
}

/// A client's side of the server, for any transport: calls go in through
/// [`Connection::handle`]; responses and events come out of the receiver
/// [`Server::connect`] returned. Clones share the client.
#[derive(Clone)]
pub struct Connection {
    pub(crate) server: Arc<Server>,
    pub(crate) state: Arc<ClientState>,
    /// Ids for calls sent without one (JSON-RPC notifications).
    anonymous: Arc<AtomicU64>,
}

impl Connection {
    pub(crate) fn new(server: Arc<Server>, state: Arc<ClientState>) -> Self {
        Self {
            server,
            state,
            anonymous: Arc::default(),
        }
    }

    /// Handles one call in the background; its response (for a call with an id) and its
    /// events arrive on the client's receiver, the response first.
    pub fn handle(&self, call: Call) {
        let connection = self.clone();
        tokio::spawn(async move {
            let Call {
                id,
                session,
                request,
            } = call;
            let text_id = match &id {
                Some(id) => id.to_string(),
                None => format!(
                    "~{}",
                    connection.anonymous.fetch_add(1, Ordering::Relaxed) + 1
                ),
            };
            let answer = connection.answer(&text_id, session, request).await;
            connection.deliver(id, &text_id, answer);
        });
    }

    /// Sends a message straight to this client (a transport's error response).
    pub fn send(&self, message: ServerMessage) {
        self.state.send(message);
    }

    /// The client left: it is detached from every session (the last one leaving a
    /// session shuts it down) and receives nothing more.
    pub fn disconnect(&self) {
        self.state.closed.store(true, Ordering::Relaxed);
        for session in self.server.sessions() {
            session.unsubscribe(&self.state);
        }
    }
}

/// Calls waiting for their responses, by id.
type Pending = Arc<Mutex<HashMap<RpcId, oneshot::Sender<Result<Value, RpcError>>>>>;

/// A client in the same process, with typed calls: each call returns its response, and
/// the events of the client's sessions arrive on the receiver [`Client::connect`] returns.
pub struct Client {
    connection: Connection,
    pending: Pending,
    next: AtomicU64,
}

impl Client {
    /// Connects to `server`.
    pub fn connect(server: &Arc<Server>) -> (Self, mpsc::UnboundedReceiver<SessionEvent>) {
        let (connection, mut messages) = server.connect();
        let pending: Pending = Arc::default();
        let (events_tx, events) = mpsc::unbounded_channel();
        let routes = Arc::clone(&pending);
        tokio::spawn(async move {
            while let Some(message) = messages.recv().await {
                match message {
                    ServerMessage::Response { id, outcome } => {
                        let waiting = id.and_then(|id| lock(&routes).remove(&id));
                        if let Some(waiting) = waiting {
                            let _ = waiting.send(outcome);
                        }
                    }
                    ServerMessage::Event(event) => {
                        let _ = events_tx.send(event);
                    }
                }
            }
        });
        let client = Self {
            connection,
            pending,
            next: AtomicU64::new(0),
        };
        (client, events)
    }

    /// Calls `request` on `session` (default: the client's current session) and waits for
    /// the response: the answering event's frame for requests the server answers at once,
    /// `null` for requests a session works on (their events follow).
    pub async fn call(&self, session: Option<&str>, request: Request) -> Result<Value, RpcError> {
        self.call_as(self.new_id(), session, request).await
    }

    /// [`Client::call`] under `id` (from [`Client::new_id`]), which the events answering
    /// the call carry as `request_id`.
    pub async fn call_as(
        &self,
        id: RpcId,
        session: Option<&str>,
        request: Request,
    ) -> Result<Value, RpcError> {
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        self.connection.handle(Call {
            id: Some(id),
            session: session.map(str::to_string),
            request,
        });
        rx.await.unwrap_or_else(|_| {
            Err(RpcError::new(
                RpcError::INTERNAL_ERROR,
                "the server stopped",
            ))
        })
    }

    /// [`Client::call`] for a request that opens a session (`session.new`, or
    /// `session.resume` of a session that is not running), which starts with what the face
    /// adds (`setup`: its files, its MCP servers).
    pub async fn open_with(&self, request: Request, setup: FaceSetup) -> Result<Value, RpcError> {
        let id = self.new_id();
        lock(&self.connection.state.setups).insert(id.to_string(), setup);
        let answer = self.call_as(id.clone(), None, request).await;
        lock(&self.connection.state.setups).remove(&id.to_string());
        answer
    }

    /// A fresh id for [`Client::call_as`].
    pub fn new_id(&self) -> RpcId {
        RpcId::Text(format!("{}", self.next.fetch_add(1, Ordering::Relaxed) + 1))
    }

    /// Leaves every session ([`Connection::disconnect`]).
    pub fn disconnect(&self) {
        self.connection.disconnect();
    }
}
