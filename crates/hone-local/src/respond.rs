//! Sending one answer's events to the client as the engine generates it.

use futures::channel::mpsc::UnboundedSender;
use hone_prompt_tools::ToolCallEvents;
use hone_protocol::StreamEvent;

use crate::engine::Flow;

/// The sending end of one chat answer. When the request offered tools, the text goes
/// through a [`ToolCallEvents`] here, on the generating thread, so `<tool_call>` blocks
/// become tool-call events and generation stops as soon as the model repeats a call it
/// already made in this answer (small models, after a correct call, tend to emit the
/// same block again and again until the token limit).
pub(crate) struct Responder {
    sender: UnboundedSender<StreamEvent>,
    calls: Option<ToolCallEvents>,
}

impl Responder {
    /// Sends to `sender`, parsing calls to `known_tools` unless there are none.
    pub(crate) fn new(sender: UnboundedSender<StreamEvent>, known_tools: Vec<String>) -> Self {
        let calls = (!known_tools.is_empty()).then(|| ToolCallEvents::new(known_tools));
        Self { sender, calls }
    }

    /// Sends generated text and says whether to generate more.
    pub(crate) fn text(&mut self, text: &str) -> Flow {
        let delta = StreamEvent::TextDelta {
            text: text.to_owned(),
        };
        let Some(calls) = &mut self.calls else {
            return self.send_all(vec![delta]);
        };
        let events = calls.push(delta);
        let repeated = calls.repeated();
        match self.send_all(events) {
            Flow::Continue if repeated => Flow::Stop,
            flow => flow,
        }
    }

    /// Sends a non-text event: usage, or the terminal one (which finishes the parsing).
    pub(crate) fn send(&mut self, event: StreamEvent) {
        let events = match &mut self.calls {
            Some(calls) => calls.push(event),
            None => vec![event],
        };
        self.send_all(events);
    }

    fn send_all(&self, events: Vec<StreamEvent>) -> Flow {
        for event in events {
            if self.sender.unbounded_send(event).is_err() {
                return Flow::Disconnected;
            }
        }
        Flow::Continue
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use futures::channel::mpsc::unbounded;
    use futures::executor::block_on;
    use hone_protocol::{ResponseCollector, StopReason, Usage};

    use super::*;

    fn completed() -> StreamEvent {
        StreamEvent::Completed {
            stop_reason: StopReason::EndTurn,
            usage: Some(Usage::default()),
        }
    }

    /// Plays `pieces` (as tokens decode) the way the engine does — stopping when told —
    /// then completes; returns the flows seen, the client's events and their collection.
    fn respond(
        pieces: &[&str],
        known: &[&str],
    ) -> (Vec<Flow>, Vec<StreamEvent>, ResponseCollector) {
        let (sender, receiver) = unbounded();
        let mut responder = Responder::new(
            sender,
            known.iter().map(|name| (*name).to_owned()).collect(),
        );
        let mut flows = Vec::new();
        for piece in pieces {
            let flow = responder.text(piece);
            flows.push(flow);
            if flow != Flow::Continue {
                break;
            }
        }
        responder.send(completed());
        drop(responder);
        let events: Vec<StreamEvent> = block_on(receiver.collect());
        let mut collector = ResponseCollector::new();
        events.iter().for_each(|event| collector.push(event));
        (flows, events, collector)
    }

    fn stop_reason(events: &[StreamEvent]) -> Option<StopReason> {
        match events.last() {
            Some(StreamEvent::Completed { stop_reason, .. }) => Some(stop_reason.clone()),
            _ => None,
        }
    }

    const TOOLS: &[&str] = &["read_file", "edit_file", "run"];

    #[test]
    fn a_well_formed_call_becomes_tool_call_events() {
        let (flows, events, collector) = respond(
            &[
                "<tool_call>",
                "\n",
                "{\"",
                "name",
                "\": \"read_file\", \"arguments\": {\"path\": \"src/",
                "main.rs\"}}",
                "\n",
                "</tool_call>",
            ],
            TOOLS,
        );
        assert!(flows.iter().all(|flow| *flow == Flow::Continue));
        let calls: Vec<_> = collector.message().tool_calls().cloned().collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(calls[0].arguments, r#"{"path":"src/main.rs"}"#);
        assert_eq!(collector.message().text(), "");
        assert_eq!(stop_reason(&events), Some(StopReason::ToolUse));
    }

    #[test]
    fn several_calls_keep_their_order_and_get_distinct_ids() {
        let (_, events, collector) = respond(
            &[
                "I will read both.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}\n</tool_call>",
                "\n<tool_call>\n{\"name\": \"run\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>",
            ],
            TOOLS,
        );
        let calls: Vec<_> = collector.message().tool_calls().cloned().collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(
            (calls[0].name.as_str(), calls[1].name.as_str()),
            ("read_file", "run")
        );
        assert_ne!(calls[0].id, calls[1].id);
        // Text between the blocks stays text, byte for byte.
        assert_eq!(collector.message().text(), "I will read both.\n\n");
        assert_eq!(stop_reason(&events), Some(StopReason::ToolUse));
    }

    #[test]
    fn generation_stops_at_the_first_repeat_of_a_call_which_is_not_sent() {
        let call = [
            "<tool_call>",
            "\n{\"name\": \"edit_file\", \"arguments\": ",
            "{\"path\": \"src/lib.rs\", \"old\": \"a\", \"new\": \"b\"}}",
            "\n",
            "</tool_call>",
        ];
        // A correct edit, then the same block over and over (what the 0.5B model does).
        let mut pieces = vec!["Fixed.\n"];
        for _ in 0..32 {
            pieces.extend(call);
            pieces.push("\n");
        }
        let (flows, events, collector) = respond(&pieces, TOOLS);
        // Continue for the first call and the start of the second; stop at its closing tag.
        let stop_at = 1 + call.len() + 1 + call.len() - 1;
        assert_eq!(flows.len(), stop_at + 1, "{flows:?}");
        assert_eq!(flows.last(), Some(&Flow::Stop));
        let calls: Vec<_> = collector.message().tool_calls().cloned().collect();
        assert_eq!(calls.len(), 1, "{events:?}");
        assert_eq!(calls[0].name, "edit_file");
        assert_eq!(collector.message().text(), "Fixed.\n\n");
        assert_eq!(stop_reason(&events), Some(StopReason::ToolUse));
    }

    #[test]
    fn malformed_json_with_a_name_is_a_call_the_tool_layer_can_reject() {
        // Cut off inside a string: not repaired (missing braces alone would be).
        let (_, _, collector) = respond(
            &[
                "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\n</tool_call>",
            ],
            TOOLS,
        );
        let calls: Vec<_> = collector.message().tool_calls().cloned().collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "read_file");
        assert!(
            calls[0].parse_arguments().is_err(),
            "{:?}",
            calls[0].arguments
        );
    }

    #[test]
    fn a_llama_3_json_call_becomes_a_tool_call() {
        // Llama 3's format: a bare object with `parameters`, streamed in pieces.
        let (_, events, collector) = respond(
            &[
                "{\"name\": \"read_file\", ",
                "\"parameters\": {\"path\": ",
                "\"src/lib.rs\"}}",
            ],
            TOOLS,
        );
        let calls: Vec<_> = collector.message().tool_calls().cloned().collect();
        assert_eq!(calls.len(), 1, "{events:?}");
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(calls[0].arguments, r#"{"path":"src/lib.rs"}"#);
        assert_eq!(stop_reason(&events), Some(StopReason::ToolUse));
    }

    #[test]
    fn a_block_without_a_call_and_prose_stay_text() {
        let (_, events, collector) = respond(
            &[
                "Use <tool_call> tags to call tools.\n",
                "<tool_call>\nnot json at all\n</tool_call>",
            ],
            TOOLS,
        );
        assert_eq!(collector.message().tool_calls().count(), 0);
        assert!(collector.message().text().contains("Use <tool_call> tags"));
        assert!(collector.message().text().contains("not json at all"));
        assert_eq!(stop_reason(&events), Some(StopReason::EndTurn));
    }

    #[test]
    fn without_tools_text_passes_through_untouched() {
        let text = "<tool_call>{\"name\": \"x\", \"arguments\": {}}</tool_call>";
        let (flows, events, _) = respond(&[text, text], &[]);
        assert_eq!(flows, [Flow::Continue, Flow::Continue]);
        let delta = StreamEvent::TextDelta {
            text: text.to_owned(),
        };
        assert_eq!(events, vec![delta.clone(), delta, completed()]);
    }

    #[test]
    fn a_departed_client_disconnects() {
        let (sender, receiver) = unbounded();
        let mut responder = Responder::new(sender, Vec::new());
        drop(receiver);
        assert_eq!(responder.text("hello"), Flow::Disconnected);
    }
}
