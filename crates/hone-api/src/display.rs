//! Text that did not come from hone, made safe to print on a terminal.
//!
//! The model's answers and reasoning, tool output, commands, file names, diffs and stored
//! transcripts may carry control characters and escape sequences: a carriage return and
//! erase-line that hide the start of a command in an approval prompt, OSC 52 (sets the
//! clipboard), OSC 8 (links), OSC 0 (the window title), cursor movement that overwrites what
//! was printed, bidirectional overrides that reorder a line. Every face runs such text
//! through this module before it adds its own colours, so every one of those characters is
//! shown as an escape (`\x1b`, `\r`, `\u{9b}`, `\u{202e}`) and none reaches the terminal raw.
//! Once escaped, the rest of a sequence (`]52;c;…`) is harmless printable text.
//!
//! - [`text`]: prose and file content (answers, reasoning, diffs, transcripts): newlines and
//!   tabs stay, a carriage return before a newline is dropped.
//! - [`exact`]: a command shown for approval: newlines and tabs stay, every other control
//!   character is shown, a carriage return included; [`has_controls`] says whether to warn.
//! - [`line`]: one line (a file name, a title, the status line): every control character is
//!   shown, newlines and tabs included.
//! - [`flat`]: several lines as one: [`text`] with newlines and tabs as spaces.
//! - [`TextStream`]: [`text`] over streamed pieces (a carriage return may end one piece and
//!   its newline start the next).
//! - [`json`] and [`json_pretty`]: JSON for `--json` output, with the characters serde leaves
//!   raw (DEL, C1 controls, bidirectional controls) escaped too.
//!
//! ```
//! use hone_api::display;
//!
//! assert_eq!(display::line("touch pwned\r\x1b[2Kls src"), r"touch pwned\r\x1b[2Kls src");
//! assert_eq!(display::text("a\r\nb\tc\n"), "a\nb\tc\n");
//! assert!(display::has_controls("ls\u{202e}"));
//! ```

use std::borrow::Cow;
use std::fmt::Write;

use serde::Serialize;

/// What a kind of text keeps as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Newlines and tabs; a carriage return right before a newline is dropped.
    Prose,
    /// Newlines and tabs; every carriage return is shown.
    Exact,
    /// Nothing: newlines and tabs are shown too.
    Line,
}

/// Prose or file content made safe for a terminal: newlines and tabs stay, a carriage return
/// before a newline is dropped (Windows line endings), every other control character,
/// escape sequence introducer and bidirectional control is shown as an escape.
#[must_use]
pub fn text(input: &str) -> Cow<'_, str> {
    sanitize(input, Keep::Prose)
}

/// A command as it will run, every control character visible (a carriage return included);
/// newlines and tabs stay. Pair it with [`has_controls`] to warn.
#[must_use]
pub fn exact(input: &str) -> Cow<'_, str> {
    sanitize(input, Keep::Exact)
}

/// One line made safe for a terminal: every control character is shown as an escape,
/// newlines and tabs included.
#[must_use]
pub fn line(input: &str) -> Cow<'_, str> {
    sanitize(input, Keep::Line)
}

/// Several lines as one, for a place with room for one (a tool line, a transcript's
/// summary): [`text`], with newlines and tabs turned into spaces.
#[must_use]
pub fn flat(input: &str) -> String {
    text(input).replace(['\n', '\t'], " ")
}

/// Whether `input` holds a character [`exact`] shows as an escape: anything that may hide
/// or reorder what a terminal displays (newlines and tabs do not count).
#[must_use]
pub fn has_controls(input: &str) -> bool {
    input.chars().any(|c| hidden(c, Keep::Exact))
}

/// The warning an approval prompt adds for a command with control characters.
pub const CONTROL_WARNING: &str = "this command contains control characters (shown as \\x1b, \\r, \\u{…}); \
     what a terminal displays of it may not be what runs";

/// [`text`] over a stream of pieces: a carriage return that ends one piece is dropped when
/// the next one starts with a newline, and shown otherwise.
#[derive(Debug, Default)]
pub struct TextStream {
    /// The previous piece ended with a carriage return not yet written.
    carriage_return: bool,
}

impl TextStream {
    /// A stream with nothing pending.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `piece` made safe, with what the previous piece left pending in front.
    pub fn push(&mut self, piece: &str) -> String {
        let mut whole = String::with_capacity(piece.len() + 1);
        if std::mem::take(&mut self.carriage_return) {
            whole.push('\r');
        }
        let piece = match piece.strip_suffix('\r') {
            Some(rest) => {
                self.carriage_return = true;
                rest
            }
            None => piece,
        };
        whole.push_str(piece);
        text(&whole).into_owned()
    }

    /// What is still pending at the end of the stream (a last carriage return, shown).
    pub fn finish(&mut self) -> String {
        if std::mem::take(&mut self.carriage_return) {
            r"\r".to_string()
        } else {
            String::new()
        }
    }
}

/// `value` as one line of JSON in which every character a terminal could act on is escaped:
/// serde escapes C0 controls; DEL, C1 controls and bidirectional controls are escaped here.
///
/// # Errors
/// When `value` cannot be serialised.
pub fn json<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    serde_json::to_string(value).map(escape_json)
}

/// [`json`], indented.
///
/// # Errors
/// When `value` cannot be serialised.
pub fn json_pretty<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    serde_json::to_string_pretty(value).map(escape_json)
}

/// Escapes the characters serde leaves raw. They can only stand inside strings (JSON's own
/// syntax is ASCII), where `\uXXXX` means the same character, so the JSON stays equal.
fn escape_json(json: String) -> String {
    if !json.chars().any(|c| hidden(c, Keep::Exact)) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hidden(c, Keep::Exact) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

fn sanitize(input: &str, keep: Keep) -> Cow<'_, str> {
    if !input.chars().any(|c| hidden(c, keep)) {
        return Cow::Borrowed(input);
    }
    let mut out = String::with_capacity(input.len() + 16);
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        if !hidden(c, keep) {
            out.push(c);
        } else if c == '\r' && keep == Keep::Prose && chars.peek() == Some(&'\n') {
            // A Windows line ending: the newline alone does the same on a terminal.
        } else {
            escape(&mut out, c);
        }
    }
    Cow::Owned(out)
}

/// Whether `c` must not reach a terminal as it is.
fn hidden(c: char, keep: Keep) -> bool {
    match c {
        '\n' | '\t' => keep == Keep::Line,
        // C0 controls (ESC, CR, BS, BEL, …), DEL, C1 controls (CSI, OSC, DCS as one byte).
        '\0'..='\x1f' | '\x7f'..='\u{9f}' => true,
        // Bidirectional embeddings, overrides and isolates: they reorder what is displayed.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// Appends the visible form of `c`: `\n`, `\r`, `\t`, `\x1b` for other C0 controls and DEL,
/// `\u{9b}` for the rest.
fn escape(out: &mut String, c: char) {
    let _ = match c {
        '\n' => write!(out, r"\n"),
        '\r' => write!(out, r"\r"),
        '\t' => write!(out, r"\t"),
        '\0'..='\x1f' | '\x7f' => write!(out, "\\x{:02x}", u32::from(c)),
        _ => write!(out, "\\u{{{:x}}}", u32::from(c)),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csi_sequences_are_shown() {
        assert_eq!(text("\x1b[31mred\x1b[0m"), r"\x1b[31mred\x1b[0m");
        assert_eq!(text("up\x1b[1A\x1b[2K"), r"up\x1b[1A\x1b[2K");
        // CSI as a single C1 character.
        assert_eq!(text("\u{9b}2J"), r"\u{9b}2J");
    }

    #[test]
    fn osc_sequences_are_shown() {
        // OSC 52 sets the clipboard, OSC 0 the window title, OSC 8 makes a link.
        assert_eq!(
            text("\x1b]52;c;cm0gLXJmIH4=\x07"),
            r"\x1b]52;c;cm0gLXJmIH4=\x07"
        );
        assert_eq!(text("\x1b]0;title\x1b\\"), r"\x1b]0;title\x1b\");
        assert_eq!(
            text("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"),
            r"\x1b]8;;https://evil.example\x1b\click\x1b]8;;\x1b\"
        );
        // OSC as a single C1 character, ended by ST.
        assert_eq!(text("\u{9d}0;t\u{9c}"), r"\u{9d}0;t\u{9c}");
    }

    #[test]
    fn dcs_and_other_c1_controls_are_shown() {
        assert_eq!(text("\x1bP1$r\x1b\\"), r"\x1bP1$r\x1b\");
        assert_eq!(text("\u{90}q\u{9c}"), r"\u{90}q\u{9c}");
        assert_eq!(text("\u{85}\u{8d}"), r"\u{85}\u{8d}");
    }

    #[test]
    fn carriage_return_backspace_bell_and_delete_are_shown() {
        assert_eq!(
            text("rm -rf ~ was run\rNothing was run"),
            r"rm -rf ~ was run\rNothing was run"
        );
        assert_eq!(text("abc\x08\x08\x08xyz"), r"abc\x08\x08\x08xyz");
        assert_eq!(text("ding\x07"), r"ding\x07");
        assert_eq!(text("a\x7fb\0c"), r"a\x7fb\x00c");
    }

    #[test]
    fn bidirectional_controls_are_shown() {
        assert_eq!(
            text("if access_level != \"user\u{202e} \u{2066}// admin\u{2069} \u{2066}\""),
            r#"if access_level != "user\u{202e} \u{2066}// admin\u{2069} \u{2066}""#
        );
        for c in [
            '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{2067}', '\u{2068}',
        ] {
            assert!(has_controls(&c.to_string()), "{c:?}");
        }
        // Right-to-left text itself is not a control.
        assert_eq!(text("שלום"), "שלום");
    }

    #[test]
    fn prose_keeps_newlines_tabs_and_windows_line_endings() {
        let prose = "fn main() {\n\tprintln!(\"hi\");\n}\n";
        assert!(matches!(text(prose), Cow::Borrowed(_)));
        assert_eq!(text("one\r\ntwo\r\n"), "one\ntwo\n");
        assert_eq!(text("ünïcödé ✓ 日本 👨‍👩‍👧"), "ünïcödé ✓ 日本 👨‍👩‍👧");
    }

    #[test]
    fn a_command_shows_every_carriage_return_and_keeps_its_lines() {
        assert_eq!(
            exact("touch pwned\r\x1b[2Kls src"),
            r"touch pwned\r\x1b[2Kls src"
        );
        assert_eq!(exact("echo a\r\necho b"), "echo a\\r\necho b");
        assert_eq!(exact("cat <<EOF\n\tx\nEOF"), "cat <<EOF\n\tx\nEOF");
        assert!(has_controls("touch pwned\r\x1b[2Kls src"));
        assert!(has_controls("echo a\r\n"));
        assert!(!has_controls("cargo test\n\tls"));
    }

    #[test]
    fn one_line_shows_newlines_and_tabs() {
        assert_eq!(line("a\nb\tc"), r"a\nb\tc");
        assert_eq!(line("src/main.rs"), "src/main.rs");
    }

    #[test]
    fn flat_text_is_one_line_with_its_controls_shown() {
        assert_eq!(flat("a\r\nb\tc\rd"), r"a b c\rd");
    }

    #[test]
    fn sanitising_twice_changes_nothing_more() {
        for input in ["\x1b]52;c;x\x07", "a\rb\r\n", "\u{202e}x", "\u{9b}1m"] {
            for keep in [Keep::Prose, Keep::Exact, Keep::Line] {
                let once = sanitize(input, keep).into_owned();
                assert_eq!(sanitize(&once, keep), once, "{input:?} {keep:?}");
                assert!(!once.chars().any(|c| hidden(c, Keep::Exact)), "{once:?}");
            }
        }
    }

    #[test]
    fn a_stream_joins_a_windows_line_ending_split_between_pieces() {
        let mut stream = TextStream::new();
        let mut out = stream.push("one\r");
        out.push_str(&stream.push("\ntwo\r"));
        out.push_str(&stream.push("\x1b[2K"));
        out.push_str(&stream.push("end\r"));
        out.push_str(&stream.finish());
        assert_eq!(
            out,
            r"one
two\r\x1b[2Kend\r"
        );
    }

    #[test]
    fn json_escapes_what_serde_leaves_raw_and_stays_the_same_value() {
        let value = serde_json::json!({
            "text": "\x1b]52;c;eA==\x07 \r\x1b[2K \u{9b}31m \u{202e}x\u{7f}"
        });
        for encoded in [json(&value).unwrap(), json_pretty(&value).unwrap()] {
            assert!(
                !encoded.chars().any(|c| c.is_control() && c != '\n'),
                "{encoded:?}"
            );
            assert!(!encoded.contains('\u{202e}'), "{encoded:?}");
            assert!(encoded.contains(r"\u001b]52"), "{encoded}");
            assert!(encoded.contains(r"\u009b31m"), "{encoded}");
            let back: serde_json::Value = serde_json::from_str(&encoded).unwrap();
            assert_eq!(back, value);
        }
        assert_eq!(json("plain").unwrap(), "\"plain\"");
    }
}
