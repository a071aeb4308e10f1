//! The event loop: terminal input, core events and host work in, frames out.
//!
//! Keys are drawn at once; core events (a fast stream) are drawn at most once per frame
//! interval, so a keypress is on screen within one frame however fast the model streams.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hone_api::Request;
use hone_protocol::HoneError;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::Event as TermEvent;
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use crate::app::{App, Effect};
use crate::complete;
use crate::error::TuiError;
use crate::host::{Host, SavedSession, Session, SessionStart};
use crate::terminal::Tty;

/// The shortest time between two frames drawn for core events (60 per second).
pub const FRAME: Duration = Duration::from_millis(16);
/// Core events taken in before a frame is considered.
const EVENT_BATCH: usize = 512;
/// How often the git branch in the status bar is read again.
const BRANCH_EVERY_SECS: u64 = 5;
/// The file `/init` writes at the project root.
const AGENTS_FILE: &str = "AGENTS.md";
/// How long a quitting TUI waits for the session to shut down (and save).
const SHUTDOWN_WAIT: Duration = Duration::from_secs(3);

/// Input to the loop.
#[derive(Debug, Clone)]
pub enum Input {
    /// A key, mouse, paste or resize event.
    Terminal(TermEvent),
    /// The terminal went away or a signal asked to stop: leave cleanly.
    Closed,
}

enum HostReply {
    Session(Result<Session, HoneError>),
    Sessions(Result<Vec<SavedSession>, HoneError>),
    Deleted(String, Result<(), HoneError>),
    RewindPoints(Result<Vec<hone_api::RewindPoint>, HoneError>),
    Rewound(Result<crate::host::Rewound, HoneError>),
    Reindexed(Result<String, HoneError>),
    AgentsMd(Result<String, HoneError>),
    Mcp(Vec<String>),
    McpPrompt(Result<String, HoneError>),
    Completions(String, Vec<(String, String)>),
}

/// Runs `app` until the user quits: draws to `terminal`, reads `inputs`, talks to
/// `session`, and asks `host` for new sessions, reindexing and completions (paths under
/// `root`). Returns after the session has been shut down. Without the real terminal, the
/// external editor and the bell are not used.
pub async fn drive<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    host: Arc<dyn Host>,
    session: Session,
    inputs: UnboundedReceiver<Input>,
    root: PathBuf,
) -> Result<(), TuiError> {
    let place = Place {
        root,
        tty: None,
        first: Vec::new(),
    };
    drive_tty(terminal, app, host, session, inputs, place).await
}

/// Where the loop runs: the project root, the real terminal (if any), and the effects
/// to perform before anything else (a message sent from the command line).
pub(crate) struct Place<'a> {
    pub(crate) root: PathBuf,
    pub(crate) tty: Option<&'a Tty>,
    pub(crate) first: Vec<Effect>,
}

/// [`drive`] in `place` (on the real terminal when it has one).
pub(crate) async fn drive_tty<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    host: Arc<dyn Host>,
    session: Session,
    mut inputs: UnboundedReceiver<Input>,
    place: Place<'_>,
) -> Result<(), TuiError> {
    let Place { root, tty, first } = place;
    let (replies_tx, mut replies) = mpsc::unbounded_channel();
    let mut run = Run {
        host,
        session,
        replies: replies_tx,
        root,
        events_open: true,
    };
    run.perform(first, app, terminal, tty)?;
    let started = Instant::now();
    let mut clock = tokio::time::interval(Duration::from_millis(250));
    let mut shown_second = 0;
    let mut urgent = true;
    let mut pending = false;
    let mut last_draw = Instant::now();
    while !app.should_quit() {
        if urgent || (pending && last_draw.elapsed() >= FRAME) {
            terminal
                .draw(|frame| app.render(frame))
                .map_err(|error| TuiError::Terminal(error.to_string()))?;
            last_draw = Instant::now();
            urgent = false;
            pending = false;
        }
        let next_frame = tokio::time::Instant::from_std(last_draw + FRAME);
        tokio::select! {
            biased;
            input = inputs.recv() => {
                match input {
                    Some(Input::Terminal(event)) => {
                        let effects = app.on_terminal_event(event);
                        run.perform(effects, app, terminal, tty)?;
                    }
                    Some(Input::Closed) | None => break,
                }
                urgent = true;
            }
            event = run.session.events.recv(), if run.events_open => {
                match event {
                    Some(frame) => {
                        let mut effects = app.on_core_event(frame.event);
                        for _ in 0..EVENT_BATCH {
                            match run.session.events.try_recv() {
                                Ok(frame) => effects.extend(app.on_core_event(frame.event)),
                                Err(_) => break,
                            }
                        }
                        run.perform(effects, app, terminal, tty)?;
                        pending = true;
                    }
                    None => {
                        run.events_open = false;
                        app.session_closed();
                        urgent = true;
                    }
                }
            }
            Some(reply) = replies.recv() => {
                run.reply(reply, app);
                urgent = true;
            }
            () = tokio::time::sleep_until(next_frame), if pending => {}
            _ = clock.tick() => {
                let second = started.elapsed().as_secs();
                if second != shown_second {
                    shown_second = second;
                    app.set_elapsed(started.elapsed());
                    app.set_indexing(run.host.index_progress());
                    if second.is_multiple_of(BRANCH_EVERY_SECS) {
                        app.set_branch(crate::git::branch(&run.root));
                    }
                    pending = true;
                }
            }
        }
    }
    run.shutdown().await;
    Ok(())
}

struct Run {
    host: Arc<dyn Host>,
    session: Session,
    replies: UnboundedSender<HostReply>,
    root: PathBuf,
    events_open: bool,
}

impl Run {
    fn perform<B: Backend>(
        &mut self,
        effects: Vec<Effect>,
        app: &mut App,
        terminal: &mut Terminal<B>,
        tty: Option<&Tty>,
    ) -> Result<(), TuiError> {
        let mut queue = std::collections::VecDeque::from(effects);
        while let Some(effect) = queue.pop_front() {
            match effect {
                Effect::Send(Request::UserMessage { text, .. }) => {
                    let mentions = self.host.expand_mentions(&text, &app.take_images());
                    app.mentions_expanded(&mentions);
                    let request = Request::UserMessage {
                        text: mentions.text,
                        images: mentions.images,
                    };
                    if self.session.handle.send(request).is_none() {
                        tracing::warn!("the session is gone; request dropped");
                    }
                }
                Effect::Send(request) => {
                    if self.session.handle.send(request).is_none() {
                        tracing::warn!("the session is gone; request dropped");
                    }
                }
                Effect::ExternalEdit { call_id, content } => {
                    let edited = match tty {
                        Some(tty) => {
                            tty.suspend();
                            let edited = crate::editor::edit(&content, None);
                            tty.resume()
                                .map_err(|error| TuiError::Terminal(error.to_string()))?;
                            terminal
                                .clear()
                                .map_err(|error| TuiError::Terminal(error.to_string()))?;
                            edited
                        }
                        None => None,
                    };
                    queue.extend(app.editor_returned(&call_id, edited));
                }
                Effect::StartSession(start) => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let _ = replies.send(HostReply::Session(host.start_session(&start)));
                    });
                }
                Effect::RewindPoints(id) => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let _ = replies.send(HostReply::RewindPoints(host.rewind_points(&id)));
                    });
                }
                Effect::Rewind {
                    session_id,
                    prompt,
                    fork,
                } => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let rewound = host.rewind(&session_id, prompt, fork);
                        let _ = replies.send(HostReply::Rewound(rewound));
                    });
                }
                Effect::ListSessions => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let _ = replies.send(HostReply::Sessions(host.sessions()));
                    });
                }
                Effect::DeleteSession(id) => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let deleted = host.delete_session(&id);
                        let _ = replies.send(HostReply::Deleted(id, deleted));
                        let _ = replies.send(HostReply::Sessions(host.sessions()));
                    });
                }
                Effect::SkipIndexing => {
                    if self.host.skip_indexing() {
                        app.notice("code index skipped for this session (/reindex builds it)");
                    }
                }
                Effect::Reindex => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let _ = replies.send(HostReply::Reindexed(host.reindex()));
                    });
                }
                Effect::Init { force } => {
                    if self.root.join(AGENTS_FILE).exists() && !force {
                        app.warn(format!(
                            "{AGENTS_FILE} exists and was left alone — `/init force` proposes a replacement (shown as a diff to approve)"
                        ));
                        continue;
                    }
                    app.notice(format!("writing {AGENTS_FILE} from the project…"));
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let _ = replies.send(HostReply::AgentsMd(host.agents_md()));
                    });
                }
                Effect::McpStatus => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let _ = replies.send(HostReply::Mcp(host.mcp_status()));
                    });
                }
                Effect::McpPrompt {
                    server,
                    prompt,
                    arguments,
                } => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let text = host.mcp_prompt(&server, &prompt, &arguments);
                        let _ = replies.send(HostReply::McpPrompt(text));
                    });
                }
                Effect::CustomCommand {
                    line,
                    name,
                    arguments,
                } => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    tokio::task::spawn_blocking(move || {
                        let text = host.custom_command(&name, &arguments).ok_or_else(|| {
                            let unknown = crate::commands::parse(&line)
                                .err()
                                .unwrap_or_else(|| format!("unknown command /{name}"));
                            HoneError::config(unknown)
                        });
                        let _ = replies.send(HostReply::McpPrompt(text));
                    });
                }
                Effect::Complete { word } => {
                    let host = self.host.clone();
                    let replies = self.replies.clone();
                    let root = self.root.clone();
                    tokio::task::spawn_blocking(move || {
                        if let Some(found) = complete::mentions(&root, &word, 50) {
                            let found = found.into_iter().map(|path| (path, String::new()));
                            let _ = replies.send(HostReply::Completions(word, found.collect()));
                            return;
                        }
                        let mut found: Vec<(String, String)> = complete::paths(&root, &word, 50)
                            .into_iter()
                            .map(|path| (path, String::new()))
                            .collect();
                        let identifier = word.len() >= 2
                            && word.chars().all(|c| c.is_alphanumeric() || c == '_');
                        if identifier {
                            found.extend(host.symbols(&word, 30));
                        }
                        found.dedup_by(|a, b| a.0 == b.0);
                        let _ = replies.send(HostReply::Completions(word, found));
                    });
                }
                Effect::RememberInput(text) => self.host.remember_input(&text),
                Effect::Bell => {
                    if let Some(tty) = tty {
                        tty.bell();
                    }
                }
                Effect::Quit => {}
            }
        }
        Ok(())
    }

    fn reply(&mut self, reply: HostReply, app: &mut App) {
        match reply {
            HostReply::Session(Ok(mut session)) => {
                self.session.handle.send(Request::Shutdown);
                let info = session.info.clone();
                let history = std::mem::take(&mut session.history);
                self.session = session;
                self.events_open = true;
                app.session_replaced(info, &history);
            }
            HostReply::Session(Err(error)) => app.session_failed(&error.message),
            HostReply::Sessions(Ok(sessions)) => app.show_sessions(sessions),
            HostReply::RewindPoints(Ok(points)) => app.show_rewind_points(points),
            HostReply::RewindPoints(Err(error)) | HostReply::Rewound(Err(error)) => {
                app.error(format!("cannot rewind: {}", error.message));
            }
            HostReply::Rewound(Ok(rewound)) => {
                app.rewound(&rewound);
                // The session goes on from before the prompt (reloaded, or the fork).
                let start = SessionStart {
                    resume: Some(rewound.session_id),
                    model: None,
                };
                let host = self.host.clone();
                let replies = self.replies.clone();
                tokio::task::spawn_blocking(move || {
                    let _ = replies.send(HostReply::Session(host.start_session(&start)));
                });
            }
            HostReply::Sessions(Err(error)) => {
                app.error(format!("cannot list the saved sessions: {}", error.message));
            }
            HostReply::Deleted(id, Ok(())) => app.notice(format!("deleted session {id}")),
            HostReply::Deleted(id, Err(error)) => {
                app.error(format!("cannot delete session {id}: {}", error.message));
            }
            HostReply::Reindexed(Ok(summary)) => app.notice(summary),
            HostReply::Reindexed(Err(error)) => {
                app.error(format!("reindexing failed: {}", error.message));
            }
            HostReply::AgentsMd(Ok(content)) => {
                let request = Request::WriteFile {
                    path: AGENTS_FILE.to_string(),
                    content,
                };
                if self.session.handle.send(request).is_none() {
                    tracing::warn!("the session is gone; request dropped");
                }
            }
            HostReply::AgentsMd(Err(error)) => {
                app.error(format!("/init failed: {}", error.message));
            }
            HostReply::Mcp(lines) => app.show_mcp(lines),
            HostReply::McpPrompt(Ok(text)) => {
                let request = app.send_prompt_text(text);
                if self.session.handle.send(request).is_none() {
                    tracing::warn!("the session is gone; request dropped");
                }
            }
            HostReply::McpPrompt(Err(error)) => app.error(error.message),
            HostReply::Completions(word, found) => app.show_completions(&word, found),
        }
    }

    /// Asks the session to end and waits (briefly) until it has.
    async fn shutdown(mut self) {
        self.session.handle.send(Request::Shutdown);
        if !self.events_open {
            return;
        }
        let drained = tokio::time::timeout(SHUTDOWN_WAIT, async {
            while self.session.events.recv().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tracing::warn!("the session did not end within {SHUTDOWN_WAIT:?}");
        }
    }
}
