//! How the server answers each request: at once (sessions opened, listed, deleted; the
//! store, the index, the MCP servers, the settings), or by passing it to a session, whose
//! events answer it.

use std::sync::Arc;

use hone_api::rpc::{RpcError, RpcId, ServerMessage, SessionEvent};
use hone_api::{ErrorInfo, Event, EventFrame, Request, RequestFrame, SessionSummary, SymbolMatch};
use hone_protocol::HoneError;
use hone_runtime::{Runtime, RuntimeError, SessionChoice, SessionRequest};
use serde_json::Value;

use crate::client::Connection;
use crate::live::LiveSession;

/// Input history entries `history.list` returns by default.
const HISTORY_SHOWN: u32 = 500;
/// Symbols `index.symbols` returns by default.
const SYMBOLS_SHOWN: u32 = 20;
/// Sessions `session.list` returns by default.
const SESSIONS_LISTED: u32 = 50;

/// What becomes of one call.
pub(crate) enum Answer {
    /// The response's result, then events for this client alone.
    Now(Value, Vec<SessionEvent>),
    /// `null` now; the session's events answer it.
    Forward(Arc<LiveSession>, Request),
}

/// hone's error as a JSON-RPC error.
pub(crate) fn failed(error: HoneError) -> RpcError {
    RpcError::failed(ErrorInfo {
        category: error.category,
        message: error.message,
        provider_detail: error.provider_detail,
    })
}

pub(crate) fn runtime_failed(error: RuntimeError) -> RpcError {
    failed(error.into())
}

/// `event` as a result: the event frame beside the session it is about.
pub(crate) fn result(session: Option<&str>, id: &str, event: Event) -> Value {
    serde_json::to_value(SessionEvent {
        session: session.map(str::to_string),
        frame: EventFrame::new(Some(id.to_string()), event),
    })
    .unwrap_or(Value::Null)
}

impl Connection {
    /// Sends the response of a call (when it had an id), then what follows it.
    pub(crate) fn deliver(
        &self,
        id: Option<RpcId>,
        text_id: &str,
        answer: Result<Answer, RpcError>,
    ) {
        match answer {
            Ok(Answer::Now(value, events)) => {
                self.respond(id, Ok(value));
                for event in events {
                    self.state.send(ServerMessage::Event(event));
                }
            }
            Ok(Answer::Forward(session, request)) => {
                let core_id = self.state.core_id(text_id);
                self.respond(id, Ok(Value::Null));
                if !session.submit(RequestFrame::new(core_id, request)) {
                    session.tell(
                        &self.state,
                        Event::Error {
                            error: ErrorInfo {
                                category: hone_api::ErrorCategory::Validation,
                                message: format!("session {} has ended", session.key),
                                provider_detail: None,
                            },
                        },
                    );
                }
            }
            Err(error) => self.respond(id, Err(error)),
        }
    }

    fn respond(&self, id: Option<RpcId>, outcome: Result<Value, RpcError>) {
        if id.is_some() {
            self.state.send(ServerMessage::Response { id, outcome });
        }
    }

    /// The session a request is for: the one it names, else the client's current one.
    pub(crate) fn target(&self, session: Option<&str>) -> Result<Arc<LiveSession>, RpcError> {
        let key = session
            .map(str::to_string)
            .or_else(|| self.state.current())
            .ok_or_else(|| {
                RpcError::new(
                    RpcError::UNKNOWN_SESSION,
                    "no session: open one with session.new or session.resume first",
                )
            })?;
        self.server.session(&key).ok_or_else(|| {
            RpcError::new(
                RpcError::UNKNOWN_SESSION,
                format!("no running session {key}"),
            )
        })
    }

    /// The runtime for requests about the project: the target session's, else the
    /// server's default.
    fn runtime(&self, session: Option<&str>) -> Arc<Runtime> {
        self.target(session)
            .map(|live| Arc::clone(&live.runtime))
            .unwrap_or_else(|_| self.server.default_runtime())
    }

    pub(crate) async fn answer(
        &self,
        id: &str,
        session: Option<String>,
        request: Request,
    ) -> Result<Answer, RpcError> {
        let session = session.as_deref();
        let now = |event: Event| Ok(Answer::Now(result(None, id, event), Vec::new()));
        match request {
            Request::UserMessage { .. }
            | Request::Approval { .. }
            | Request::Cancel
            | Request::ErrorChoice { .. }
            | Request::ConflictChoice { .. }
            | Request::WriteFile { .. }
            | Request::Undo { .. }
            | Request::ListUndo
            | Request::Compact
            | Request::InspectContext { .. }
            | Request::ProjectFiles { .. }
            | Request::ReadFile { .. }
            | Request::RepoMap
            | Request::ReadLogs { .. }
            | Request::TrackFiles { .. }
            | Request::UntrackFiles { .. }
            | Request::SetApproval { .. }
            | Request::SetThinking { .. } => Ok(Answer::Forward(self.target(session)?, request)),
            Request::Shutdown => {
                let live = self.target(session)?;
                live.unsubscribe(&self.state);
                if self.state.current().as_deref() == Some(live.key.as_str()) {
                    self.state.set_current(None);
                }
                Ok(Answer::Now(Value::Null, Vec::new()))
            }
            Request::NewSession { model, cwd, role } => {
                let runtime = self.server.runtime_for(cwd.as_deref())?;
                let mut request = session_request(SessionChoice::New, model);
                request.role = role;
                self.open(id, runtime, request).await
            }
            Request::ResumeSession {
                session_id,
                model,
                cwd,
            } => {
                let runtime = self.server.runtime_for(cwd.as_deref())?;
                let full = resolve(&runtime, &session_id)?;
                match self.server.settled_session(&full).await {
                    Some(live) if model.is_none() => {
                        if self.state.is_closed() {
                            return Err(RpcError::new(RpcError::INTERNAL_ERROR, "client left"));
                        }
                        live.subscribe(&self.state);
                        self.state.set_current(Some(live.key.clone()));
                        Ok(Answer::Now(
                            result(Some(&live.key), id, live.started_event()),
                            Vec::new(),
                        ))
                    }
                    Some(_) => Err(RpcError::new(
                        RpcError::INVALID_PARAMS,
                        format!(
                            "session {full} is running: switch its model with session.set_model"
                        ),
                    )),
                    None => {
                        self.open(
                            id,
                            runtime,
                            session_request(SessionChoice::Resume(full), model),
                        )
                        .await
                    }
                }
            }
            Request::ForkSession { session_id } => {
                let runtime = self.runtime(session);
                self.open(
                    id,
                    runtime,
                    session_request(SessionChoice::Fork(session_id), None),
                )
                .await
            }
            Request::SetModel { model } => {
                let live = self.target(session)?;
                let saved = live.saved_id().ok_or_else(|| {
                    failed(HoneError::config(
                        "an unsaved session cannot go on with another model",
                    ))
                })?;
                let started = live
                    .runtime
                    .start_session(session_request(SessionChoice::Resume(saved), Some(model)))
                    .await
                    .map_err(runtime_failed)?;
                live.replace(&self.server, started);
                Ok(Answer::Now(
                    result(Some(&live.key), id, live.started_event()),
                    Vec::new(),
                ))
            }
            Request::RewindPoints => self.rewind_points(id, session),
            Request::Rewind {
                prompt,
                fork,
                keep_files,
            } => self.rewind(id, session, prompt, fork, keep_files).await,
            Request::ListSessions { limit } => {
                let runtime = self.runtime(session);
                let limit = limit.unwrap_or(SESSIONS_LISTED) as usize;
                let sessions = runtime
                    .sessions()
                    .list(limit)
                    .map_err(runtime_failed)?
                    .into_iter()
                    .map(summary)
                    .collect();
                now(Event::SessionList { sessions })
            }
            Request::DeleteSession { session_id } => {
                let runtime = self.runtime(session);
                let full = resolve(&runtime, &session_id)?;
                if self.server.session(&full).is_some() {
                    return Err(failed(HoneError::config(format!(
                        "session {full} is running; shut it down first"
                    ))));
                }
                let deleted = runtime.sessions().delete(&full).map_err(runtime_failed)?;
                now(Event::SessionDeleted {
                    session_id: deleted.id,
                })
            }
            Request::History => {
                let live = self.target(session)?;
                let entries = match live.saved_id() {
                    Some(saved) => crate::history_entries(
                        &live
                            .runtime
                            .sessions()
                            .messages(&saved)
                            .map_err(runtime_failed)?,
                    ),
                    None => Vec::new(),
                };
                Ok(Answer::Now(
                    result(Some(&live.key), id, Event::SessionHistory { entries }),
                    Vec::new(),
                ))
            }
            Request::ExportSession { session_id, format } => {
                let runtime = self.runtime(session);
                let format = format.unwrap_or_else(|| "markdown".into());
                let (session_id, text) = runtime
                    .sessions()
                    .export(&session_id, &format)
                    .map_err(runtime_failed)?;
                now(Event::SessionExported {
                    session_id,
                    format,
                    text,
                })
            }
            Request::ExpandMentions { text } => {
                let expanded = self.runtime(session).expand_mentions(&text);
                now(Event::MentionsExpanded {
                    text: expanded.text,
                    attached: expanded.attached.iter().map(|a| a.describe()).collect(),
                    problems: expanded.problems.iter().map(ToString::to_string).collect(),
                })
            }
            Request::InputHistory { limit } => {
                let limit = limit.unwrap_or(HISTORY_SHOWN) as usize;
                let entries = self
                    .runtime(session)
                    .sessions()
                    .input_history(limit)
                    .map_err(runtime_failed)?;
                now(Event::InputHistory { entries })
            }
            Request::RememberInput { text } => {
                self.runtime(session)
                    .sessions()
                    .remember_input(&text)
                    .map_err(runtime_failed)?;
                now(Event::InputHistory {
                    entries: vec![text],
                })
            }
            Request::IndexStatus => {
                let index = self.runtime(session).code_index().clone();
                now(Event::IndexStatus {
                    status: index.status(),
                    progress: index.progress().line(),
                    updated: None,
                })
            }
            Request::Reindex => {
                let runtime = self.runtime(session);
                let (status, updated) = tokio::task::spawn_blocking(move || {
                    let index = runtime.code_index();
                    (index.status(), index.reindex())
                })
                .await
                .map_err(|error| RpcError::new(RpcError::INTERNAL_ERROR, error.to_string()))?;
                now(Event::IndexStatus {
                    status,
                    progress: None,
                    updated: Some(updated.map_err(failed)?),
                })
            }
            Request::Symbols { prefix, limit } => {
                let limit = limit.unwrap_or(SYMBOLS_SHOWN) as usize;
                let symbols = self
                    .runtime(session)
                    .code_index()
                    .symbols(&prefix, limit)
                    .into_iter()
                    .map(|(name, location)| SymbolMatch { name, location })
                    .collect();
                now(Event::Symbols { symbols })
            }
            Request::DraftInstructions => {
                let runtime = self.runtime(session);
                let content = tokio::task::spawn_blocking(move || {
                    hone_runtime::init::agents_md(runtime.root())
                })
                .await
                .map_err(|error| RpcError::new(RpcError::INTERNAL_ERROR, error.to_string()))?;
                now(Event::InstructionsDrafted {
                    path: "AGENTS.md".into(),
                    content,
                })
            }
            Request::McpStatus => {
                let live = self.target(session)?;
                let servers = live
                    .mcp()
                    .map(|mcp| hone_runtime::mcp::status(&mcp))
                    .unwrap_or_default();
                Ok(Answer::Now(
                    result(Some(&live.key), id, Event::McpStatus { servers }),
                    Vec::new(),
                ))
            }
            Request::McpPrompt {
                server,
                prompt,
                arguments,
            } => {
                let live = self.target(session)?;
                let mcp = live.mcp().ok_or_else(|| {
                    failed(HoneError::config(
                        "no MCP servers configured (add [mcp_servers.NAME] to your config)",
                    ))
                })?;
                let text = mcp
                    .prompt(&server, &prompt, &arguments)
                    .await
                    .map_err(|message| {
                        failed(HoneError::new(hone_api::ErrorCategory::Tool, message))
                    })?;
                Ok(Answer::Now(
                    result(Some(&live.key), id, Event::McpPrompt { text }),
                    Vec::new(),
                ))
            }
            Request::Settings => {
                let live = self.target(session)?;
                Ok(Answer::Now(
                    result(
                        Some(&live.key),
                        id,
                        Event::Settings {
                            settings: live.settings(),
                        },
                    ),
                    Vec::new(),
                ))
            }
        }
    }

    /// Starts the session `request` asks for, for this client, and makes it the current
    /// one; the result is its `session.started`, followed by its warnings.
    pub(crate) async fn open(
        &self,
        id: &str,
        runtime: Arc<Runtime>,
        request: SessionRequest,
    ) -> Result<Answer, RpcError> {
        let started = runtime
            .start_session_with(request, self.state.take_setup(id))
            .await
            .map_err(runtime_failed)?;
        if self.state.is_closed() {
            started.handle.send(Request::Shutdown);
            return Err(RpcError::new(RpcError::INTERNAL_ERROR, "client left"));
        }
        let warnings = started.warnings.clone();
        let key = match &started.saved {
            Some(saved) => saved.info.id.clone(),
            None => self.server.unsaved_key(),
        };
        let live = LiveSession::start(&self.server, key, runtime, started, Arc::clone(&self.state));
        self.state.set_current(Some(live.key.clone()));
        let follow = warnings
            .into_iter()
            .map(|message| SessionEvent {
                session: Some(live.key.clone()),
                frame: EventFrame::new(Some(id.to_string()), Event::Warning { message }),
            })
            .collect();
        Ok(Answer::Now(
            result(Some(&live.key), id, live.started_event()),
            follow,
        ))
    }
}

/// How the server starts sessions: interactive (clients answer approvals), held as
/// conversations, with their saved history read, and with the configured MCP servers.
pub(crate) fn session_request(choice: SessionChoice, model: Option<String>) -> SessionRequest {
    SessionRequest {
        choice,
        model,
        interactive: true,
        conversation: true,
        focus: String::new(),
        show_history: false,
        mcp_servers: true,
        role: None,
    }
}

/// The full id of the project's session `id` (a unique start of one, or `last`).
fn resolve(runtime: &Runtime, id: &str) -> Result<String, RpcError> {
    runtime.sessions().resolve(id).map_err(runtime_failed)
}

fn summary(info: hone_runtime::SavedSessionInfo) -> SessionSummary {
    SessionSummary {
        id: info.id,
        title: info.title,
        provider: info.provider,
        model: info.model,
        messages: info.messages,
        created_ms: info.created_ms,
        updated_ms: info.updated_ms,
        forked_from: info.forked_from,
    }
}
