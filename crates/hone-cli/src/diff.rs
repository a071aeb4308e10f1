//! Coloured unified diffs for the terminal.

use anstyle::{AnsiColor, Style};
use hone_api::display;

/// `diff` with added lines green, removed red and hunk headers cyan when `color` is set.
/// The lines' own control characters are shown first (`hone_api::display`): a diff carries
/// what the model wrote, and an OSC 8 link or a concealed span must not change what is seen.
pub(crate) fn render(diff: &str, color: bool) -> String {
    let diff = display::text(diff);
    let mut out = String::with_capacity(diff.len() + 64);
    for line in diff.lines() {
        let style = if !color {
            None
        } else if line.starts_with("+++") || line.starts_with("---") {
            Some(Style::new().bold())
        } else if line.starts_with('+') {
            Some(Style::new().fg_color(Some(AnsiColor::Green.into())))
        } else if line.starts_with('-') {
            Some(Style::new().fg_color(Some(AnsiColor::Red.into())))
        } else if line.starts_with("@@") {
            Some(Style::new().fg_color(Some(AnsiColor::Cyan.into())))
        } else {
            None
        };
        match style {
            Some(style) => out.push_str(&format!("{style}{line}{style:#}\n")),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_only_when_asked() {
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n";
        assert_eq!(render(diff, false), diff);
        let coloured = render(diff, true);
        assert!(coloured.contains("\x1b[31m-old\x1b[0m"));
        assert!(coloured.contains("\x1b[32m+new\x1b[0m"));
    }

    #[test]
    fn the_diffs_own_escapes_are_shown_before_it_is_coloured() {
        let diff = "+\x1b]8;;https://evil.example\x1b\\safe\x1b]8;;\x1b\\\n+\x1b[8mhidden\x1b[0m\n";
        let coloured = render(diff, true);
        assert_eq!(
            coloured,
            "\x1b[32m+\\x1b]8;;https://evil.example\\x1b\\safe\\x1b]8;;\\x1b\\\x1b[0m\n\
             \x1b[32m+\\x1b[8mhidden\\x1b[0m\x1b[0m\n"
        );
    }
}
