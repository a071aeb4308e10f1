//! The ACP agent: the editor's requests turned into hone-server calls, hone's events into
//! `session/update`s and `session/request_permission`s.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Agent, Client as Editor, ErrorCode};
use hone_api::rpc::{RpcError, SessionEvent};
use hone_api::{
    ApprovalDecision, ConflictChoice, ErrorChoice, Event, HistoryEntry, ImageAttachment, Request,
    TurnEnd,
};
use hone_server::{Client, FaceSetup, Server, WorkspaceFiles};
use tokio::sync::{mpsc, oneshot};

use crate::files::{EditorFiles, FsOffer};
use crate::updates::{Tracker, kind_of, notice};

/// hone's approval modes, offered as the session's modes.
const MODES: [(&str, &str, &str); 4] = [
    (
        "read-only",
        "Read only",
        "Reads only: no file changes, no commands",
    ),
    ("ask", "Ask", "Reads run; every write and command asks"),
    (
        "auto-edit",
        "Auto edit",
        "Reads and writes run; commands ask",
    ),
    (
        "full-auto",
        "Full auto",
        "Everything runs except what is denied",
    ),
];

/// The slash commands the editor offers.
const COMMANDS: [(&str, &str); 2] = [
    ("compact", "Compact the conversation now"),
    ("undo", "Take back the latest edit (`/undo N` for more)"),
];

/// How a prompt's turn ended.
type TurnOutcome = Result<acp::StopReason, String>;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the agent keeps across requests.
struct State {
    hone: Client,
    /// Per session (the ACP session id is hone's session key).
    sessions: Mutex<HashMap<String, SessionState>>,
    /// Prompts waiting for their turn to end, by the id of their `user.message`.
    turns: Mutex<HashMap<String, oneshot::Sender<TurnOutcome>>>,
    /// The file access the editor offered in `initialize`.
    fs: Mutex<FsOffer>,
}

struct SessionState {
    updates: Tracker,
    /// Tools the user rejected for the rest of the session (`reject_always`).
    rejected: HashSet<String>,
}

/// hone-server's error as an ACP error with hone's message (ACP gives `-32000` another
/// meaning: authentication required).
fn to_acp(error: RpcError) -> agent_client_protocol::Error {
    let code = match error.code {
        RpcError::UNKNOWN_SESSION => ErrorCode::RESOURCE_NOT_FOUND,
        RpcError::INVALID_PARAMS => ErrorCode::INVALID_PARAMS,
        _ => ErrorCode::INTERNAL_ERROR,
    };
    agent_client_protocol::Error::new(code, error.message)
}

/// Serves the editor on stdin and stdout until stdin closes, through `server`.
pub async fn serve(server: Arc<Server>) -> Result<(), agent_client_protocol::Error> {
    let (hone, events) = Client::connect(&server);
    let state = Arc::new(State {
        hone,
        sessions: Mutex::new(HashMap::new()),
        turns: Mutex::new(HashMap::new()),
        fs: Mutex::new(FsOffer::default()),
    });
    let (initialize, new_session, load_session, prompt, set_mode, cancel) = (
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
    );
    let pump = Arc::clone(&state);
    let disconnected = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let editor_gone = Arc::clone(&disconnected);
    let result = Agent
        .v1()
        .name("hone")
        .on_receive_request(
            async move |request: acp::InitializeRequest, responder, _cx| {
                *lock(&initialize.fs) = FsOffer::of(&request.client_capabilities);
                responder.respond(
                    acp::InitializeResponse::new(
                        agent_client_protocol::schema::ProtocolVersion::V1,
                    )
                    .agent_capabilities(
                        acp::AgentCapabilities::new()
                            .load_session(true)
                            .mcp_capabilities(acp::McpCapabilities::new().http(true))
                            .prompt_capabilities(
                                acp::PromptCapabilities::new()
                                    .embedded_context(true)
                                    .image(true),
                            ),
                    )
                    .agent_info(
                        acp::Implementation::new("hone", env!("CARGO_PKG_VERSION")).title("hone"),
                    ),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::NewSessionRequest, responder, cx| {
                let state = Arc::clone(&new_session);
                tokio::spawn(async move {
                    let opened = state
                        .open(
                            &cx,
                            Request::NewSession {
                                model: None,
                                cwd: Some(request.cwd.display().to_string()),
                                role: None,
                            },
                            &request.mcp_servers,
                        )
                        .await;
                    let _ = match opened {
                        Ok((key, modes, refused)) => {
                            let sent = responder
                                .respond(acp::NewSessionResponse::new(key.clone()).modes(modes));
                            state.announce_commands(&cx, &key);
                            tell(&cx, &key, &refused);
                            sent
                        }
                        Err(error) => responder.respond_with_error(to_acp(error)),
                    };
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::LoadSessionRequest, responder, cx| {
                let state = Arc::clone(&load_session);
                tokio::spawn(async move {
                    let key = request.session_id.0.to_string();
                    let opened = state
                        .open(
                            &cx,
                            Request::ResumeSession {
                                session_id: key,
                                model: None,
                                cwd: Some(request.cwd.display().to_string()),
                            },
                            &request.mcp_servers,
                        )
                        .await;
                    let _ = match opened {
                        Ok((key, modes, refused)) => match state.replay(&cx, &key).await {
                            Ok(()) => {
                                let sent =
                                    responder.respond(acp::LoadSessionResponse::new().modes(modes));
                                state.announce_commands(&cx, &key);
                                tell(&cx, &key, &refused);
                                sent
                            }
                            Err(error) => responder.respond_with_error(to_acp(error)),
                        },
                        Err(error) => responder.respond_with_error(to_acp(error)),
                    };
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::PromptRequest, responder, _cx| {
                let state = Arc::clone(&prompt);
                tokio::spawn(async move {
                    let _ = match state.prompt(request).await {
                        Ok(stop) => responder.respond(acp::PromptResponse::new(stop)),
                        Err(error) => responder.respond_with_error(error),
                    };
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::SetSessionModeRequest, responder, _cx| {
                let state = Arc::clone(&set_mode);
                tokio::spawn(async move {
                    let key = request.session_id.0.to_string();
                    let mode = request.mode_id.0.to_string();
                    let _ = match state
                        .hone
                        .call(Some(&key), Request::SetApproval { mode })
                        .await
                    {
                        Ok(_) => responder.respond(acp::SetSessionModeResponse::new()),
                        Err(error) => responder.respond_with_error(to_acp(error)),
                    };
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: acp::CancelNotification, _cx| {
                let state = Arc::clone(&cancel);
                let key = notification.session_id.0.to_string();
                tokio::spawn(async move {
                    let _ = state.hone.call(Some(&key), Request::Cancel).await;
                });
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(agent_client_protocol::Stdio::new(), async move |cx| {
            let closed = cx.clone();
            tokio::select! {
                () = closed.incoming_closed() => {
                    editor_gone.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                () = pump.pump(events, cx) => {}
            }
            Ok(())
        })
        .await;
    state.hone.disconnect();
    server.idle().await;
    match result {
        // The editor closed stdin, which ends the session as it should, even when a reply or
        // an update of a turn still winding down then found the connection gone: nobody is
        // left to tell, so it goes to the log.
        Err(error) if disconnected.load(std::sync::atomic::Ordering::SeqCst) => {
            tracing::warn!(error = %error.message, "acp: error after the editor disconnected");
            Ok(())
        }
        other => other,
    }
}

impl State {
    /// Opens (or resumes) a hone session with the editor's files (as offered) and MCP
    /// servers; returns its key, the modes to offer and a line for each server not started.
    async fn open(
        &self,
        cx: &ConnectionTo<Editor>,
        request: Request,
        servers: &[acp::McpServer],
    ) -> Result<(String, acp::SessionModeState, Vec<String>), RpcError> {
        let offer = *lock(&self.fs);
        let session = Arc::new(OnceLock::new());
        let files = offer.any().then(|| {
            Arc::new(EditorFiles::new(cx.clone(), offer, Arc::clone(&session)))
                as Arc<dyn WorkspaceFiles>
        });
        let (mcp_servers, refused) = crate::mcp::face_servers(servers);
        let setup = FaceSetup { files, mcp_servers };
        let started = self.hone.open_with(request, setup).await?;
        let key = started["session"].as_str().unwrap_or_default().to_string();
        let _ = session.set(key.clone());
        let root = PathBuf::from(started["root"].as_str().unwrap_or_default());
        let approval = started["approval"].as_str().unwrap_or("ask").to_string();
        lock(&self.sessions).insert(
            key.clone(),
            SessionState {
                updates: Tracker::new(root),
                rejected: HashSet::new(),
            },
        );
        Ok((key, modes(&approval), refused))
    }

    /// Sends the slash commands the editor may offer in session `key`.
    fn announce_commands(&self, cx: &ConnectionTo<Editor>, key: &str) {
        let commands = COMMANDS
            .iter()
            .map(|(name, description)| acp::AvailableCommand::new(*name, *description))
            .collect();
        let _ = cx.send_notification(acp::SessionNotification::new(
            key.to_string(),
            acp::SessionUpdate::AvailableCommandsUpdate(acp::AvailableCommandsUpdate::new(
                commands,
            )),
        ));
    }

    /// Replays session `key`'s saved conversation as updates.
    async fn replay(&self, cx: &ConnectionTo<Editor>, key: &str) -> Result<(), RpcError> {
        let history = self.hone.call(Some(key), Request::History).await?;
        let entries: Vec<HistoryEntry> =
            serde_json::from_value(history["entries"].clone()).unwrap_or_default();
        let updates = match lock(&self.sessions).get(key) {
            Some(session) => session.updates.replay(&entries),
            None => Vec::new(),
        };
        for update in updates {
            let _ = cx.send_notification(acp::SessionNotification::new(key.to_string(), update));
        }
        Ok(())
    }

    /// Runs one prompt: a slash command, or a turn whose end is the prompt's stop reason.
    async fn prompt(
        &self,
        request: acp::PromptRequest,
    ) -> Result<acp::StopReason, agent_client_protocol::Error> {
        let key = request.session_id.0.to_string();
        let text = prompt_text(&request.prompt);
        if let Some(command) = text.trim().strip_prefix('/') {
            let mut words = command.split_whitespace();
            let request = match words.next() {
                Some("compact") => Some(Request::Compact),
                Some("undo") => Some(Request::Undo {
                    count: words.next().and_then(|n| n.parse().ok()).unwrap_or(1),
                }),
                _ => None,
            };
            if let Some(request) = request {
                self.hone.call(Some(&key), request).await.map_err(to_acp)?;
                return Ok(acp::StopReason::EndTurn);
            }
        }
        crate::mcp::settled(&self.hone, &key).await;
        let id = self.hone.new_id();
        let (tx, rx) = oneshot::channel();
        lock(&self.turns).insert(id.to_string(), tx);
        if let Err(error) = self
            .hone
            .call_as(
                id.clone(),
                Some(&key),
                Request::UserMessage {
                    text,
                    images: prompt_images(&request.prompt),
                },
            )
            .await
        {
            lock(&self.turns).remove(&id.to_string());
            return Err(to_acp(error));
        }
        match rx.await {
            Ok(Ok(stop)) => Ok(stop),
            Ok(Err(message)) => Err(agent_client_protocol::Error::new(
                ErrorCode::INTERNAL_ERROR,
                message,
            )),
            Err(_) => Err(agent_client_protocol::Error::new(
                ErrorCode::INTERNAL_ERROR,
                "the session ended during the turn",
            )),
        }
    }

    /// Passes hone's events on to the editor until the server stops.
    async fn pump(
        self: Arc<Self>,
        mut events: mpsc::UnboundedReceiver<SessionEvent>,
        cx: ConnectionTo<Editor>,
    ) {
        while let Some(event) = events.recv().await {
            let Some(key) = event.session.clone() else {
                continue;
            };
            let request_id = event.frame.request_id.clone();
            match event.frame.event {
                Event::ApprovalNeeded {
                    call_id,
                    name,
                    summary,
                    diff,
                    command,
                    ..
                } => {
                    let state = Arc::clone(&self);
                    let cx = cx.clone();
                    tokio::spawn(async move {
                        let decision = state
                            .ask(&cx, &key, &call_id, &name, &summary, diff, command)
                            .await;
                        let _ = state
                            .hone
                            .call(Some(&key), Request::Approval { call_id, decision })
                            .await;
                    });
                }
                // An editor offers no retry dialog: the provider already retried.
                Event::TurnError { .. } => self.answer(
                    &key,
                    Request::ErrorChoice {
                        choice: ErrorChoice::Abort,
                    },
                ),
                // Nor a conflict dialog: the model reads the file again.
                Event::EditConflict { .. } => self.answer(
                    &key,
                    Request::ConflictChoice {
                        choice: ConflictChoice::Regenerate,
                    },
                ),
                other => {
                    let updates = match lock(&self.sessions).get_mut(&key) {
                        Some(session) => session.updates.updates(&other),
                        None => Vec::new(),
                    };
                    for update in updates {
                        let _ = cx
                            .send_notification(acp::SessionNotification::new(key.clone(), update));
                    }
                    let outcome = match &other {
                        Event::TurnCompleted { end, .. } => Some(Ok(match end {
                            TurnEnd::RoundLimit => acp::StopReason::MaxTurnRequests,
                            _ => acp::StopReason::EndTurn,
                        })),
                        Event::TurnCancelled { .. } => Some(Ok(acp::StopReason::Cancelled)),
                        Event::TurnFailed { error, .. } => Some(Err(error.message.clone())),
                        _ => None,
                    };
                    if let (Some(outcome), Some(id)) = (outcome, request_id)
                        && let Some(waiting) = lock(&self.turns).remove(&id)
                    {
                        let _ = waiting.send(outcome);
                    }
                }
            }
        }
    }

    fn answer(self: &Arc<Self>, key: &str, request: Request) {
        let state = Arc::clone(self);
        let key = key.to_string();
        tokio::spawn(async move {
            let _ = state.hone.call(Some(&key), request).await;
        });
    }

    /// Asks the editor about a call hone's policy would ask about.
    #[allow(clippy::too_many_arguments)]
    async fn ask(
        &self,
        cx: &ConnectionTo<Editor>,
        key: &str,
        call_id: &str,
        name: &str,
        summary: &str,
        diff: Option<String>,
        command: Option<String>,
    ) -> ApprovalDecision {
        let rejected = lock(&self.sessions)
            .get(key)
            .is_some_and(|session| session.rejected.contains(name));
        if rejected {
            return ApprovalDecision::Deny {
                message: Some(format!("the user rejected {name} for this session")),
            };
        }
        let mut content: Vec<acp::ToolCallContent> = Vec::new();
        if let Some(shown) = command.or(diff) {
            content.push(acp::ContentBlock::Text(acp::TextContent::new(shown)).into());
        }
        let fields = acp::ToolCallUpdateFields::new()
            .title(summary.to_string())
            .kind(kind_of(name))
            .status(acp::ToolCallStatus::Pending)
            .content(content);
        let options = vec![
            acp::PermissionOption::new("allow_once", "Allow", acp::PermissionOptionKind::AllowOnce),
            acp::PermissionOption::new(
                "allow_always",
                "Allow for this session",
                acp::PermissionOptionKind::AllowAlways,
            ),
            acp::PermissionOption::new(
                "reject_once",
                "Reject",
                acp::PermissionOptionKind::RejectOnce,
            ),
            acp::PermissionOption::new(
                "reject_always",
                "Reject for this session",
                acp::PermissionOptionKind::RejectAlways,
            ),
        ];
        let request = acp::RequestPermissionRequest::new(
            key.to_string(),
            acp::ToolCallUpdate::new(call_id.to_string(), fields),
            options,
        );
        let answer = cx.send_request(request).block_task().await;
        let rejected = || ApprovalDecision::Deny {
            message: Some("the user rejected it".into()),
        };
        match answer.map(|response| response.outcome) {
            Ok(acp::RequestPermissionOutcome::Selected(selected)) => match &*selected.option_id.0 {
                "allow_once" => ApprovalDecision::Approve,
                "allow_always" => ApprovalDecision::AlwaysForSession,
                "reject_always" => {
                    if let Some(session) = lock(&self.sessions).get_mut(key) {
                        session.rejected.insert(name.to_string());
                    }
                    rejected()
                }
                _ => rejected(),
            },
            Ok(_) | Err(_) => rejected(),
        }
    }
}

/// Shows each of `lines` in session `key` as part of the agent's message.
fn tell(cx: &ConnectionTo<Editor>, key: &str, lines: &[String]) {
    for line in lines {
        let _ = cx.send_notification(acp::SessionNotification::new(key.to_string(), notice(line)));
    }
}

/// The prompt's content as one message: text as written, resources as their text with
/// their URI, links as `@path` mentions.
fn prompt_text(blocks: &[acp::ContentBlock]) -> String {
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            acp::ContentBlock::Text(text) => parts.push(text.text.clone()),
            // Carried beside the text ([`prompt_images`]).
            acp::ContentBlock::Image(_) => {}
            acp::ContentBlock::ResourceLink(link) => {
                let path = link.uri.strip_prefix("file://").unwrap_or(&link.uri);
                parts.push(format!("@{path}"));
            }
            acp::ContentBlock::Resource(resource) => {
                if let acp::EmbeddedResourceResource::TextResourceContents(contents) =
                    &resource.resource
                {
                    parts.push(format!("{}:\n```\n{}\n```", contents.uri, contents.text));
                }
            }
            _ => {}
        }
    }
    parts.join("\n")
}

/// The images of a prompt, for the message to carry (the session checks their format).
fn prompt_images(blocks: &[acp::ContentBlock]) -> Vec<ImageAttachment> {
    blocks
        .iter()
        .filter_map(|block| match block {
            acp::ContentBlock::Image(image) => Some(ImageAttachment {
                name: image.uri.clone(),
                data: image.data.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// hone's approval modes as the session's modes, `current` selected.
fn modes(current: &str) -> acp::SessionModeState {
    acp::SessionModeState::new(
        current.to_string(),
        MODES
            .iter()
            .map(|(id, name, description)| {
                acp::SessionMode::new(*id, *name).description(description.to_string())
            })
            .collect(),
    )
}
