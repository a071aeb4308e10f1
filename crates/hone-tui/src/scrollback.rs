//! The conversation printed to the terminal's normal screen when the TUI ends, so it
//! stays in the scrollback (the TUI itself draws on the alternate screen, which the
//! terminal throws away on exit).

use std::io::{self, Write};

use hone_api::display;

use ratatui::backend::IntoCrossterm;
use ratatui::crossterm::queue;
use ratatui::crossterm::style::{ContentStyle, PrintStyledContent, StyledContent};
use ratatui::text::Line;

/// Whether the printed conversation keeps its colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Colour {
    /// Colours and bold/dim as on screen.
    Styled,
    /// Text only.
    Plain,
}

impl Colour {
    /// Styled on a colour terminal; plain when stdout is not a terminal, `NO_COLOR` is set
    /// or `TERM` is `dumb`.
    pub(crate) fn detect() -> Self {
        use std::io::IsTerminal;
        let no_colour = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|term| term == "dumb");
        if io::stdout().is_terminal() && !no_colour && !dumb {
            Colour::Styled
        } else {
            Colour::Plain
        }
    }
}

/// Writes `lines` (already wrapped to the terminal's width) to `out`, one per row. This
/// is the one place the TUI writes text to the terminal itself rather than through ratatui's
/// cells, so each span is made safe for it again (`hone_api::display::line`; the entries
/// were already, so this changes nothing unless something slipped through).
pub(crate) fn write(out: &mut impl Write, lines: &[Line<'_>], colour: Colour) -> io::Result<()> {
    for line in lines {
        match colour {
            Colour::Plain => {
                let text: String = line
                    .spans
                    .iter()
                    .map(|span| display::line(&span.content))
                    .collect();
                out.write_all(text.trim_end().as_bytes())?;
            }
            Colour::Styled => {
                for span in &line.spans {
                    let style: ContentStyle = line.style.patch(span.style).into_crossterm();
                    let content = display::line(&span.content);
                    queue!(
                        out,
                        PrintStyledContent(StyledContent::new(style, content.as_ref()))
                    )?;
                }
            }
        }
        out.write_all(b"\n")?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use ratatui::style::{Color, Style};
    use ratatui::text::Span;

    use super::*;

    fn lines() -> Vec<Line<'static>> {
        vec![
            Line::from(vec![
                Span::styled("› ", Style::new().fg(Color::Cyan)),
                Span::raw("hi   "),
            ]),
            Line::default(),
            Line::from("  Hello"),
        ]
    }

    #[test]
    fn plain_output_is_the_text_alone() {
        let mut out = Vec::new();
        write(&mut out, &lines(), Colour::Plain).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "› hi\n\n  Hello\n");
    }

    #[test]
    fn styled_output_keeps_the_colours_and_resets_them() {
        let mut out = Vec::new();
        write(&mut out, &lines(), Colour::Styled).unwrap();
        let text = String::from_utf8(out).unwrap();
        // Cyan foreground, back to the default before the plain text.
        assert_eq!(text, "\u{1b}[38;5;6m› \u{1b}[39mhi   \n\n  Hello\n");
    }

    #[test]
    fn a_span_carrying_an_escape_is_printed_visibly() {
        let lines = [Line::from("\x1b]52;c;eA==\x07\r")];
        for colour in [Colour::Plain, Colour::Styled] {
            let mut out = Vec::new();
            write(&mut out, &lines, colour).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert!(text.contains(r"\x1b]52;c;eA==\x07\r"), "{text:?}");
            assert!(!text.contains(['\x07', '\r']), "{text:?}");
        }
    }
}
