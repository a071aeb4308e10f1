//! Turning prompt-level calls in a streamed response into tool-call events.

use futures::stream::{self, Stream, StreamExt};
use hone_protocol::{StopReason, StreamEvent};

use crate::parser::{Parsed, ToolCallParser};

/// Routes a response's text through a [`ToolCallParser`], turning the calls it
/// finds into tool-call events: [`ToolCallEvents`] applied to every event of `inner`.
///
/// * Text comes out as [`StreamEvent::TextDelta`] as soon as the parser releases it.
/// * Each call becomes [`StreamEvent::ToolCallStart`], one [`StreamEvent::ToolCallDelta`]
///   with the whole arguments and [`StreamEvent::ToolCallEnd`], with id `call_<index>`.
///   Indexes count up from 0, or from just past the highest index of the native
///   tool-call events seen so far (those pass through unchanged). A native call
///   arriving after generated ones with a lower index than theirs may still collide.
/// * A call identical to one already made in the response (same name, same arguments
///   once parsed) means the model is looping: it is dropped, and so is every later
///   piece of text or call of the response (see [`ToolCallEvents::repeated`]).
/// * Before [`StreamEvent::Completed`] the parser is finished (an unclosed
///   `<tool_call>` still counts); when any call was found, a stop reason of
///   `EndTurn` or `StopSequence` becomes [`StopReason::ToolUse`] (any stop reason,
///   after a repeated call).
/// * Before [`StreamEvent::Failed`] or [`StreamEvent::Cancelled`] held-back text is
///   released verbatim as a `TextDelta`, without looking for calls in it.
/// * Other events pass through; text held back while they arrive keeps its place
///   relative to other text, not to them. Nothing is read after the terminal event.
///   If the inner stream ends without one, the parser is finished and no terminal
///   event is invented.
pub fn wrap_stream<S>(inner: S, known_tools: Vec<String>) -> impl Stream<Item = StreamEvent>
where
    S: Stream<Item = StreamEvent>,
{
    stream::unfold(
        (Box::pin(inner), ToolCallEvents::new(known_tools)),
        |(mut inner, mut state)| async move {
            if state.done {
                return None;
            }
            let events = match inner.next().await {
                Some(event) => state.push(event),
                None => state.end(),
            };
            Some((events, (inner, state)))
        },
    )
    .flat_map(stream::iter)
}

/// The synchronous core of [`wrap_stream`]: turns one response's events, pushed one at
/// a time, into events with tool calls. For a producer that wants to act on what was
/// parsed as it generates — stop generating once [`ToolCallEvents::repeated`] says
/// the model repeats a call.
#[derive(Debug, Clone)]
pub struct ToolCallEvents {
    parser: ToolCallParser,
    next_index: usize,
    generated: usize,
    /// The calls made so far, to recognise a repeated one.
    made: Vec<(String, CallArguments)>,
    repeated: bool,
    done: bool,
}

/// A call's arguments as compared for repetition: parsed JSON, or the raw text when
/// it does not parse.
#[derive(Debug, Clone, PartialEq)]
enum CallArguments {
    Json(serde_json::Value),
    Raw(String),
}

impl CallArguments {
    fn new(arguments: &str) -> Self {
        serde_json::from_str(arguments).map_or_else(|_| Self::Raw(arguments.to_owned()), Self::Json)
    }
}

impl ToolCallEvents {
    /// A converter for one response, finding fenced and bare JSON calls to these tools.
    pub fn new(known_tools: Vec<String>) -> Self {
        Self {
            parser: ToolCallParser::new(known_tools),
            next_index: 0,
            generated: 0,
            made: Vec::new(),
            repeated: false,
            done: false,
        }
    }

    /// Whether the response repeated a call it had already made (same name and same
    /// arguments, compared as parsed JSON). The repetition and everything after it are
    /// dropped: nothing useful comes after a model starts looping, so its producer can
    /// stop generating.
    pub fn repeated(&self) -> bool {
        self.repeated
    }

    /// Converts the next event of the response (see [`wrap_stream`] for the rules).
    /// After the terminal event, further events are ignored.
    pub fn push(&mut self, event: StreamEvent) -> Vec<StreamEvent> {
        if self.done {
            return Vec::new();
        }
        match event {
            StreamEvent::TextDelta { text } => {
                if self.repeated {
                    return Vec::new();
                }
                let parsed = self.parser.push(&text);
                self.events(parsed)
            }
            StreamEvent::ToolCallStart { index, .. }
            | StreamEvent::ToolCallDelta { index, .. }
            | StreamEvent::ToolCallEnd { index, .. } => {
                self.next_index = self.next_index.max(index.saturating_add(1));
                vec![event]
            }
            StreamEvent::Completed { stop_reason, usage } => {
                let parsed = self.parser.finish();
                let mut events = self.events(parsed);
                let stop_reason = match stop_reason {
                    _ if self.repeated => StopReason::ToolUse,
                    StopReason::EndTurn | StopReason::StopSequence if self.generated > 0 => {
                        StopReason::ToolUse
                    }
                    other => other,
                };
                events.push(StreamEvent::Completed { stop_reason, usage });
                self.done = true;
                events
            }
            StreamEvent::Failed { .. } | StreamEvent::Cancelled => {
                let held = self.parser.flush_raw();
                let mut events = Vec::with_capacity(2);
                if !held.is_empty() && !self.repeated {
                    events.push(StreamEvent::TextDelta { text: held });
                }
                events.push(event);
                self.done = true;
                events
            }
            other => vec![other],
        }
    }

    /// The response ended without a terminal event: decides what the parser held back.
    pub fn end(&mut self) -> Vec<StreamEvent> {
        if self.done {
            return Vec::new();
        }
        self.done = true;
        let parsed = self.parser.finish();
        self.events(parsed)
    }

    fn events(&mut self, parsed: Vec<Parsed>) -> Vec<StreamEvent> {
        let mut events = Vec::with_capacity(parsed.len());
        for piece in parsed {
            if self.repeated {
                break;
            }
            match piece {
                Parsed::Text(text) => {
                    if !text.is_empty() {
                        events.push(StreamEvent::TextDelta { text });
                    }
                }
                Parsed::Call { name, arguments } => {
                    let parsed_arguments = CallArguments::new(&arguments);
                    if self.made.iter().any(|(made, made_arguments)| {
                        *made == name && *made_arguments == parsed_arguments
                    }) {
                        self.repeated = true;
                        break;
                    }
                    self.made.push((name.clone(), parsed_arguments));
                    let index = self.next_index;
                    self.next_index += 1;
                    self.generated += 1;
                    let id = format!("call_{index}");
                    events.push(StreamEvent::ToolCallStart {
                        index,
                        id: id.clone(),
                        name: name.clone(),
                    });
                    events.push(StreamEvent::ToolCallDelta {
                        index,
                        arguments: arguments.clone(),
                    });
                    events.push(StreamEvent::ToolCallEnd {
                        index,
                        id,
                        name,
                        arguments,
                    });
                }
            }
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use futures::executor::block_on;
    use hone_protocol::{HoneError, ResponseCollector, Usage};

    use super::*;

    fn text(value: &str) -> StreamEvent {
        StreamEvent::TextDelta { text: value.into() }
    }

    fn completed(stop_reason: StopReason) -> StreamEvent {
        StreamEvent::Completed {
            stop_reason,
            usage: None,
        }
    }

    fn run(events: Vec<StreamEvent>) -> Vec<StreamEvent> {
        let wrapped = wrap_stream(
            stream::iter(events),
            vec!["read_file".into(), "edit_file".into()],
        );
        block_on(wrapped.collect::<Vec<_>>())
    }

    fn chunks(input: &str, size: usize) -> Vec<StreamEvent> {
        let characters: Vec<char> = input.chars().collect();
        characters
            .chunks(size)
            .map(|chunk| text(&chunk.iter().collect::<String>()))
            .collect()
    }

    #[test]
    fn calls_become_start_delta_end_events_and_completed_becomes_tool_use() {
        let mut input = chunks(
            "Let me read it.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>",
            3,
        );
        input.push(StreamEvent::Completed {
            stop_reason: StopReason::EndTurn,
            usage: Some(Usage::default()),
        });
        let output = run(input);
        let mut collector = ResponseCollector::new();
        for event in &output {
            collector.push(event);
        }
        assert_eq!(collector.message().text(), "Let me read it.\n");
        let calls: Vec<_> = collector.message().tool_calls().cloned().collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].id, "call_0");
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(calls[0].arguments, "{\"path\":\"a\"}");
        let tail = &output[output.len() - 4..];
        assert_eq!(
            tail[0],
            StreamEvent::ToolCallStart {
                index: 0,
                id: "call_0".into(),
                name: "read_file".into()
            }
        );
        assert_eq!(
            tail[1],
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: "{\"path\":\"a\"}".into()
            }
        );
        assert!(matches!(tail[2], StreamEvent::ToolCallEnd { index: 0, .. }));
        assert_eq!(
            tail[3],
            StreamEvent::Completed {
                stop_reason: StopReason::ToolUse,
                usage: Some(Usage::default())
            }
        );
    }

    #[test]
    fn an_unclosed_call_is_found_when_the_stream_completes() {
        let output = run(vec![
            text("<tool_call>{\"name\": \"edit_file\", \"arguments\": {}}"),
            completed(StopReason::StopSequence),
        ]);
        assert!(
            matches!(&output[0], StreamEvent::ToolCallStart { name, .. } if name == "edit_file")
        );
        assert_eq!(output.last(), Some(&completed(StopReason::ToolUse)));
    }

    #[test]
    fn several_calls_get_distinct_ids_and_indexes() {
        let output = run(vec![
            text("```json\n[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}},"),
            text(" {\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}]\n```\n"),
            completed(StopReason::EndTurn),
        ]);
        let ends: Vec<(usize, String)> = output
            .iter()
            .filter_map(|event| match event {
                StreamEvent::ToolCallEnd { index, id, .. } => Some((*index, id.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            ends,
            vec![(0, "call_0".to_owned()), (1, "call_1".to_owned())]
        );
    }

    #[test]
    fn a_response_without_calls_keeps_its_text_and_stop_reason() {
        let input = "Here:\n```rust\nfn main() {}\n```\n{ not json }";
        let mut events = chunks(input, 2);
        events.push(completed(StopReason::EndTurn));
        let output = run(events);
        let mut collector = ResponseCollector::new();
        output.iter().for_each(|event| collector.push(event));
        assert_eq!(collector.message().text(), input);
        assert_eq!(output.last(), Some(&completed(StopReason::EndTurn)));
    }

    #[test]
    fn max_tokens_is_not_rewritten_even_with_calls() {
        let output = run(vec![
            text("{\"name\": \"read_file\", \"arguments\": {}}"),
            completed(StopReason::MaxTokens),
        ]);
        assert_eq!(output.last(), Some(&completed(StopReason::MaxTokens)));
    }

    #[test]
    fn a_failed_stream_flushes_held_text_before_the_failure() {
        let error = HoneError::network("connection reset");
        let output = run(vec![
            text("ok\n<tool_call>{\"name\": \"read"),
            StreamEvent::Failed {
                error: error.clone(),
            },
            text("ignored"),
        ]);
        assert_eq!(
            output,
            vec![
                text("ok\n"),
                text("<tool_call>{\"name\": \"read"),
                StreamEvent::Failed { error }
            ]
        );
    }

    #[test]
    fn a_cancelled_stream_flushes_held_text_before_the_cancellation() {
        let output = run(vec![text("```json\n{"), StreamEvent::Cancelled]);
        assert_eq!(output, vec![text("```json\n{"), StreamEvent::Cancelled]);
    }

    #[test]
    fn native_tool_events_pass_through_and_generated_indexes_follow_them() {
        let native = vec![
            StreamEvent::ThinkingDelta { text: "hmm".into() },
            StreamEvent::ToolCallStart {
                index: 2,
                id: "native".into(),
                name: "read_file".into(),
            },
            StreamEvent::ToolCallEnd {
                index: 2,
                id: "native".into(),
                name: "read_file".into(),
                arguments: "{}".into(),
            },
        ];
        let mut input = native.clone();
        input.push(text(
            "<tool_call>{\"name\": \"read_file\", \"arguments\": {}}</tool_call>",
        ));
        input.push(completed(StopReason::EndTurn));
        let output = run(input);
        assert_eq!(output[..3], native[..]);
        assert_eq!(
            output[3],
            StreamEvent::ToolCallStart {
                index: 3,
                id: "call_3".into(),
                name: "read_file".into()
            }
        );
    }

    #[test]
    fn the_wrapped_stream_is_send_when_the_inner_one_is() {
        fn assert_send<T: Send>(_: &T) {}
        let wrapped = wrap_stream(stream::iter(Vec::<StreamEvent>::new()), Vec::new());
        assert_send(&wrapped);
    }

    #[test]
    fn a_stream_ending_without_a_terminal_event_still_releases_everything() {
        let output = run(vec![text("tail <tool_c")]);
        assert_eq!(output, vec![text("tail "), text("<tool_c")]);
    }

    fn edit_call(path: &str) -> String {
        format!(
            "<tool_call>\n{{\"name\": \"edit_file\", \"arguments\": {{\"path\": \"{path}\", \"old\": \"a\", \"new\": \"b\"}}}}\n</tool_call>"
        )
    }

    fn call_names(events: &[StreamEvent]) -> Vec<(String, String)> {
        events
            .iter()
            .filter_map(|event| match event {
                StreamEvent::ToolCallEnd {
                    name, arguments, ..
                } => Some((name.clone(), arguments.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_repeated_call_is_dropped_with_everything_after_it() {
        // The same call again, with its keys in another order and other spacing.
        let repeat = "<tool_call>{\"arguments\": {\"new\": \"b\", \"old\": \"a\",\"path\": \"x.rs\"}, \"name\": \"edit_file\"}</tool_call>";
        let mut input = chunks(&format!("Done.\n{}\n", edit_call("x.rs")), 4);
        input.extend(chunks(
            &format!("{repeat}\nmore text{}", edit_call("x.rs")),
            5,
        ));
        input.push(completed(StopReason::MaxTokens));
        let output = run(input);
        let calls = call_names(&output);
        assert_eq!(calls.len(), 1, "{output:?}");
        assert_eq!(calls[0].0, "edit_file");
        let mut collector = ResponseCollector::new();
        output.iter().for_each(|event| collector.push(event));
        assert_eq!(collector.message().text(), "Done.\n\n");
        assert_eq!(output.last(), Some(&completed(StopReason::ToolUse)));
    }

    #[test]
    fn calls_differing_in_name_or_arguments_are_not_repeats() {
        let input = vec![
            text(&edit_call("a.rs")),
            text(&edit_call("b.rs")),
            text(
                "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\", \"old\": \"a\", \"new\": \"b\"}}</tool_call>",
            ),
            completed(StopReason::EndTurn),
        ];
        let mut events = ToolCallEvents::new(vec!["read_file".into(), "edit_file".into()]);
        let output: Vec<StreamEvent> = input.into_iter().flat_map(|e| events.push(e)).collect();
        assert!(!events.repeated());
        let names: Vec<String> = call_names(&output)
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(names, ["edit_file", "edit_file", "read_file"]);
    }

    #[test]
    fn the_converter_reports_a_repeat_as_soon_as_the_repeated_call_closes() {
        let mut events = ToolCallEvents::new(vec!["edit_file".into()]);
        let first = events.push(text(&edit_call("x.rs")));
        assert_eq!(call_names(&first).len(), 1);
        let call = edit_call("x.rs");
        let (head, tail) = call.split_at(call.len() - 3);
        assert!(events.push(text(head)).is_empty());
        assert!(!events.repeated(), "undecided until the call is complete");
        assert!(events.push(text(tail)).is_empty());
        assert!(events.repeated());
        assert!(events.push(text("anything")).is_empty());
        assert_eq!(
            events.push(completed(StopReason::EndTurn)),
            vec![completed(StopReason::ToolUse)]
        );
        assert!(events.push(text("after the end")).is_empty());
    }
}
