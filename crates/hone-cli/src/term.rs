//! Terminal conventions shared by every command: colour (`--color`, `NO_COLOR`), `--quiet`,
//! and a quiet exit when the reader of stdout goes away (`hone ask … | head -2`).

use std::io::{IsTerminal, Write};
use std::sync::OnceLock;

/// Exit code when stdout was closed by its reader: 128 + SIGPIPE, what a program killed by
/// the signal reports to its shell.
pub(crate) const BROKEN_PIPE: u8 = 141;

/// `--color WHEN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when the output is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    /// Always colour, even into pipes and files.
    Always,
    /// Never colour.
    Never,
}

/// How this process writes to the terminal, fixed once at start.
#[derive(Debug, Clone, Copy)]
struct Settings {
    color: ColorChoice,
    quiet: bool,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Fixes the colour choice and quietness for the whole process (the first call wins), and
/// makes a panic caused by a closed stdout (`println!` into a pipe whose reader left) a quiet
/// exit with [`BROKEN_PIPE`].
pub(crate) fn init(color: ColorChoice, quiet: bool) {
    let _ = SETTINGS.set(Settings { color, quiet });
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(i32::from(BROKEN_PIPE));
        }
        default_hook(info);
    }));
}

fn settings() -> Settings {
    SETTINGS.get().copied().unwrap_or(Settings {
        color: ColorChoice::Auto,
        quiet: false,
    })
}

/// Whether `--quiet` was given: only answers and errors are printed.
pub(crate) fn quiet() -> bool {
    settings().quiet
}

/// Whether text written to stderr may carry ANSI colour codes.
pub(crate) fn color_stderr() -> bool {
    decide(
        settings().color,
        no_color_set(),
        std::io::stderr().is_terminal(),
    )
}

/// Whether `NO_COLOR` is set to a non-empty value (<https://no-color.org>).
fn no_color_set() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty())
}

/// The colour decision: `--color` first, then `NO_COLOR`, then whether it is a terminal.
fn decide(choice: ColorChoice, no_color: bool, terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => !no_color && terminal,
    }
}

/// Writes `text` to stdout and flushes it. When the reader has gone away (a closed pipe),
/// hone stops quietly with [`BROKEN_PIPE`]; other errors are returned.
pub(crate) fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {
            std::process::exit(i32::from(BROKEN_PIPE))
        }
        result => result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_colours_a_terminal_unless_no_color_is_set() {
        assert!(decide(ColorChoice::Auto, false, true));
        assert!(!decide(ColorChoice::Auto, true, true));
        assert!(!decide(ColorChoice::Auto, false, false));
    }

    #[test]
    fn an_explicit_choice_beats_no_color_and_the_terminal_test() {
        assert!(decide(ColorChoice::Always, true, false));
        assert!(!decide(ColorChoice::Never, false, true));
    }
}
