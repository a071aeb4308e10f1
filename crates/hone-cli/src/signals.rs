//! The signals that stop a one-shot run (`exec`, `ask`): SIGINT (Ctrl+C), SIGTERM (a process
//! manager or `kill`) and SIGHUP (the terminal closed) are handled alike — the first one stops
//! the turn cleanly, so the session is saved and the result reported; `exec` exits at once on
//! a second one.

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// Which signal asked the run to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// SIGINT: Ctrl+C on the terminal.
    Interrupt,
    /// SIGTERM or SIGHUP: the run is being ended from outside, or lost its terminal.
    Ended,
}

/// Starts listening for SIGINT, SIGTERM and SIGHUP; each signal arrives on the receiver.
/// A signal whose handler cannot be installed is not listened for.
pub(crate) fn listen() -> UnboundedReceiver<Stop> {
    let (sender, receiver) = unbounded_channel();
    for (kind, stop) in [
        (SignalKind::interrupt(), Stop::Interrupt),
        (SignalKind::terminate(), Stop::Ended),
        (SignalKind::hangup(), Stop::Ended),
    ] {
        let Ok(mut signals) = signal(kind) else {
            continue;
        };
        let sender = sender.clone();
        tokio::spawn(async move {
            while signals.recv().await.is_some() {
                if sender.send(stop).is_err() {
                    break;
                }
            }
        });
    }
    receiver
}
