//! `/rewind`: the user's prompts in this session, and going back to before one of them.

use hone_api::RewindPoint;
use ratatui::text::Line;

use super::{App, Effect};
use crate::host::Rewound;
use crate::modal::{InfoModal, Modal};

impl App {
    pub(super) fn rewind_command(&mut self, point: Option<(u32, bool)>, effects: &mut Vec<Effect>) {
        let Some(session_id) = self.session_id.clone() else {
            self.warn("this session is not saved, so it cannot be rewound");
            return;
        };
        match point {
            None => effects.push(Effect::RewindPoints(session_id)),
            Some(_) if self.running => self.warn("a turn is running — Ctrl+C interrupts it first"),
            Some((prompt, fork)) => effects.push(Effect::Rewind {
                session_id,
                prompt,
                fork,
            }),
        }
    }

    /// Lists the session's prompts (`/rewind`), with what `/rewind N` would take back.
    pub fn show_rewind_points(&mut self, points: Vec<RewindPoint>) {
        if points.is_empty() {
            self.notice("no prompt to rewind to yet");
            return;
        }
        let mut lines: Vec<Line<'static>> = points
            .iter()
            .map(|point| {
                let text = point.text.lines().next().unwrap_or_default();
                let edits = match point.edits_since {
                    0 => String::new(),
                    count => format!("  ({count} edit(s) since)"),
                };
                Line::from(format!(
                    "{:>3}  {}{edits}",
                    point.prompt,
                    hone_api::display::line(text)
                ))
            })
            .collect();
        lines.push(Line::from(""));
        lines.push(Line::from(
            "/rewind N goes back to before prompt N (files and conversation); /rewind N fork \
             does it in a new session",
        ));
        self.open_modal(Modal::Info(InfoModal::new(
            "rewind",
            Box::new(move |_| lines.clone()),
        )));
    }

    /// A rewind is done: the prompt goes back in the input to edit and send again (the
    /// runner then opens the session that goes on).
    pub fn rewound(&mut self, rewound: &Rewound) {
        self.input.set_text(&rewound.text);
        self.notice(format!(
            "rewound: {} edit(s) taken back; your prompt is back in the input",
            rewound.undone
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::commands::{Command, parse};

    #[test]
    fn rewind_takes_a_prompt_number_and_fork() {
        assert_eq!(parse("/rewind"), Ok(Command::Rewind(None)));
        assert_eq!(parse("/rewind 3"), Ok(Command::Rewind(Some((3, false)))));
        assert_eq!(
            parse("/rewind 2 fork"),
            Ok(Command::Rewind(Some((2, true))))
        );
        assert!(parse("/rewind 0").is_err());
        assert!(parse("/rewind two").is_err());
        assert!(parse("/rewind 2 spoon").is_err());
    }
}
