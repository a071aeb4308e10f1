//! Running slash commands, and the panels they open.

use hone_api::{Request, UndoEntry};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::{App, Effect};
use crate::commands::{COMMANDS, Command, parse};
use crate::diff_view;
use hone_api::thousands;

use crate::format::clock;
use crate::host::SessionStart;
use crate::modal::{InfoModal, Modal};
use crate::transcript::{Entry, NoticeKind};
use crate::wrap::{self, Mode};

/// What `/eval` asks the model.
pub(crate) const EVAL_PROMPT: &str = "Check your last answer against the code you actually read in \
this session. List every claim in it that the code you read does not support (name the claim and \
what is missing or contradicts it), then say which claims are supported and by which file and line. \
Read more code if you need to; do not change any files.";

/// Keys listed by `/help`.
const KEYS: &[(&str, &str)] = &[
    ("Enter", "send the message (queued while a turn runs)"),
    ("Alt+Enter, Shift+Enter, Ctrl+J", "new line"),
    ("↑ / ↓", "earlier messages (on the first / last line)"),
    ("Tab", "complete a path or symbol; choose in a popup"),
    (
        "PgUp / PgDn",
        "scroll the conversation (the wheel too with HONE_TUI_MOUSE=1)",
    ),
    (
        "Ctrl+Home / Ctrl+End, End",
        "top / bottom of the conversation",
    ),
    ("Ctrl+O", "show or hide tool output"),
    ("Ctrl+T", "show or hide the model's thinking"),
    ("Ctrl+G", "expand every diff, or collapse them all"),
    ("Ctrl+Z", "undo the last edit"),
    ("Ctrl+C", "interrupt the turn; twice quits"),
    ("Ctrl+D", "quit (the session is kept)"),
    ("Esc", "close a popup or dialog"),
    (
        "y / n / e / a",
        "in an approval: approve / deny (with a reason) / edit / always",
    ),
];

impl App {
    pub(super) fn run_command(&mut self, line: &str, effects: &mut Vec<Effect>) {
        if let Some(effect) = mcp_prompt(line) {
            if self.running {
                self.warn("a turn is running — Ctrl+C interrupts it first");
            } else {
                effects.push(effect);
            }
            return;
        }
        if let Some(effect) = custom_command(line) {
            if self.running {
                self.warn("a turn is running — Ctrl+C interrupts it first");
            } else {
                effects.push(effect);
            }
            return;
        }
        let command = match parse(line) {
            Ok(command) => command,
            Err(message) => {
                self.transcript.push(Entry::Error(message));
                return;
            }
        };
        match command {
            Command::Help => {
                self.open_modal(Modal::Info(InfoModal::new("help", Box::new(help_lines))))
            }
            Command::Clear => {
                if self.running {
                    self.warn("a turn is running — Ctrl+C interrupts it first");
                } else {
                    effects.push(Effect::StartSession(SessionStart::default()));
                }
            }
            Command::Undo(count) => Self::send(effects, Request::Undo { count }),
            Command::UndoList => Self::send(effects, Request::ListUndo),
            Command::Rewind(point) => self.rewind_command(point, effects),
            Command::Sessions(args) => self.sessions_command(&args, effects),
            Command::Status => {
                let lines = self.status_lines();
                self.open_modal(Modal::Info(InfoModal::new(
                    "status",
                    Box::new(move |_| lines.clone()),
                )));
            }
            Command::Reindex => {
                self.notice("updating the code index…");
                effects.push(Effect::Reindex);
            }
            Command::Init { force } => {
                if self.running {
                    self.warn("a turn is running — /init when it ends");
                } else {
                    effects.push(Effect::Init { force });
                }
            }
            Command::Mcp => effects.push(Effect::McpStatus),
            Command::Eval => {
                if self.last_message.is_none() {
                    self.warn("nothing to check yet: /eval checks the last answer");
                } else {
                    self.submit_message(EVAL_PROMPT.to_string(), effects);
                }
            }
            Command::AutoApply(setting) => {
                if let Some(on) = setting {
                    self.auto_apply = on;
                }
                let text = if self.auto_apply {
                    "auto-apply is on: edits are applied without asking and shown as diffs (commands still ask as the approval mode says)"
                } else {
                    "auto-apply is off: every edit the approval mode asks about opens the approval dialog"
                };
                self.notice(text);
            }
            Command::Model(None) => {
                let text = format!(
                    "model: {} via {} (/model NAME switches)",
                    self.options.session.model, self.options.session.provider
                );
                self.notice(text);
            }
            Command::Model(Some(model)) => {
                if self.running {
                    self.warn("a turn is running — Ctrl+C interrupts it first");
                } else {
                    // The same conversation goes on with the new model (a saved session is
                    // resumed; an unsaved one starts afresh).
                    effects.push(Effect::StartSession(SessionStart {
                        resume: self.session_id.clone(),
                        model: Some(model),
                    }));
                }
            }
            Command::Compact => {
                if self.running {
                    self.warn("a turn is running — /compact when it ends");
                } else {
                    self.notice("compacting the conversation…");
                    Self::send(effects, Request::Compact);
                }
            }
            Command::Diff => {
                if self.applied.is_empty() {
                    self.notice("no changes applied in this session");
                } else {
                    let diffs = self.applied.join("\n");
                    self.open_modal(Modal::Info(InfoModal::new(
                        "changes this session",
                        Box::new(move |width| diff_view::render(&diffs, width)),
                    )));
                }
            }
            Command::Add { patterns, summary } => {
                Self::send(effects, Request::TrackFiles { patterns, summary });
            }
            Command::Drop(patterns) => Self::send(effects, Request::UntrackFiles { patterns }),
            Command::Think(level) => Self::send(effects, Request::SetThinking { level }),
            Command::Image(path) => {
                self.notice(format!(
                    "image {path} goes with your next message (/image clear drops it)"
                ));
                self.images.push(path);
            }
            Command::ImageClear => {
                let count = std::mem::take(&mut self.images).len();
                self.notice(format!("{count} attached image(s) dropped"));
            }
            Command::Quit => {
                self.quit = true;
                effects.push(Effect::Quit);
            }
        }
    }

    fn sessions_command(&mut self, args: &str, effects: &mut Vec<Effect>) {
        let mut words = args.split_whitespace();
        match (words.next(), words.next()) {
            (None, _) | (Some("list"), None) => effects.push(Effect::ListSessions),
            (Some("load" | "resume"), Some(id)) => {
                if self.running {
                    self.warn("a turn is running — Ctrl+C interrupts it first");
                } else {
                    effects.push(Effect::StartSession(SessionStart {
                        resume: Some(id.to_string()),
                        model: None,
                    }));
                }
            }
            (Some("delete"), Some(id)) if self.session_id.as_deref() == Some(id) => {
                self.warn("that is the running session; /clear first, then delete it");
            }
            (Some("delete"), Some(id)) => effects.push(Effect::DeleteSession(id.to_string())),
            _ => self.warn("use /sessions, /sessions load ID or /sessions delete ID"),
        }
    }

    pub(super) fn show_undo_stack(&mut self, entries: &[UndoEntry]) {
        if entries.is_empty() {
            self.notice("nothing to undo");
            return;
        }
        let lines: Vec<Line<'static>> = entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                Line::from(vec![
                    Span::styled(format!("{:>3}  ", index + 1), Style::new().fg(Color::Cyan)),
                    Span::raw(entry.summary.clone()),
                ])
            })
            .chain(std::iter::once(Line::styled(
                "/undo N takes back the newest N",
                Style::new().add_modifier(Modifier::DIM),
            )))
            .collect();
        self.open_modal(Modal::Info(InfoModal::new(
            "undo stack (newest first)",
            Box::new(move |_| lines.clone()),
        )));
    }

    pub(crate) fn warn(&mut self, text: impl Into<String>) {
        self.transcript
            .push(Entry::Notice(NoticeKind::Warning, text.into()));
    }

    fn status_lines(&self) -> Vec<Line<'static>> {
        let session = &self.options.session;
        let totals = self.totals;
        let context = match (self.context_used, session.context_window) {
            (Some(used), Some(window)) => format!(
                "{} of {} tokens ({}%) in the last request",
                thousands(used),
                thousands(u64::from(window)),
                self.context_percent().unwrap_or(0)
            ),
            (None, Some(window)) => format!(
                "window {} tokens; nothing sent yet",
                thousands(u64::from(window))
            ),
            (Some(used), None) => format!(
                "{} tokens in the last request; window unknown",
                thousands(used)
            ),
            (None, None) => "window unknown; nothing sent yet".to_string(),
        };
        let tracked = if self.tracked.is_empty() {
            "none (/add GLOB)".to_string()
        } else {
            self.tracked
                .iter()
                .map(|file| file.path.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let rows = [
            ("provider", session.provider.clone()),
            ("model", session.model.clone()),
            ("approval", session.approval.clone()),
            (
                "auto-apply",
                if self.auto_apply { "on" } else { "off" }.to_string(),
            ),
            ("project", self.options.root.display().to_string()),
            ("index", session.index.clone()),
            ("sandbox", session.sandbox.clone()),
            (
                "roles",
                if session.roles.is_empty() {
                    "none set (the session's model for every job)".to_string()
                } else {
                    session.roles.join(", ")
                },
            ),
            ("context", context),
            ("session time", clock(self.elapsed)),
            ("turns", totals.turns.to_string()),
            (
                "tokens",
                format!(
                    "{} in, {} out",
                    thousands(totals.input_tokens),
                    thousands(totals.output_tokens)
                ),
            ),
            (
                "cost",
                match session.price {
                    Some(price) if price == hone_api::ModelPrice::FREE => "free".to_string(),
                    Some(_) => hone_api::dollars(totals.cost),
                    None => "unknown for this model (tokens only)".to_string(),
                },
            ),
            ("tool calls", totals.tool_calls.to_string()),
            (
                "edits applied",
                format!("{} ({} still applied)", totals.edits, self.applied.len()),
            ),
            ("tracked files", tracked),
            (
                "session id",
                self.session_id
                    .clone()
                    .unwrap_or_else(|| "not saved".into()),
            ),
        ];
        rows.into_iter()
            .map(|(name, value)| {
                Line::from(vec![
                    Span::styled(format!("{name:>14}  "), Style::new().fg(Color::Cyan)),
                    Span::raw(value),
                ])
            })
            .collect()
    }
}

fn help_lines(width: usize) -> Vec<Line<'static>> {
    let heading = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::styled("Keys", heading)];
    for (keys, what) in KEYS {
        lines.extend(help_row(keys, what, width));
    }
    lines.push(Line::default());
    lines.push(Line::styled("Commands", heading));
    for command in COMMANDS {
        let name = if command.args.is_empty() {
            command.name.to_string()
        } else {
            format!("{} {}", command.name, command.args)
        };
        lines.extend(help_row(&name, command.help, width));
    }
    lines
}

/// `  keys   what it does`, the description wrapped beside the keys (or below them when
/// the panel is narrow).
fn help_row(keys: &str, what: &str, width: usize) -> Vec<Line<'static>> {
    const KEY_COLUMN: usize = 34;
    let key = Style::new().fg(Color::Cyan);
    let text = vec![Span::raw(what.to_string())];
    if width < KEY_COLUMN + 20 {
        let mut lines = vec![Line::styled(format!("  {keys}"), key)];
        lines.extend(wrap::wrap(
            text,
            width,
            &[Span::raw("    ")],
            &[Span::raw("    ")],
            Mode::Words,
        ));
        return lines;
    }
    let first = [Span::styled(
        format!("  {keys:<width$}", width = KEY_COLUMN - 2),
        key,
    )];
    let rest = [Span::raw(" ".repeat(KEY_COLUMN))];
    wrap::wrap(text, width, &first, &rest, Mode::Words)
}

/// `/NAME ARGS` where NAME is no built-in command: a custom command, if the host has one.
fn custom_command(line: &str) -> Option<Effect> {
    let rest = line.trim().strip_prefix('/')?;
    let (name, arguments) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let builtin = crate::commands::builtin_names().contains(&name.to_ascii_lowercase().as_str());
    (!name.is_empty() && !builtin).then(|| Effect::CustomCommand {
        line: line.to_string(),
        name: name.to_string(),
        arguments: arguments.trim().to_string(),
    })
}

/// `/server:prompt key=value…`: an MCP server's prompt.
fn mcp_prompt(line: &str) -> Option<Effect> {
    let rest = line.strip_prefix('/')?;
    let (name, arguments) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let (server, prompt) = name.split_once(':')?;
    (!server.is_empty() && !prompt.is_empty()).then(|| Effect::McpPrompt {
        server: server.to_string(),
        prompt: prompt.to_string(),
        arguments: arguments.trim().to_string(),
    })
}
