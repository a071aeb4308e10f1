//! The TUI as a state machine: fed with core [`Event`]s and terminal events, it returns
//! [`Effect`]s for the runner to carry out and renders itself to any ratatui backend.

mod choices;
mod commands;
mod core_events;
mod history;
mod keys;
mod rewind;

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::time::Duration;

use hone_api::{Request, TrackedInfo};
use hone_protocol::Message;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::host::{SavedSession, SessionStart};
use crate::input::InputBox;
use crate::modal::{Modal, SessionsModal};
use crate::popup::Popup;
use crate::status::{self, Activity, Status};
use crate::transcript::{Entry, NoticeKind, Transcript};
use crate::wrap::{self, Mode};

/// Conversation rows kept visible above an approval dialog, at least.
const MIN_CONVERSATION_ROWS: u16 = 4;

/// Rows an approval dialog gets, at least, when the screen is too low for both.
const MIN_DIALOG_ROWS: u16 = 7;

/// Facts about the running session, for the status bar and `/status`: the runtime's
/// summary of it.
pub use hone_runtime::SessionSummary as SessionInfo;

/// How the app starts.
#[derive(Debug, Clone, Default)]
pub struct AppOptions {
    /// Project root (for path completion).
    pub root: PathBuf,
    /// Project name shown in the status bar.
    pub project: String,
    /// Current git branch, if any.
    pub branch: Option<String>,
    /// The session.
    pub session: SessionInfo,
    /// Earlier inputs, oldest first (↑/↓).
    pub history: Vec<String>,
    /// Whether `e` in an approval opens `$VISUAL`/`$EDITOR` (else the inline editor).
    pub external_editor: bool,
    /// Ring the bell when a turn that took at least this long ends.
    pub bell_after: Option<Duration>,
}

/// Something the app needs done outside itself.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send a request to the session.
    Send(Request),
    /// Open `content` in the external editor and call [`App::editor_returned`].
    ExternalEdit {
        /// The call being approved.
        call_id: String,
        /// The proposed content.
        content: String,
    },
    /// Replace the session (fresh, resumed, or with another model) and call
    /// [`App::session_replaced`] or [`App::session_failed`].
    StartSession(SessionStart),
    /// List the prompts of this saved session and call [`App::show_rewind_points`].
    RewindPoints(String),
    /// Rewind this saved session to before `prompt` (in a fork with `fork`), then go on in
    /// the session that results with the prompt back in the input.
    Rewind {
        /// The saved session.
        session_id: String,
        /// The prompt's number.
        prompt: u32,
        /// Fork instead of rewinding in place.
        fork: bool,
    },
    /// List the saved sessions and call [`App::show_sessions`].
    ListSessions,
    /// Delete a saved session, then list them again.
    DeleteSession(String),
    /// Bring the code index up to date and call [`App::notice`] with the outcome.
    Reindex,
    /// Stop waiting for the code index in this session (Esc while it is built).
    SkipIndexing,
    /// `/init`: ask the host for a first `AGENTS.md` and propose writing it (an edit to
    /// approve); an existing one only with `force`.
    Init {
        /// Replace an existing `AGENTS.md`.
        force: bool,
    },
    /// Ask the host for the MCP servers' state and call [`App::show_mcp`].
    McpStatus,
    /// Ask the host for an MCP server's prompt and send it as the user's message.
    McpPrompt {
        /// The server's name.
        server: String,
        /// The prompt's name.
        prompt: String,
        /// `key=value` words.
        arguments: String,
    },
    /// Ask the host for a custom command's prompt and send it as the user's message.
    CustomCommand {
        /// The whole line (`/NAME ARGS`), for the error when there is no such command.
        line: String,
        /// The name, without `/`.
        name: String,
        /// The text after the name.
        arguments: String,
    },
    /// Find completions for `word` and call [`App::show_completions`].
    Complete {
        /// The word before the cursor.
        word: String,
    },
    /// Store this input in the persistent history.
    RememberInput(String),
    /// Ring the terminal bell.
    Bell,
    /// Leave the TUI (the runner shuts the session down first).
    Quit,
}

/// Totals over the session.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub(crate) turns: u32,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    pub(crate) tool_calls: u32,
    pub(crate) edits: u32,
    /// US dollars, when the model's price is known.
    pub(crate) cost: f64,
}

/// The whole TUI state.
pub struct App {
    options: AppOptions,
    elapsed: Duration,
    /// The code index's progress while it is built (`indexing 40% (…)`).
    indexing: Option<String>,
    activity: Activity,
    context_used: Option<u64>,
    context_percent_reported: Option<f64>,
    tracked: Vec<TrackedInfo>,
    core_choice_offered: bool,
    transcript: Transcript,
    input: InputBox,
    popup: Option<Popup>,
    modal: Option<Modal>,
    waiting: VecDeque<Modal>,
    scroll: usize,
    last_total: usize,
    last_width: usize,
    page: usize,
    auto_apply: bool,
    running: bool,
    last_message: Option<String>,
    /// Image paths `/image` attached to the next message.
    images: Vec<String>,
    interrupt_armed: bool,
    note: Option<String>,
    applied: Vec<String>,
    /// Diffs waiting for an answer, by call: kept as rejected if denied.
    proposed: HashMap<String, String>,
    totals: Totals,
    session_id: Option<String>,
    quit: bool,
}

impl App {
    /// A new app for a session that has not said anything yet.
    pub fn new(options: AppOptions) -> Self {
        let auto_apply = matches!(options.session.approval.as_str(), "auto-edit" | "full-auto");
        let history = options.history.clone();
        Self {
            options,
            elapsed: Duration::ZERO,
            indexing: None,
            activity: Activity::Ready,
            context_used: None,
            context_percent_reported: None,
            tracked: Vec::new(),
            core_choice_offered: false,
            transcript: Transcript::default(),
            input: InputBox::new(history),
            popup: None,
            modal: None,
            waiting: VecDeque::new(),
            scroll: 0,
            last_total: 0,
            last_width: 0,
            page: 10,
            auto_apply,
            running: false,
            last_message: None,
            images: Vec::new(),
            interrupt_armed: false,
            note: None,
            applied: Vec::new(),
            proposed: HashMap::new(),
            totals: Totals::default(),
            session_id: None,
            quit: false,
        }
    }

    /// Whether the user asked to leave.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// The id of the saved session, once the core has said it.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Whether a turn is running.
    pub fn is_busy(&self) -> bool {
        self.running
    }

    /// Shows the code index's progress in the status bar (`None` once it is built or
    /// skipped); returns whether it changed.
    pub fn set_indexing(&mut self, progress: Option<String>) -> bool {
        let changed = self.indexing != progress;
        self.indexing = progress;
        changed
    }

    /// The whole conversation as it is shown, wrapped to `width` columns: what is printed
    /// to the terminal's scrollback when the TUI ends. Empty when nothing was said.
    pub fn transcript_lines(&mut self, width: u16) -> Vec<Line<'static>> {
        self.transcript.all_lines(usize::from(width).max(1))
    }

    /// Sets the session clock shown in the status bar.
    pub fn set_elapsed(&mut self, elapsed: Duration) {
        self.elapsed = elapsed;
    }

    /// Sets the git branch shown in the status bar.
    pub fn set_branch(&mut self, branch: Option<String>) {
        self.options.branch = branch;
    }

    /// Adds an information line to the conversation (results of host work).
    pub fn notice(&mut self, text: impl Into<String>) {
        self.transcript
            .push(Entry::Notice(NoticeKind::Info, text.into()));
    }

    /// Adds an error line to the conversation.
    pub fn error(&mut self, text: impl Into<String>) {
        self.transcript.push(Entry::Error(text.into()));
    }

    /// The image paths `/image` attached, taken for the message being sent.
    pub fn take_images(&mut self) -> Vec<String> {
        std::mem::take(&mut self.images)
    }

    /// Shows what a message's `@path` mentions attached, and what they could not.
    pub fn mentions_expanded(&mut self, mentions: &crate::host::Mentions) {
        for attached in &mentions.attached {
            self.notice(format!("attached {attached}"));
        }
        for problem in &mentions.problems {
            self.warn(problem.clone());
        }
    }

    /// The model's price when it is known and not free (what the status bar shows).
    pub(crate) fn paid_price(&self) -> Option<hone_api::ModelPrice> {
        self.options
            .session
            .price
            .filter(|price| *price != hone_api::ModelPrice::FREE)
    }

    /// Another session replaced the old one (`/clear`, `/sessions`, `/model`); `history`
    /// is the resumed conversation to show.
    pub fn session_replaced(&mut self, info: SessionInfo, history: &[Message]) {
        let model_changed = info.model != self.options.session.model;
        self.options.session = info;
        self.session_id = None;
        self.transcript.clear();
        self.modal = None;
        self.waiting.clear();
        self.running = false;
        self.activity = Activity::Ready;
        self.context_used = None;
        self.context_percent_reported = None;
        self.tracked.clear();
        self.applied.clear();
        self.scroll = 0;
        self.totals = Totals::default();
        self.show_history(history);
        if !history.is_empty() {
            self.notice(format!(
                "resumed a saved conversation ({} messages)",
                history.len()
            ));
        }
        if model_changed {
            let text = format!("now using {}", self.options.session.model);
            self.notice(text);
        } else if history.is_empty() {
            self.notice("a new conversation started");
        }
    }

    /// Shows a resumed conversation (at start-up or after loading a session).
    pub fn show_history(&mut self, history: &[Message]) {
        history::show(&mut self.transcript, history);
    }

    /// The MCP servers' state, tools and prompts (`/mcp`), one line each.
    pub fn show_mcp(&mut self, lines: Vec<String>) {
        let lines: Vec<Line<'static>> = lines.into_iter().map(Line::from).collect();
        self.open_modal(Modal::Info(crate::modal::InfoModal::new(
            "mcp",
            Box::new(move |_| lines.clone()),
        )));
    }

    /// Sends the text of an MCP prompt as the user's message (shown like one typed).
    pub fn send_prompt_text(&mut self, text: String) -> Request {
        self.scroll = 0;
        self.last_message = Some(text.clone());
        self.transcript.push(Entry::User(text.clone()));
        Request::user_message(text)
    }

    /// The saved sessions, for the `/sessions` dialog.
    pub fn show_sessions(&mut self, sessions: Vec<SavedSession>) {
        if sessions.is_empty() {
            self.notice("no saved sessions for this project yet");
            return;
        }
        let current = self.session_id.clone();
        self.modal = None;
        self.open_modal(Modal::Sessions(SessionsModal::new(sessions, current)));
    }

    /// The session could not be replaced.
    pub fn session_failed(&mut self, message: &str) {
        self.error(format!("could not start a new session: {message}"));
    }

    /// The session ended by itself (it should not): say so and stop taking messages.
    pub fn session_closed(&mut self) {
        self.running = false;
        self.activity = Activity::Failed;
        self.error("the session ended unexpectedly; see .hone/logs/tui.log — Ctrl+D quits");
    }

    fn send(effects: &mut Vec<Effect>, request: Request) {
        effects.push(Effect::Send(request));
    }

    fn context_percent(&self) -> Option<u8> {
        if let Some(percent) = self.context_percent_reported {
            return Some(percent.clamp(0.0, 100.0).ceil() as u8);
        }
        let window = u64::from(self.options.session.context_window?).max(1);
        let used = self.context_used?;
        u8::try_from(used.saturating_mul(100).div_ceil(window).min(100)).ok()
    }

    /// Draws everything.
    pub fn render(&mut self, frame: &mut Frame<'_>) {
        let area = frame.area();
        let approval = self
            .modal
            .as_mut()
            .and_then(|modal| modal.approval_height(area.width));
        let (top, body, input_area, hints) = match approval {
            Some(wanted) => {
                // The approval takes the input's place, sized to what it shows, so the
                // model's last words stay readable above it.
                let rows = area.height.saturating_sub(2);
                let keep = (rows / 3).max(MIN_CONVERSATION_ROWS).min(rows);
                let height = wanted.min((rows - keep).max(rows.min(MIN_DIALOG_ROWS)));
                let [top, body, dialog, hints] = Layout::vertical([
                    Constraint::Length(1),
                    Constraint::Min(0),
                    Constraint::Length(height),
                    Constraint::Length(1),
                ])
                .areas(area);
                (top, body, dialog, hints)
            }
            None => {
                let input_height = self
                    .input
                    .height(area.width)
                    .min(area.height.saturating_sub(3).max(3));
                let [top, body, input_area, hints] = Layout::vertical([
                    Constraint::Length(1),
                    Constraint::Min(1),
                    Constraint::Length(input_height),
                    Constraint::Length(1),
                ])
                .areas(area);
                (top, body, input_area, hints)
            }
        };

        let branch = self.options.branch.clone();
        status::render(
            frame,
            top,
            &Status {
                project: &self.options.project,
                branch: branch.as_deref(),
                model: &self.options.session.model,
                elapsed: self.elapsed,
                activity: &self.activity,
                indexing: self.indexing.as_deref(),
                context_percent: self.context_percent(),
                auto_apply: self.auto_apply,
                cost: self.paid_price().map(|_| self.totals.cost),
            },
        );
        self.render_conversation(frame, body);
        if approval.is_none() {
            self.input.render(frame, input_area, self.running);
        }
        let hints_list = self.hints();
        status::render_hints(frame, hints, &hints_list, self.note.as_deref());
        if let Some(popup) = &self.popup
            && self.modal.is_none()
        {
            popup.render(frame, input_area, body);
        }
        if let Some(modal) = self.modal.as_mut() {
            let over = match approval {
                Some(_) => input_area,
                None => Rect::new(body.x, body.y, body.width, body.height + input_area.height),
            };
            modal.render(frame, over);
        }
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        if self.modal.is_some() {
            return if self.running {
                vec![
                    ("Ctrl+C", "interrupt the turn"),
                    ("PgUp/PgDn", "scroll the dialog"),
                ]
            } else {
                vec![
                    ("Esc", "close"),
                    ("PgUp/PgDn", "scroll the dialog"),
                    ("Ctrl+D", "quit"),
                ]
            };
        }
        if self.running {
            return vec![
                ("Ctrl+C", "interrupt"),
                ("PgUp/PgDn", "scroll"),
                ("Ctrl+O", "tool output"),
                ("Ctrl+T", "thinking"),
                ("Enter", "queue message"),
            ];
        }
        vec![
            ("Enter", "send"),
            ("Alt+Enter", "newline"),
            ("/", "commands"),
            ("Tab", "complete"),
            ("↑↓", "history"),
            ("PgUp/PgDn", "scroll"),
            ("Ctrl+O", "tool output"),
            ("Ctrl+T", "thinking"),
            ("Ctrl+Z", "undo"),
            ("Ctrl+D", "quit"),
        ]
    }

    fn render_conversation(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let width = usize::from(area.width);
        let height = usize::from(area.height);
        self.page = height.saturating_sub(2).max(1);
        if self.transcript.is_empty() {
            frame.render_widget(Paragraph::new(self.welcome(width)), area);
            return;
        }
        let total = self.transcript.total_height(width);
        if self.scroll > 0 && width == self.last_width && total > self.last_total {
            // Keep what the user is reading in place while more arrives below.
            self.scroll += total - self.last_total;
        }
        self.last_total = total;
        self.last_width = width;
        self.scroll = self.scroll.min(total.saturating_sub(height));
        let window = self.transcript.window(width, height, self.scroll);
        frame.render_widget(Paragraph::new(window.lines), area);
        if window.below > 0 && area.height > 0 {
            let noun = if window.below == 1 { "line" } else { "lines" };
            let label = format!(" ↓ {} more {noun} · End jumps down ", window.below);
            let label_width = u16::try_from(label.chars().count())
                .unwrap_or(0)
                .min(area.width);
            let corner = Rect::new(
                area.x + area.width - label_width,
                area.y + area.height - 1,
                label_width,
                1,
            );
            frame.render_widget(
                Paragraph::new(Line::styled(
                    label,
                    Style::new().fg(Color::Black).bg(Color::Yellow),
                )),
                corner,
            );
        }
    }

    fn welcome(&self, width: usize) -> Vec<Line<'static>> {
        let session = &self.options.session;
        let dim = Style::new().add_modifier(Modifier::DIM);
        let mut lines = vec![
            Line::default(),
            Line::from(vec![
                Span::raw("  "),
                Span::styled(
                    "Welcome to hone",
                    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    format!(
                        " · {} via {} · approval: {}",
                        session.model, session.provider, session.approval
                    ),
                    dim,
                ),
            ]),
            Line::default(),
        ];
        let paragraphs = [
            format!(
                "Ask about {} or describe a change. hone reads the code, shows every edit as a diff and asks before it writes or runs anything the approval mode does not allow.",
                self.options.project
            ),
            "/help lists keys and commands · / opens the command list".to_string(),
            "Tab completes paths · ↑ recalls earlier messages · Ctrl+D quits".to_string(),
        ];
        for (index, text) in paragraphs.into_iter().enumerate() {
            let style = if index == 0 { Style::new() } else { dim };
            lines.extend(wrap::wrap(
                vec![Span::styled(text, style)],
                width,
                &[Span::raw("  ")],
                &[Span::raw("  ")],
                Mode::Words,
            ));
            if index == 0 {
                lines.push(Line::default());
            }
        }
        lines
    }
}
