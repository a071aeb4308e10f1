//! The real terminal: raw mode and the alternate screen (the mouse only when asked for),
//! restored on exit, on panic and on signals; a thread reading keys that can be paused
//! while an external editor runs.

use std::io::{Stdout, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, event, execute};
use tokio::sync::mpsc::UnboundedSender;

use crate::runner::Input;

/// How often the key thread checks whether it should pause or stop.
const POLL: Duration = Duration::from_millis(25);

/// Set to `1` to let the TUI take the mouse (wheel scrolls the conversation); otherwise
/// the terminal keeps its own selection and scrolling.
pub(crate) const MOUSE_VAR: &str = "HONE_TUI_MOUSE";

/// Whether the user asked for mouse capture (see [`MOUSE_VAR`]).
fn mouse_wanted() -> bool {
    std::env::var(MOUSE_VAR).is_ok_and(|value| value == "1")
}

/// Switches the terminal into the TUI's modes.
fn enter() -> std::io::Result<()> {
    enable_raw_mode()?;
    let mut stdout = std::io::stdout();
    execute!(
        stdout,
        EnterAlternateScreen,
        EnableBracketedPaste,
        // Lets terminals that support it report Shift+Enter; ignored elsewhere.
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES),
        cursor::Hide,
    )?;
    if mouse_wanted() {
        execute!(stdout, EnableMouseCapture)?;
    }
    Ok(())
}

/// Puts the terminal back as it was. Safe to call more than once, and from a panic hook.
pub(crate) fn restore() {
    let mut stdout = std::io::stdout();
    if mouse_wanted() {
        let _ = execute!(stdout, DisableMouseCapture);
    }
    let _ = execute!(
        stdout,
        PopKeyboardEnhancementFlags,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show,
    );
    let _ = disable_raw_mode();
}

/// Restores the terminal before the default panic message is printed.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// The terminal while the TUI owns it; restores it when dropped.
pub(crate) struct Tty {
    paused: Arc<AtomicBool>,
    parked: Arc<AtomicBool>,
}

impl Tty {
    /// Takes over the terminal and starts the key thread and signal listeners, which feed
    /// `inputs`.
    pub(crate) fn start(
        inputs: UnboundedSender<Input>,
    ) -> std::io::Result<(Self, Terminal<CrosstermBackend<Stdout>>)> {
        install_panic_hook();
        enter()?;
        let tty = Self {
            paused: Arc::new(AtomicBool::new(false)),
            parked: Arc::new(AtomicBool::new(false)),
        };
        let terminal = match Terminal::new(CrosstermBackend::new(std::io::stdout())) {
            Ok(terminal) => terminal,
            Err(error) => {
                restore();
                return Err(error);
            }
        };
        spawn_key_thread(inputs.clone(), tty.paused.clone(), tty.parked.clone());
        spawn_signal_listeners(inputs);
        Ok((tty, terminal))
    }

    /// Gives the terminal back (for an external editor); keys are not read meanwhile.
    pub(crate) fn suspend(&self) {
        self.paused.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + POLL * 8;
        while !self.parked.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        restore();
    }

    /// Takes the terminal again after [`Tty::suspend`].
    pub(crate) fn resume(&self) -> std::io::Result<()> {
        let entered = enter();
        self.paused.store(false, Ordering::SeqCst);
        entered
    }

    /// Rings the bell.
    pub(crate) fn bell(&self) {
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(b"\x07").and_then(|()| stdout.flush());
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        restore();
    }
}

fn spawn_key_thread(
    inputs: UnboundedSender<Input>,
    paused: Arc<AtomicBool>,
    parked: Arc<AtomicBool>,
) {
    std::thread::spawn(move || {
        while !inputs.is_closed() {
            if paused.load(Ordering::SeqCst) {
                parked.store(true, Ordering::SeqCst);
                std::thread::sleep(POLL);
                continue;
            }
            parked.store(false, Ordering::SeqCst);
            match event::poll(POLL) {
                Ok(true) => match event::read() {
                    Ok(event) => {
                        if inputs.send(Input::Terminal(event)).is_err() {
                            break;
                        }
                    }
                    Err(error) => {
                        tracing::warn!("reading the terminal failed: {error}");
                        let _ = inputs.send(Input::Closed);
                        break;
                    }
                },
                Ok(false) => {}
                Err(error) => {
                    tracing::warn!("polling the terminal failed: {error}");
                    let _ = inputs.send(Input::Closed);
                    break;
                }
            }
        }
    });
}

/// SIGTERM, SIGHUP and SIGINT end the TUI cleanly (raw mode delivers Ctrl+C as a key, so
/// SIGINT only comes from outside).
fn spawn_signal_listeners(inputs: UnboundedSender<Input>) {
    use tokio::signal::unix::{SignalKind, signal};
    for (kind, name) in [
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::hangup(), "SIGHUP"),
        (SignalKind::interrupt(), "SIGINT"),
    ] {
        let inputs = inputs.clone();
        match signal(kind) {
            Ok(mut stream) => {
                tokio::spawn(async move {
                    if stream.recv().await.is_some() {
                        tracing::info!("{name} received; leaving");
                        let _ = inputs.send(Input::Closed);
                    }
                });
            }
            Err(error) => tracing::warn!("cannot listen for {name}: {error}"),
        }
    }
}
