//! Syntax colouring with syntect and two-face's syntaxes, in the terminal's own palette.
//!
//! The theme is bat's `ansi` theme: it names palette entries (red, blue, …) instead of
//! RGB values, so code looks right on light and dark terminals and on terminals without
//! true colour.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use syntect::easy::HighlightLines;
use syntect::highlighting::{self, FontStyle, Theme};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use two_face::theme::EmbeddedThemeName;

/// Lines longer than this are shown plain: regex highlighting of minified code is slow.
const MAX_HIGHLIGHT_LEN: usize = 1_000;

struct Assets {
    syntaxes: SyntaxSet,
    theme: Theme,
}

fn assets() -> &'static Assets {
    static ASSETS: OnceLock<Assets> = OnceLock::new();
    ASSETS.get_or_init(|| Assets {
        syntaxes: two_face::syntax::extra_newlines(),
        theme: two_face::theme::extra()
            .get(EmbeddedThemeName::Ansi)
            .clone(),
    })
}

/// Loads the syntaxes on a background thread so the first code block does not wait.
pub(crate) fn warm_up() {
    std::thread::spawn(|| {
        let _ = assets();
    });
}

fn syntax_for_token(token: &str) -> Option<&'static SyntaxReference> {
    let token = token.trim();
    if token.is_empty() {
        return None;
    }
    let syntaxes = &assets().syntaxes;
    syntaxes
        .find_syntax_by_token(token)
        .or_else(|| syntaxes.find_syntax_by_token(&token.to_ascii_lowercase()))
}

fn syntax_for_path(path: &str) -> Option<&'static SyntaxReference> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let syntaxes = &assets().syntaxes;
    let extension = name.rsplit_once('.').map(|(_, extension)| extension);
    extension
        .and_then(|extension| syntaxes.find_syntax_by_extension(extension))
        .or_else(|| syntaxes.find_syntax_by_extension(name))
}

/// Highlights consecutive lines of one file or block (keeps state across lines).
pub(crate) struct LineHighlighter {
    inner: Option<HighlightLines<'static>>,
}

impl LineHighlighter {
    /// For a fenced code block's language token (`rust`, `ts`, `sh`, …).
    pub(crate) fn for_token(token: &str) -> Self {
        Self::with(syntax_for_token(token))
    }

    /// For a file path (by extension or name).
    pub(crate) fn for_path(path: &str) -> Self {
        Self::with(syntax_for_path(path))
    }

    /// No colouring.
    pub(crate) fn plain() -> Self {
        Self { inner: None }
    }

    fn with(syntax: Option<&'static SyntaxReference>) -> Self {
        Self {
            inner: syntax.map(|syntax| HighlightLines::new(syntax, &assets().theme)),
        }
    }

    /// The spans of one line (without its newline).
    pub(crate) fn line(&mut self, text: &str) -> Vec<Span<'static>> {
        let Some(inner) = self
            .inner
            .as_mut()
            .filter(|_| text.len() <= MAX_HIGHLIGHT_LEN)
        else {
            return vec![Span::raw(text.to_string())];
        };
        let with_newline = format!("{text}\n");
        match inner.highlight_line(&with_newline, &assets().syntaxes) {
            Ok(regions) => regions
                .into_iter()
                .filter_map(|(style, piece)| {
                    let piece = piece.trim_end_matches('\n');
                    (!piece.is_empty()).then(|| Span::styled(piece.to_string(), convert(style)))
                })
                .collect(),
            Err(error) => {
                tracing::debug!("highlighting failed: {error}");
                self.inner = None;
                vec![Span::raw(text.to_string())]
            }
        }
    }
}

/// A syntect style as a terminal style: palette colours as palette entries.
fn convert(style: highlighting::Style) -> Style {
    let mut out = Style::new();
    if let Some(color) = palette_color(style.foreground) {
        out = out.fg(color);
    }
    let font = style.font_style;
    if font.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if font.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if font.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

/// bat's encoding: alpha 0 means "palette entry `r`", alpha 1 means "the default colour".
fn palette_color(color: highlighting::Color) -> Option<Color> {
    match color.a {
        0 => Some(match color.r {
            0 => Color::Black,
            1 => Color::Red,
            2 => Color::Green,
            3 => Color::Yellow,
            4 => Color::Blue,
            5 => Color::Magenta,
            6 => Color::Cyan,
            7 => Color::Gray,
            n => Color::Indexed(n),
        }),
        1 => None,
        _ => Some(Color::Rgb(color.r, color.g, color.b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_get_colours_and_unknown_stay_plain() {
        let mut rust = LineHighlighter::for_token("rust");
        let spans = rust.line("fn main() { let x = \"hi\"; }");
        assert!(spans.len() > 1, "{spans:?}");
        assert!(spans.iter().any(|span| span.style.fg.is_some()));
        let text: String = spans.iter().map(|span| span.content.as_ref()).collect();
        assert_eq!(text, "fn main() { let x = \"hi\"; }");

        let mut unknown = LineHighlighter::for_token("no-such-language");
        assert_eq!(unknown.line("x = 1").len(), 1);
    }

    #[test]
    fn paths_pick_the_syntax_by_extension() {
        let mut ts = LineHighlighter::for_path("src/auth.ts");
        assert!(ts.line("const x: number = 1;").len() > 1);
        let mut plain = LineHighlighter::for_path("NOTES");
        assert_eq!(plain.line("const x = 1;").len(), 1);
    }

    #[test]
    fn palette_colours_map_to_terminal_colours() {
        let red = highlighting::Color {
            r: 1,
            g: 0,
            b: 0,
            a: 0,
        };
        assert_eq!(palette_color(red), Some(Color::Red));
        let default = highlighting::Color {
            r: 0,
            g: 0,
            b: 0,
            a: 1,
        };
        assert_eq!(palette_color(default), None);
    }
}
