//! The approval dialog: what would change (a word-level diff or a command), and the
//! answers y / n (with an optional reason) / e (edit) / a (always this session).

use hone_api::{ApprovalDecision, display};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};
use ratatui_textarea::TextArea;

use super::{ModalAction, centered, scrolled};
use crate::diff_view;
use crate::highlight::LineHighlighter;
use crate::wrap::{self, Mode};

/// The widest the dialog gets, in columns.
const MAX_WIDTH: u16 = 140;

/// What the user is doing in the dialog.
enum Stage {
    /// Choosing an answer.
    Choose,
    /// Typing the reason for a denial.
    Reason(TextArea<'static>),
    /// Editing the proposal inline.
    Edit(TextArea<'static>),
}

/// What an `approval.needed` event proposes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Proposal {
    pub(crate) call_id: String,
    pub(crate) name: String,
    pub(crate) summary: String,
    pub(crate) reason: String,
    pub(crate) diff: Option<String>,
    pub(crate) command: Option<String>,
    pub(crate) content: Option<String>,
}

/// One pending approval.
pub(crate) struct ApprovalModal {
    call_id: String,
    name: String,
    summary: String,
    reason: String,
    diff: Option<String>,
    command: Option<String>,
    content: Option<String>,
    external_editor: bool,
    scroll: usize,
    max_scroll: usize,
    stage: Stage,
    note: Option<String>,
    body: Option<(usize, Vec<Line<'static>>)>,
}

impl ApprovalModal {
    /// A dialog for `proposal`. With `external_editor`, `e` opens the proposal in
    /// `$VISUAL`/`$EDITOR` instead of the inline editor.
    pub(crate) fn new(proposal: Proposal, external_editor: bool) -> Self {
        let Proposal {
            call_id,
            name,
            summary,
            reason,
            diff,
            command,
            content,
        } = proposal;
        Self {
            call_id,
            name,
            summary,
            reason,
            diff,
            command,
            content,
            external_editor,
            scroll: 0,
            max_scroll: 0,
            stage: Stage::Choose,
            note: None,
            body: None,
        }
    }

    /// The call this dialog answers.
    pub(crate) fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The external editor returned: `Some(text)` answers with the edited version,
    /// `None` (editor failed or content unchanged) goes back to choosing.
    pub(crate) fn edited(&mut self, edited: Option<String>) -> ModalAction {
        match edited {
            Some(replacement) if Some(&replacement) != self.content.as_ref() => {
                ModalAction::Decide {
                    call_id: self.call_id.clone(),
                    decision: ApprovalDecision::Edit { replacement },
                }
            }
            Some(_) => {
                self.note = Some("unchanged — answer y, n, e or a".into());
                ModalAction::Stay
            }
            None => {
                self.note = Some("the editor did not save a version — answer y, n, e or a".into());
                ModalAction::Stay
            }
        }
    }

    pub(crate) fn key(&mut self, key: KeyEvent) -> ModalAction {
        match &mut self.stage {
            Stage::Choose => self.choose(key),
            Stage::Reason(area) => match key.code {
                KeyCode::Enter => {
                    let message = area.lines().join("\n").trim().to_string();
                    ModalAction::Decide {
                        call_id: self.call_id.clone(),
                        decision: ApprovalDecision::Deny {
                            message: Some(message).filter(|text| !text.is_empty()),
                        },
                    }
                }
                KeyCode::Esc => {
                    self.stage = Stage::Choose;
                    ModalAction::Stay
                }
                _ => {
                    area.input(key);
                    ModalAction::Stay
                }
            },
            Stage::Edit(area) => {
                let single_line = self.command.is_some();
                let submit = (key.code == KeyCode::Char('s')
                    && key.modifiers.contains(KeyModifiers::CONTROL))
                    || (key.code == KeyCode::Enter
                        && (single_line || key.modifiers.contains(KeyModifiers::ALT)));
                if submit {
                    let replacement = area.lines().join("\n");
                    let replacement = if single_line {
                        replacement.trim().to_string()
                    } else if self
                        .content
                        .as_ref()
                        .is_some_and(|text| text.ends_with('\n'))
                        && !replacement.ends_with('\n')
                    {
                        format!("{replacement}\n")
                    } else {
                        replacement
                    };
                    if replacement.trim().is_empty() {
                        self.note = Some("the edited version is empty — Esc to go back".into());
                        return ModalAction::Stay;
                    }
                    return ModalAction::Decide {
                        call_id: self.call_id.clone(),
                        decision: ApprovalDecision::Edit { replacement },
                    };
                }
                if key.code == KeyCode::Esc {
                    self.stage = Stage::Choose;
                } else {
                    area.input(key);
                }
                ModalAction::Stay
            }
        }
    }

    fn choose(&mut self, key: KeyEvent) -> ModalAction {
        self.note = None;
        let decide = |decision| ModalAction::Decide {
            call_id: self.call_id.clone(),
            decision,
        };
        match key.code {
            KeyCode::Char('y' | 'Y') => decide(ApprovalDecision::Approve),
            KeyCode::Char('a' | 'A') => decide(ApprovalDecision::AlwaysForSession),
            KeyCode::Char('n' | 'N') => {
                let mut area = TextArea::default();
                area.set_cursor_line_style(Style::new());
                area.set_placeholder_text("optional — Enter sends, Esc goes back");
                area.set_placeholder_style(Style::new().add_modifier(Modifier::DIM));
                self.stage = Stage::Reason(area);
                ModalAction::Stay
            }
            KeyCode::Char('e' | 'E') => self.start_edit(),
            KeyCode::Up | KeyCode::Char('k') => self.step(false, 1),
            KeyCode::Down | KeyCode::Char('j') => self.step(true, 1),
            KeyCode::PageUp => self.step(false, 10),
            KeyCode::PageDown | KeyCode::Char(' ') => self.step(true, 10),
            _ => {
                self.note = Some("answer y, n, e or a (Ctrl+C interrupts the turn)".into());
                ModalAction::Stay
            }
        }
    }

    fn step(&mut self, down: bool, lines: usize) -> ModalAction {
        self.scroll(down, lines);
        ModalAction::Stay
    }

    fn start_edit(&mut self) -> ModalAction {
        let text = match (&self.command, &self.content) {
            (Some(command), _) => command.clone(),
            (None, Some(content)) if self.external_editor => {
                return ModalAction::ExternalEdit {
                    call_id: self.call_id.clone(),
                    content: content.clone(),
                };
            }
            (None, Some(content)) => content.clone(),
            (None, None) => {
                self.note = Some(
                    "this change cannot be edited here (several files or a deletion) — answer y, n or a"
                        .into(),
                );
                return ModalAction::Stay;
            }
        };
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut area = TextArea::new(if lines.is_empty() {
            vec![String::new()]
        } else {
            lines
        });
        area.set_cursor_line_style(Style::new());
        area.set_line_number_style(Style::new().fg(Color::DarkGray));
        self.stage = Stage::Edit(area);
        ModalAction::Stay
    }

    pub(crate) fn paste(&mut self, text: &str) {
        match &mut self.stage {
            Stage::Reason(area) => {
                area.insert_str(text.replace(['\r', '\n'], " "));
            }
            Stage::Edit(area) => {
                area.insert_str(text);
            }
            Stage::Choose => {}
        }
    }

    pub(crate) fn scroll(&mut self, down: bool, lines: usize) {
        self.scroll = scrolled(self.scroll, down, lines, self.max_scroll);
    }

    fn body_lines(&mut self, width: usize) -> &[Line<'static>] {
        if !matches!(&self.body, Some((cached, _)) if *cached == width) {
            let mut lines = Vec::new();
            if let Some(command) = &self.command {
                let mut shell = LineHighlighter::for_token("bash");
                for (index, line) in display::exact(command).lines().enumerate() {
                    let prefix = if index == 0 { "$ " } else { "  " };
                    lines.extend(wrap::wrap(
                        shell.line(line),
                        width,
                        &[Span::styled(prefix, Style::new().fg(Color::DarkGray))],
                        &[Span::raw("  ")],
                        Mode::Chars,
                    ));
                }
            }
            if let Some(diff) = &self.diff {
                if !lines.is_empty() {
                    lines.push(Line::default());
                }
                lines.extend(diff_view::render(diff, width));
            }
            self.body = Some((width, lines));
        }
        self.body
            .as_ref()
            .map_or(&[], |(_, lines)| lines.as_slice())
    }

    /// The summary (up to two lines; left out when it only repeats the command), the
    /// reason (one line) and, for a command with control characters, a warning, at `width`
    /// columns.
    fn header_lines(&self, width: usize) -> Vec<Line<'static>> {
        let mut header = if self.command.as_deref() == Some(self.summary.as_str()) {
            Vec::new()
        } else {
            wrap::wrap(
                vec![Span::styled(
                    display::flat(&self.summary),
                    Style::new().add_modifier(Modifier::BOLD),
                )],
                width,
                &[],
                &[],
                Mode::Words,
            )
        };
        header.truncate(2);
        let mut reason = wrap::wrap(
            vec![Span::styled(
                display::flat(&self.reason),
                Style::new().add_modifier(Modifier::DIM),
            )],
            width,
            &[],
            &[],
            Mode::Words,
        );
        reason.truncate(1);
        header.extend(reason);
        if self.command.as_deref().is_some_and(display::has_controls) {
            header.extend(wrap::wrap(
                vec![Span::styled(
                    format!("⚠ {}", display::CONTROL_WARNING),
                    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
                )],
                width,
                &[],
                &[],
                Mode::Words,
            ));
        }
        header
    }

    /// The rows the whole dialog needs on a screen `width` columns wide (borders
    /// included): a one-line command gets a small dialog, a long diff all its lines (the
    /// caller caps it; the body then scrolls).
    pub(crate) fn wanted_height(&mut self, width: u16) -> u16 {
        let inner = usize::from(width.min(MAX_WIDTH).saturating_sub(2)).max(1);
        let header = self.header_lines(inner).len();
        let (body, footer) = match &self.stage {
            Stage::Choose => (self.body_lines(inner).len(), 1),
            Stage::Reason(_) => (self.body_lines(inner).len(), 2),
            // The editor's top border, its lines and one to grow into.
            Stage::Edit(area) => (area.lines().len() + 2, 1),
        };
        let rows = 2 + header + 1 + body.max(1) + footer;
        u16::try_from(rows).unwrap_or(u16::MAX)
    }

    /// Draws the dialog in `area` (its height chosen by the caller from
    /// [`ApprovalModal::wanted_height`]).
    pub(crate) fn render(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let area = centered(area, area.width.min(MAX_WIDTH), area.height);
        frame.render_widget(Clear, area);
        let block = Block::new()
            .borders(Borders::ALL)
            .border_type(BorderType::Rounded)
            .border_style(Style::new().fg(Color::Yellow))
            .title(Span::styled(
                format!(" approve {}? ", display::line(&self.name)),
                Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let width = usize::from(inner.width).max(1);

        let header = self.header_lines(width);
        let header_height = u16::try_from(header.len()).unwrap_or(2);
        let footer_height = match self.stage {
            Stage::Reason(_) => 2,
            _ => 1,
        };
        let [head, body, foot] = Layout::vertical([
            Constraint::Length(header_height + 1),
            Constraint::Min(1),
            Constraint::Length(footer_height),
        ])
        .areas(inner);
        frame.render_widget(Paragraph::new(header), head);

        if let Stage::Edit(editor) = &mut self.stage {
            editor.set_block(
                Block::new()
                    .borders(Borders::TOP)
                    .border_style(Style::new().fg(Color::DarkGray))
                    .title(" edited version "),
            );
            frame.render_widget(&*editor, body);
        } else {
            let height = usize::from(body.height);
            let lines = self.body_lines(width).to_vec();
            self.max_scroll = lines.len().saturating_sub(height);
            self.scroll = self.scroll.min(self.max_scroll);
            let shown: Vec<Line<'static>> =
                lines.into_iter().skip(self.scroll).take(height).collect();
            frame.render_widget(Paragraph::new(shown), body);
        }

        let dim = Style::new().add_modifier(Modifier::DIM);
        match &mut self.stage {
            Stage::Reason(area) => {
                let [label, field] =
                    Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(foot);
                frame.render_widget(
                    Paragraph::new(Line::styled(
                        "Why not? (told to the model)",
                        Style::new().fg(Color::Yellow),
                    )),
                    label,
                );
                frame.render_widget(&*area, field);
            }
            Stage::Edit(_) => {
                let text = if self.command.is_some() {
                    "Enter run the edited command · Esc back"
                } else {
                    "Ctrl+S or Alt+Enter apply the edited version · Esc back"
                };
                frame.render_widget(
                    Paragraph::new(Line::styled(
                        self.note.clone().unwrap_or_else(|| text.into()),
                        dim,
                    )),
                    foot,
                );
            }
            Stage::Choose => {
                let line = match &self.note {
                    Some(note) => Line::styled(note.clone(), Style::new().fg(Color::Yellow)),
                    None => {
                        let key = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
                        let mut spans = vec![
                            Span::styled("y", key),
                            Span::raw(" approve  "),
                            Span::styled("n", key),
                            Span::raw(" deny  "),
                            Span::styled("e", key),
                            Span::raw(" edit  "),
                            Span::styled("a", key),
                            Span::raw(" always this session"),
                        ];
                        if self.max_scroll > 0 {
                            spans.push(Span::styled(
                                format!("  ↑↓ scroll ({}/{})", self.scroll, self.max_scroll),
                                dim,
                            ));
                        }
                        Line::from(spans)
                    }
                };
                frame.render_widget(Paragraph::new(line), foot);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modal(command: Option<&str>, content: Option<&str>, external: bool) -> ApprovalModal {
        ApprovalModal::new(
            Proposal {
                call_id: "c1".into(),
                name: "edit_file".into(),
                summary: "edit src/a.rs".into(),
                reason: "edits ask in this mode".into(),
                diff: Some("--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-a\n+b\n".into()),
                command: command.map(str::to_string),
                content: content.map(str::to_string),
            },
            external,
        )
    }

    fn press(modal: &mut ApprovalModal, code: KeyCode) -> ModalAction {
        modal.key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn decision(action: ModalAction) -> ApprovalDecision {
        match action {
            ModalAction::Decide { decision, .. } => decision,
            other => panic!("expected a decision, got {other:?}"),
        }
    }

    #[test]
    fn y_and_a_answer_at_once() {
        assert_eq!(
            decision(press(&mut modal(None, None, false), KeyCode::Char('y'))),
            ApprovalDecision::Approve
        );
        assert_eq!(
            decision(press(&mut modal(None, None, false), KeyCode::Char('a'))),
            ApprovalDecision::AlwaysForSession
        );
    }

    #[test]
    fn n_asks_for_an_optional_reason() {
        let mut dialog = modal(None, None, false);
        assert_eq!(press(&mut dialog, KeyCode::Char('n')), ModalAction::Stay);
        for c in "use x".chars() {
            press(&mut dialog, KeyCode::Char(c));
        }
        assert_eq!(
            decision(press(&mut dialog, KeyCode::Enter)),
            ApprovalDecision::Deny {
                message: Some("use x".into())
            }
        );
        let mut silent = modal(None, None, false);
        press(&mut silent, KeyCode::Char('n'));
        assert_eq!(
            decision(press(&mut silent, KeyCode::Enter)),
            ApprovalDecision::Deny { message: None }
        );
    }

    #[test]
    fn e_edits_commands_inline_and_content_externally_or_inline() {
        let mut command = modal(Some("cargo test"), None, true);
        press(&mut command, KeyCode::Char('e'));
        press(&mut command, KeyCode::End);
        for c in " -q".chars() {
            press(&mut command, KeyCode::Char(c));
        }
        assert_eq!(
            decision(press(&mut command, KeyCode::Enter)),
            ApprovalDecision::Edit {
                replacement: "cargo test -q".into()
            }
        );

        let mut external = modal(None, Some("b\n"), true);
        assert_eq!(
            press(&mut external, KeyCode::Char('e')),
            ModalAction::ExternalEdit {
                call_id: "c1".into(),
                content: "b\n".into()
            }
        );
        assert_eq!(
            decision(external.edited(Some("c\n".into()))),
            ApprovalDecision::Edit {
                replacement: "c\n".into()
            }
        );

        let mut inline = modal(None, Some("b\n"), false);
        press(&mut inline, KeyCode::Char('e'));
        press(&mut inline, KeyCode::Char('x'));
        let save = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert_eq!(
            decision(inline.key(save)),
            ApprovalDecision::Edit {
                replacement: "xb\n".into()
            }
        );
    }

    #[test]
    fn uneditable_changes_and_other_keys_explain_themselves() {
        let mut dialog = modal(None, None, false);
        assert_eq!(press(&mut dialog, KeyCode::Char('e')), ModalAction::Stay);
        assert!(dialog.note.as_deref().unwrap().contains("cannot be edited"));
        press(&mut dialog, KeyCode::Char('q'));
        assert!(
            dialog
                .note
                .as_deref()
                .unwrap()
                .contains("answer y, n, e or a")
        );
    }
}
