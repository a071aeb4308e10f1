//! The session task: routes requests, runs turns one at a time, owns the conversation.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hone_api::{
    ApprovalDecision, ConflictChoice, ErrorChoice, Event, EventFrame, Request, RequestFrame,
};

use hone_policy::Permissions;
use hone_protocol::{HoneError, Message};
use hone_providers::Provider;
use hone_tools::ToolContext;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::audit::AuditLog;
use crate::tools::ToolRegistry;
use crate::{SessionConfig, prompt};

/// Sends requests to a running session. Cloning is cheap; the session ends when every
/// handle is dropped or [`Request::Shutdown`] is sent.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    requests: mpsc::UnboundedSender<RequestFrame>,
    /// The last number [`SessionHandle::send`] gave a request (shared by clones).
    numbered: Arc<AtomicU64>,
}

impl SessionHandle {
    /// Sends a request with the id the front end chose; returns false when the session has
    /// ended.
    pub fn submit(&self, frame: RequestFrame) -> bool {
        self.requests.send(frame).is_ok()
    }

    /// Whether `other` sends to the same session as this handle.
    pub fn same_session(&self, other: &SessionHandle) -> bool {
        self.requests.same_channel(&other.requests)
    }

    /// Sends a request under the next free id of this handle (`h1`, `h2`, …); returns the
    /// id, or `None` when the session has ended.
    pub fn send(&self, request: Request) -> Option<String> {
        let id = format!("h{}", self.numbered.fetch_add(1, Ordering::Relaxed) + 1);
        self.submit(RequestFrame::new(id.clone(), request))
            .then_some(id)
    }
}

/// The cancellation token of the running turn, replaced at each turn start so a stale
/// cancel never hits a later turn.
#[derive(Debug, Clone, Default)]
pub(crate) struct CancelSlot(Arc<Mutex<CancellationToken>>);

impl CancelSlot {
    pub(crate) fn fresh(&self) -> CancellationToken {
        let token = CancellationToken::new();
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = token.clone();
        token
    }

    fn cancel(&self) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .cancel();
    }
}

/// The state of one session.
pub(crate) struct Agent {
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) model: String,
    pub(crate) registry: ToolRegistry,
    pub(crate) context: Arc<ToolContext>,
    pub(crate) permissions: Permissions,
    pub(crate) max_tool_rounds: u32,
    pub(crate) interactive: bool,
    pub(crate) history: Vec<Message>,
    pub(crate) system_prompt: String,
    /// The repository map the system prompt holds, when there is one.
    pub(crate) repo_map: Option<String>,
    pub(crate) events: mpsc::UnboundedSender<EventFrame>,
    /// The request being handled (for a turn: its user message), whose id the events carry.
    pub(crate) request_id: Option<String>,
    pub(crate) approvals: mpsc::UnboundedReceiver<(String, ApprovalDecision)>,
    pub(crate) error_choices: mpsc::UnboundedReceiver<ErrorChoice>,
    pub(crate) conflict_choices: mpsc::UnboundedReceiver<ConflictChoice>,
    pub(crate) context_manager: hone_context::ContextManager,
    pub(crate) cancel_slot: CancelSlot,
    pub(crate) audit: AuditLog,
    pub(crate) recorder: Option<crate::persist::Recorder>,
    pub(crate) undo: crate::persist::Undo,
    pub(crate) turns: u32,
    pub(crate) checks: crate::checks::CheckState,
    pub(crate) localizer: Option<Arc<dyn hone_context::localize::Localizer>>,
    pub(crate) guidance: crate::Guidance,
    pub(crate) roles: crate::RoleModels,
    /// How the running turn runs: the agent loop or a guided step.
    pub(crate) flow: crate::flow::Flow,
    /// What the running turn's request asks for, when the rules (or the planner) know.
    pub(crate) task: Option<hone_api::TaskKind>,
    /// The changes the running turn proposed and applied.
    pub(crate) changes: crate::changes::TurnChanges,
    /// The running turn's attempt (1-based; see `attempts.rs`).
    pub(crate) attempt: u32,
    /// How long the call being timed has waited for the user (approvals, conflict
    /// choices): not part of its reported duration.
    pub(crate) user_wait: std::time::Duration,
    /// The user's hooks.
    pub(crate) hooks: crate::Hooks,
}

impl Agent {
    /// Emits an event; a front end that went away is not an error for the core.
    pub(crate) fn emit(&self, event: Event) {
        self.observe(&event);
        self.checks.observe(&event);
        self.changes.observe(&event);
        let _ = self
            .events
            .send(EventFrame::new(self.request_id.clone(), event));
    }
}

pub(crate) fn start(
    config: SessionConfig,
    files: Option<Arc<dyn hone_tools::files::WorkspaceFiles>>,
) -> Result<(SessionHandle, mpsc::UnboundedReceiver<EventFrame>), HoneError> {
    let context = ToolContext::new(&config.root)
        .map(|context| context.with_secret_files(config.permissions.secret_files().clone()))
        .and_then(|context| context.with_commands(config.commands))
        .map_err(|error| {
            HoneError::config(format!(
                "cannot use {} as the project root: {error}",
                config.root.display()
            ))
        })?
        .with_code_mapper(config.code_mapper)
        .with_workspace_files(files);
    let context = Arc::new(context);
    let registry = ToolRegistry::with(
        config.extra_tools,
        config.tool_sources,
        config.prompt_profile,
    )
    .selecting(config.roles.chat.tools.clone());
    let (request_tx, request_rx) = mpsc::unbounded_channel();
    let (event_tx, event_rx) = mpsc::unbounded_channel();
    let (approval_tx, approval_rx) = mpsc::unbounded_channel();
    let (choice_tx, choice_rx) = mpsc::unbounded_channel();
    let (conflict_tx, conflict_rx) = mpsc::unbounded_channel();
    let (queue_tx, queue_rx) = mpsc::unbounded_channel();
    let cancel_slot = CancelSlot::default();
    let model = if config.model.trim().is_empty() {
        config.provider.default_model().to_string()
    } else {
        config.model.clone()
    };
    let undo_depth = crate::persist::undo_depth(config.memory.as_ref());
    let (recorder, saved) =
        crate::persist::open(config.memory, &context, config.provider.name(), &model)?;
    let history = saved.history;
    let mut context_config = config.context;
    if let Some(compaction) = &config.roles.compaction {
        // `[roles] compaction` is the compaction model, over `[context] compaction_model`.
        context_config.settings.compaction_model = Some(compaction.model.clone());
    }
    let mut context_manager =
        hone_context::ContextManager::new(context_config, context.root(), &model);
    context_manager.set_secret_files(config.permissions.secret_files().clone());
    let restored = saved.context_state.is_some_and(|state| {
        context_manager
            .restore(state)
            .inspect_err(|error| tracing::warn!(%error, "saved context state not restored"))
            .is_ok()
    });
    if !restored {
        context_manager.replay(&history);
    }
    // Commands' paths are judged against this project (symlinks, nested repositories).
    let mut permissions = config.permissions;
    permissions.set_project(context.guard().clone());
    let agent = Agent {
        system_prompt: prompt::with_profile_prompt(
            prompt::system_prompt(context.root(), &registry, config.repo_map.as_deref()),
            context.root(),
            config.roles.chat.system_prompt.as_ref(),
        ),
        repo_map: config.repo_map,
        provider: config.provider,
        model,
        registry,
        audit: AuditLog::new(context.root(), config.audit, config.secrets).for_saved_session(
            recorder
                .as_ref()
                .map(|recorder| recorder.session_id().to_string()),
        ),
        context,
        permissions,
        max_tool_rounds: config.max_tool_rounds.max(1),
        interactive: config.interactive,
        history,
        events: event_tx,
        request_id: None,
        approvals: approval_rx,
        error_choices: choice_rx,
        conflict_choices: conflict_rx,
        context_manager,
        cancel_slot: cancel_slot.clone(),
        recorder,
        undo: crate::persist::Undo {
            depth: undo_depth,
            journal: crate::persist::MemoryJournal::default(),
        },
        turns: 0,
        checks: crate::checks::CheckState::new(config.checks),
        localizer: config.localizer,
        guidance: config.guidance,
        roles: config.roles,
        flow: crate::flow::Flow::Agent,
        task: None,
        changes: crate::changes::TurnChanges::default(),
        attempt: 1,
        user_wait: std::time::Duration::ZERO,
        hooks: config.hooks,
    };
    tokio::spawn(route_requests(
        request_rx,
        queue_tx,
        Choices {
            approvals: approval_tx,
            errors: choice_tx,
            conflicts: conflict_tx,
        },
        cancel_slot,
    ));
    tokio::spawn(run_session(agent, queue_rx));
    Ok((
        SessionHandle {
            requests: request_tx,
            numbered: Arc::default(),
        },
        event_rx,
    ))
}

impl Agent {
    /// Switches the approval mode (`session.set_approval`); the command sandbox stays as
    /// the session started.
    /// Sets how much the model reasons in this session's agent requests.
    fn set_thinking(&mut self, level: &str) {
        match hone_protocol::Thinking::parse(level) {
            Some(thinking) => {
                self.roles.chat.generation.thinking = Some(thinking);
                self.emit(Event::ThinkingLevel {
                    level: thinking.to_string(),
                });
            }
            None => self.emit(Event::Error {
                error: crate::api::error_info(HoneError::validation(format!(
                    "`{level}` is not a reasoning level: use one of {}, or a token budget \
                     such as 4096",
                    hone_protocol::THINKING_LEVELS.join(", ")
                ))),
            }),
        }
    }

    fn set_approval(&mut self, mode: &str) {
        match mode.parse::<hone_policy::ApprovalMode>() {
            Ok(mode) => {
                self.permissions.set_mode(mode);
                self.emit(Event::ApprovalMode {
                    mode: mode.as_str().to_string(),
                });
            }
            Err(error) => self.emit(Event::Error {
                error: crate::api::error_info(HoneError::validation(error.to_string())),
            }),
        }
    }
}

/// Where the answers a running turn waits for go.
struct Choices {
    approvals: mpsc::UnboundedSender<(String, ApprovalDecision)>,
    errors: mpsc::UnboundedSender<ErrorChoice>,
    conflicts: mpsc::UnboundedSender<ConflictChoice>,
}

/// Cancels and answers must reach a running turn at once; everything else waits its turn.
async fn route_requests(
    mut requests: mpsc::UnboundedReceiver<RequestFrame>,
    queue: mpsc::UnboundedSender<RequestFrame>,
    choices: Choices,
    cancel_slot: CancelSlot,
) {
    while let Some(frame) = requests.recv().await {
        match frame.request {
            Request::Cancel => cancel_slot.cancel(),
            Request::Approval { call_id, decision } => {
                let _ = choices.approvals.send((call_id, decision));
            }
            Request::ErrorChoice { choice } => {
                let _ = choices.errors.send(choice);
            }
            Request::ConflictChoice { choice } => {
                let _ = choices.conflicts.send(choice);
            }
            Request::Shutdown => {
                cancel_slot.cancel();
                let _ = queue.send(frame);
            }
            Request::UserMessage { .. }
            | Request::SetApproval { .. }
            | Request::SetThinking { .. }
            | Request::History
            | Request::ExportSession { .. }
            | Request::ExpandMentions { .. }
            | Request::InputHistory { .. }
            | Request::RememberInput { .. }
            | Request::IndexStatus
            | Request::Reindex
            | Request::Symbols { .. }
            | Request::DraftInstructions
            | Request::McpStatus
            | Request::McpPrompt { .. }
            | Request::Settings
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
            | Request::NewSession { .. }
            | Request::ResumeSession { .. }
            | Request::ForkSession { .. }
            | Request::RewindPoints
            | Request::Rewind { .. }
            | Request::ListSessions { .. }
            | Request::DeleteSession { .. }
            | Request::SetModel { .. } => {
                let _ = queue.send(frame);
            }
        }
    }
}

async fn run_session(mut agent: Agent, mut queue: mpsc::UnboundedReceiver<RequestFrame>) {
    agent.emit(Event::SessionStarted {
        provider: agent.provider.name().to_string(),
        model: agent.model.clone(),
        approval: agent.permissions.mode().as_str().to_string(),
        root: agent.context.root().display().to_string(),
        session_id: agent
            .recorder
            .as_ref()
            .map(|recorder| recorder.session_id().to_string()),
        forked_from: None,
    });
    agent.show_notices();
    agent.session_start_hooks().await;
    while let Some(frame) = queue.recv().await {
        agent.request_id = Some(frame.id);
        let frame_method = frame.request.method();
        match frame.request {
            Request::UserMessage { text, images } => agent.run_turn(text, &images).await,
            Request::WriteFile { path, content } => agent.write_for_user(path, content).await,
            Request::Undo { count } => {
                agent.undo(count);
                agent.save_context();
            }
            Request::ListUndo => agent.list_undo(),
            Request::Compact => {
                agent.compact_now().await;
                agent.save_context();
            }
            Request::InspectContext { message } => agent.inspect_context(message),
            Request::ProjectFiles { limit } => agent.list_project_files(limit),
            Request::ReadFile { path } => agent.show_file(&path),
            Request::RepoMap => agent.show_repo_map(),
            Request::ReadLogs {
                kind,
                after_ms,
                limit,
            } => agent.show_logs(kind, after_ms, limit),
            Request::TrackFiles { patterns, summary } => {
                agent.track_files(&patterns, summary);
                agent.save_context();
            }
            Request::UntrackFiles { patterns } => {
                agent.untrack_files(&patterns);
                agent.save_context();
            }
            Request::Shutdown => break,
            Request::SetApproval { mode } => agent.set_approval(&mode),
            Request::SetThinking { level } => agent.set_thinking(&level),
            Request::NewSession { .. }
            | Request::ResumeSession { .. }
            | Request::ForkSession { .. }
            | Request::RewindPoints
            | Request::Rewind { .. }
            | Request::ListSessions { .. }
            | Request::DeleteSession { .. }
            | Request::SetModel { .. }
            | Request::History
            | Request::ExportSession { .. }
            | Request::ExpandMentions { .. }
            | Request::InputHistory { .. }
            | Request::RememberInput { .. }
            | Request::IndexStatus
            | Request::Reindex
            | Request::Symbols { .. }
            | Request::DraftInstructions
            | Request::McpStatus
            | Request::McpPrompt { .. }
            | Request::Settings => agent.emit(Event::Error {
                error: crate::api::error_info(HoneError::validation(format!(
                    "`{}` goes to the server that started this session (hone-server), not \
                     to the session",
                    frame_method
                ))),
            }),
            Request::Cancel
            | Request::Approval { .. }
            | Request::ErrorChoice { .. }
            | Request::ConflictChoice { .. } => {}
        }
        agent.request_id = None;
    }
}
