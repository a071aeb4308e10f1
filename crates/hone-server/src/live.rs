//! One running session: its core, what faces show about it, and its subscribers, to whom
//! every event goes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use hone_api::rpc::{ServerMessage, SessionEvent};
use hone_api::{Event, EventFrame, RequestFrame, SessionSettings};
use hone_runtime::{Runtime, SessionHandle, StartedSession};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::client::ClientState;
use crate::server::{Server, lock};

/// A session some clients are attached to.
pub(crate) struct LiveSession {
    /// Its saved id, or `unsaved-N`.
    pub(crate) key: String,
    /// The runtime it was started by (its project).
    pub(crate) runtime: Arc<Runtime>,
    core: Mutex<Core>,
    subscribers: Mutex<Vec<Arc<ClientState>>>,
    /// Set when the last subscriber left and the core was told to shut down: the session
    /// is ending and nobody may join it any more.
    closing: AtomicBool,
}

/// The core session behind a [`LiveSession`] (replaced by `session.set_model`).
struct Core {
    handle: SessionHandle,
    settings: SessionSettings,
    mcp: Option<hone_mcp::McpClients>,
    saved_id: Option<String>,
    forked_from: Option<String>,
}

impl LiveSession {
    /// Wraps a started session under `key` with its first subscriber, and starts passing
    /// its events on.
    pub(crate) fn start(
        server: &Arc<Server>,
        key: String,
        runtime: Arc<Runtime>,
        started: StartedSession,
        first: Arc<ClientState>,
    ) -> Arc<Self> {
        let (core, events) = Core::of(started, &runtime);
        let mcp = core.mcp.clone();
        let live = Arc::new(Self {
            key,
            runtime,
            core: Mutex::new(core),
            subscribers: Mutex::new(vec![first]),
            closing: AtomicBool::new(false),
        });
        server.add_session(Arc::clone(&live));
        live.pump(server, events, mcp);
        live
    }

    /// Replaces the core (another model for the same saved session); subscribers stay.
    pub(crate) fn replace(self: &Arc<Self>, server: &Arc<Server>, started: StartedSession) {
        let (core, events) = Core::of(started, &self.runtime);
        let mcp = core.mcp.clone();
        let old = std::mem::replace(&mut *lock(&self.core), core);
        old.handle.send(hone_api::Request::Shutdown);
        self.pump(server, events, mcp);
    }

    fn pump(
        self: &Arc<Self>,
        server: &Arc<Server>,
        mut events: UnboundedReceiver<EventFrame>,
        mcp: Option<hone_mcp::McpClients>,
    ) {
        let live = Arc::clone(self);
        let server = Arc::clone(server);
        let handle = lock(&self.core).handle.clone();
        tokio::spawn(async move {
            while let Some(frame) = events.recv().await {
                // The result of the call that opened the session already said so.
                if frame.request_id.is_none() && matches!(frame.event, Event::SessionStarted { .. })
                {
                    continue;
                }
                if let Event::ApprovalMode { mode } = &frame.event {
                    lock(&live.core).settings.approval.clone_from(mode);
                }
                live.broadcast(&frame);
            }
            // A replaced core ends while its successor runs on.
            if lock(&live.core).handle.same_session(&handle) {
                server.remove_session(&live);
            }
        });
        if let Some(mcp) = mcp {
            let live = Arc::clone(self);
            tokio::spawn(async move {
                mcp.settled().await;
                live.broadcast(&EventFrame::new(
                    None,
                    Event::McpStatus {
                        servers: hone_runtime::mcp::status(&mcp),
                    },
                ));
            });
        }
    }

    /// Sends `frame` to every subscriber, with the request id only for the one whose
    /// call it answers.
    pub(crate) fn broadcast(&self, frame: &EventFrame) {
        let mut subscribers = lock(&self.subscribers);
        subscribers.retain(|client| {
            let request_id = frame
                .request_id
                .as_deref()
                .and_then(|id| client.own_id(id))
                .map(str::to_string);
            client.send(ServerMessage::Event(SessionEvent {
                session: Some(self.key.clone()),
                frame: EventFrame::new(request_id, frame.event.clone()),
            }))
        });
    }

    /// Sends `event` to one subscriber only.
    pub(crate) fn tell(&self, client: &ClientState, event: Event) {
        client.send(ServerMessage::Event(SessionEvent {
            session: Some(self.key.clone()),
            frame: EventFrame::new(None, event),
        }));
    }

    /// Attaches `client` (once).
    pub(crate) fn subscribe(&self, client: &Arc<ClientState>) {
        let mut subscribers = lock(&self.subscribers);
        if !subscribers.iter().any(|known| known.id == client.id) {
            subscribers.push(Arc::clone(client));
        }
    }

    /// Detaches `client`; the last one leaving shuts the session down.
    pub(crate) fn unsubscribe(&self, client: &ClientState) {
        let mut subscribers = lock(&self.subscribers);
        subscribers.retain(|known| known.id != client.id);
        if subscribers.is_empty() {
            self.closing.store(true, Ordering::SeqCst);
            self.submit(RequestFrame::new("shutdown", hone_api::Request::Shutdown));
        }
    }

    /// Whether the session is ending (its last subscriber left).
    pub(crate) fn is_closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }

    /// Passes a request to the core; false when it has ended.
    pub(crate) fn submit(&self, frame: RequestFrame) -> bool {
        lock(&self.core).handle.submit(frame)
    }

    /// The `session.started` event describing the session now.
    pub(crate) fn started_event(&self) -> Event {
        let core = lock(&self.core);
        Event::SessionStarted {
            provider: core.settings.provider.clone(),
            model: core.settings.model.clone(),
            approval: core.settings.approval.clone(),
            root: core.settings.root.clone(),
            session_id: core.saved_id.clone(),
            forked_from: core.forked_from.clone(),
        }
    }

    /// The saved session's id, if it is saved.
    pub(crate) fn saved_id(&self) -> Option<String> {
        lock(&self.core).saved_id.clone()
    }

    /// The effective settings.
    pub(crate) fn settings(&self) -> SessionSettings {
        lock(&self.core).settings.clone()
    }

    /// The session's MCP servers, if any are configured.
    pub(crate) fn mcp(&self) -> Option<hone_mcp::McpClients> {
        lock(&self.core).mcp.clone()
    }
}

impl Core {
    fn of(started: StartedSession, runtime: &Runtime) -> (Self, UnboundedReceiver<EventFrame>) {
        let summary = started.summary;
        let (saved_id, forked_from) = match &started.saved {
            Some(saved) => (Some(saved.info.id.clone()), saved.info.forked_from.clone()),
            None => (None, None),
        };
        let core = Core {
            handle: started.handle,
            settings: SessionSettings {
                provider: summary.provider,
                model: summary.model,
                approval: summary.approval,
                context_window: summary.context_window,
                index: summary.index,
                sandbox: summary.sandbox,
                price: summary.price,
                root: runtime.root().display().to_string(),
            },
            mcp: started.mcp,
            saved_id,
            forked_from,
        };
        (core, started.events)
    }
}
