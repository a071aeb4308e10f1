//! `hone ask`: one streamed completion without tools.

use std::io::IsTerminal;
use std::process::ExitCode;

use futures::StreamExt;
use hone_api::display::TextStream;
use hone_api::{Event, EventFrame};
use hone_protocol::{ChatRequest, HoneError, ResponseCollector, StreamEvent};
use tokio_util::sync::CancellationToken;

use crate::cli::{AskArgs, GlobalArgs};
use crate::exit;
use crate::json_lines::{self, RunRecord};

/// Runs `hone ask`.
pub(crate) async fn run(global: &GlobalArgs, args: AskArgs) -> Result<ExitCode, HoneError> {
    let json = args.json;
    let mut record = RunRecord::new();
    let answered = answer(global, args, &mut record).await;
    if json && let Err(error) = &answered {
        json_lines::print_failure(&record, error);
    }
    answered
}

async fn answer(
    global: &GlobalArgs,
    args: AskArgs,
    record: &mut RunRecord,
) -> Result<ExitCode, HoneError> {
    let prompt = crate::input::prompt_text(&args.prompt)?;
    let overrides = hone_config::CliOverrides {
        thinking: args.thinking.clone(),
        ..crate::overrides(global)
    };
    let config = crate::load_config_with(global, overrides)?;
    let (prompt, images) = crate::input::attach_mentions(
        hone_runtime::expand_mentions(
            &crate::project_dir(global)?,
            &hone_runtime::agent::secret_files(&config),
            &prompt,
        ),
        &args.images,
    )?;
    let terminal = crate::terminal::Terminal::detect(args.json);
    let provider = hone_runtime::provider::build(&config, config.provider()?, &terminal).await?;
    let model = provider.default_model().to_string();
    let images =
        hone_context::images::image_blocks(&model, provider.accepts_images(&model), &images)
            .map_err(|error| HoneError::validation(error.to_string()))?;
    let mut request = ChatRequest::new(model, prompt);
    if let Some(message) = request.messages.last_mut() {
        message.content.extend(images);
    }
    // The profile's system prompt, unless `--system` gives one (ask has no built-in prompt).
    request.system = args
        .system
        .or_else(|| config.system_prompt().map(|prompt| prompt.text));
    request.max_tokens = args.max_tokens;
    config.generation().apply_to(&mut request);

    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    let mut stops = crate::signals::listen();
    tokio::spawn(async move {
        if stops.recv().await.is_some() {
            on_interrupt.cancel();
        }
    });

    let mut output = Output::new(args.json);
    output.frame(Event::TurnStarted { turn: 1 });
    let mut collector = ResponseCollector::new();
    let mut events = provider.stream(request, cancel);
    while let Some(event) = events.next().await {
        output.event(&event)?;
        collector.push(&event);
    }
    output.finish()?;
    let failure = RunRecord::failure_of(&collector);
    if args.json {
        output.end_turn(&collector, failure.as_ref(), record);
    }
    Ok(match &failure {
        None => ExitCode::SUCCESS,
        Some(error) => exit::report(error),
    })
}

/// Writes events as text (answer on stdout, reasoning dimmed on a terminal's stderr) or JSON lines.
struct Output {
    json: bool,
    show_thinking: bool,
    dim_thinking: bool,
    in_thinking: bool,
    ends_with_newline: bool,
    /// The answer and the reasoning made safe for the terminal as they stream.
    answer: TextStream,
    thinking: TextStream,
}

impl Output {
    fn new(json: bool) -> Self {
        Self {
            json,
            show_thinking: std::io::stderr().is_terminal() && !crate::term::quiet(),
            dim_thinking: crate::term::color_stderr(),
            in_thinking: false,
            ends_with_newline: true,
            answer: TextStream::new(),
            thinking: TextStream::new(),
        }
    }

    /// Prints `event` as a JSON line answering the prompt (JSON mode only).
    fn frame(&self, event: Event) {
        if self.json {
            json_lines::print(&EventFrame::new(Some(json_lines::PROMPT_ID.into()), event));
        }
    }

    /// Prints the end of the one-turn run in the `hone exec --json` dialect: the reply,
    /// its usage, how the turn ended, and the `result`.
    fn end_turn(
        &self,
        collector: &ResponseCollector,
        failure: Option<&HoneError>,
        record: &mut RunRecord,
    ) {
        let usage = collector.usage().unwrap_or_default();
        let failure = failure.map(|error| (error, hone_runtime::exit_code(error.category)));
        let reply = collector.message().text();
        for event in record.single_reply_ending(reply, usage, failure) {
            self.frame(event);
        }
    }

    fn event(&mut self, event: &StreamEvent) -> Result<(), HoneError> {
        if self.json {
            if let Some(event) = RunRecord::event_of(event) {
                self.frame(event);
            }
            return Ok(());
        }
        match event {
            StreamEvent::TextDelta { text } => {
                self.end_thinking();
                let shown = self.answer.push(text);
                if !shown.is_empty() {
                    self.ends_with_newline = shown.ends_with('\n');
                }
                self.write(&shown)
            }
            StreamEvent::ThinkingDelta { text } if self.show_thinking => {
                if !self.in_thinking {
                    if self.dim_thinking {
                        eprint!("{}", anstyle::Style::new().dimmed().render());
                    }
                    self.in_thinking = true;
                }
                eprint!("{}", self.thinking.push(text));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn end_thinking(&mut self) {
        if self.in_thinking {
            eprint!("{}", self.thinking.finish());
            if self.dim_thinking {
                eprint!("{}", anstyle::Style::new().dimmed().render_reset());
            }
            eprintln!();
            self.in_thinking = false;
        }
    }

    fn finish(&mut self) -> Result<(), HoneError> {
        self.end_thinking();
        let pending = self.answer.finish();
        if !pending.is_empty() {
            self.ends_with_newline = false;
            self.write(&pending)?;
        }
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
