//! `hone ask`: one streamed completion without tools.

use std::io::IsTerminal;
use std::process::ExitCode;

use futures::StreamExt;
use hone_protocol::{ChatRequest, HoneError, Outcome, ResponseCollector, StreamEvent};
use tokio_util::sync::CancellationToken;

use crate::cli::{AskArgs, GlobalArgs};
use crate::exit;

/// Runs `hone ask`.
pub(crate) async fn run(global: &GlobalArgs, args: AskArgs) -> Result<ExitCode, HoneError> {
    let prompt = crate::input::prompt_text(&args.prompt)?;
    let config = crate::load_config(global)?;
    let prompting = crate::provider_factory::Prompting::detect(args.json);
    let provider = crate::provider_factory::build(&config, config.provider()?, prompting).await?;
    let mut request = ChatRequest::new(provider.default_model(), prompt);
    request.system = args.system;
    request.max_tokens = args.max_tokens;

    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });

    let mut output = Output::new(args.json);
    let mut collector = ResponseCollector::new();
    let mut events = provider.stream(request, cancel);
    while let Some(event) = events.next().await {
        output.event(&event)?;
        collector.push(&event);
    }
    output.finish()?;
    Ok(match collector.outcome() {
        Some(Outcome::Completed(_)) => ExitCode::SUCCESS,
        Some(Outcome::Failed(error)) => exit::report(error),
        Some(Outcome::Cancelled) => exit::report(&HoneError::cancelled()),
        None => exit::report(&HoneError::provider("the response ended without a result")),
    })
}

/// Writes events as text (answer on stdout, reasoning dimmed on a terminal's stderr) or JSON lines.
struct Output {
    json: bool,
    show_thinking: bool,
    dim_thinking: bool,
    in_thinking: bool,
    ends_with_newline: bool,
}

impl Output {
    fn new(json: bool) -> Self {
        Self {
            json,
            show_thinking: std::io::stderr().is_terminal() && !crate::term::quiet(),
            dim_thinking: crate::term::color_stderr(),
            in_thinking: false,
            ends_with_newline: true,
        }
    }

    fn event(&mut self, event: &StreamEvent) -> Result<(), HoneError> {
        if self.json {
            let line = serde_json::to_string(event).map_err(|error| {
                HoneError::provider(format!("could not encode an event: {error}"))
            })?;
            return self.write(&format!("{line}\n"));
        }
        match event {
            StreamEvent::TextDelta { text } => {
                self.end_thinking();
                self.ends_with_newline = text.ends_with('\n');
                self.write(text)
            }
            StreamEvent::ThinkingDelta { text } if self.show_thinking => {
                if !self.in_thinking {
                    if self.dim_thinking {
                        eprint!("\x1b[2m");
                    }
                    self.in_thinking = true;
                }
                eprint!("{text}");
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn end_thinking(&mut self) {
        if self.in_thinking {
            if self.dim_thinking {
                eprint!("\x1b[0m");
            }
            eprintln!();
            self.in_thinking = false;
        }
    }

    fn finish(&mut self) -> Result<(), HoneError> {
        self.end_thinking();
        if !self.json && !self.ends_with_newline {
            self.write("\n")?;
        }
        Ok(())
    }

    /// Writes to stdout; a closed pipe ends hone quietly (`crate::term::write_stdout`).
    fn write(&mut self, text: &str) -> Result<(), HoneError> {
        crate::term::write_stdout(text)
            .map_err(|error| HoneError::config(format!("could not write to stdout: {error}")))
    }
}
