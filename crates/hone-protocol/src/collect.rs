//! Folding a stream of events into the assistant message it describes.

use crate::{ContentBlock, HoneError, Message, Role, StopReason, StreamEvent, ToolCall, Usage};

/// How a response ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Completed normally.
    Completed(StopReason),
    /// Failed with this error.
    Failed(HoneError),
    /// Cancelled by the user.
    Cancelled,
}

/// Accumulates [`StreamEvent`]s into an assistant [`Message`], usage and an outcome.
#[derive(Debug, Default)]
pub struct ResponseCollector {
    content: Vec<ContentBlock>,
    usage: Option<Usage>,
    outcome: Option<Outcome>,
}

impl ResponseCollector {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one event. Events after the terminal one are ignored.
    pub fn push(&mut self, event: &StreamEvent) {
        if self.outcome.is_some() {
            return;
        }
        match event {
            StreamEvent::TextDelta { text } => match self.content.last_mut() {
                Some(ContentBlock::Text { text: existing }) => existing.push_str(text),
                _ => self.content.push(ContentBlock::Text { text: text.clone() }),
            },
            StreamEvent::ThinkingDelta { text } => match self.content.last_mut() {
                Some(ContentBlock::Thinking { text: existing, .. }) => existing.push_str(text),
                _ => self.content.push(ContentBlock::Thinking {
                    text: text.clone(),
                    signature: None,
                }),
            },
            StreamEvent::ThinkingSignature { signature } => {
                let last_thinking = self.content.iter_mut().rev().find_map(|block| match block {
                    ContentBlock::Thinking { signature, .. } => Some(signature),
                    _ => None,
                });
                match last_thinking {
                    Some(slot) => *slot = Some(signature.clone()),
                    None => self.content.push(ContentBlock::Thinking {
                        text: String::new(),
                        signature: Some(signature.clone()),
                    }),
                }
            }
            StreamEvent::ToolCallEnd {
                id,
                name,
                arguments,
                ..
            } => self.content.push(ContentBlock::ToolCall(ToolCall {
                id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            })),
            StreamEvent::ToolCallStart { .. }
            | StreamEvent::ToolCallDelta { .. }
            | StreamEvent::Retrying { .. } => {}
            StreamEvent::Usage { usage } => self.record_usage(*usage),
            StreamEvent::Completed { stop_reason, usage } => {
                if let Some(usage) = usage {
                    self.record_usage(*usage);
                }
                self.outcome = Some(Outcome::Completed(stop_reason.clone()));
            }
            StreamEvent::Failed { error } => self.outcome = Some(Outcome::Failed(error.clone())),
            StreamEvent::Cancelled => self.outcome = Some(Outcome::Cancelled),
        }
    }

    fn record_usage(&mut self, usage: Usage) {
        self.usage = Some(self.usage.map_or(usage, |known| known.merge(usage)));
    }

    /// The assistant message built so far.
    pub fn message(&self) -> Message {
        Message {
            role: Role::Assistant,
            content: self.content.clone(),
        }
    }

    /// Usage reported so far.
    pub fn usage(&self) -> Option<Usage> {
        self.usage
    }

    /// How the response ended, once it has.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_deltas_calls_and_usage_into_one_message() {
        let mut collector = ResponseCollector::new();
        let events = [
            StreamEvent::ThinkingDelta {
                text: "let me ".into(),
            },
            StreamEvent::ThinkingDelta { text: "see".into() },
            StreamEvent::ThinkingSignature {
                signature: "s".into(),
            },
            StreamEvent::TextDelta { text: "Hel".into() },
            StreamEvent::TextDelta { text: "lo".into() },
            StreamEvent::ToolCallEnd {
                index: 0,
                id: "c1".into(),
                name: "read_file".into(),
                arguments: "{\"path\":\"a\"}".into(),
            },
            StreamEvent::Usage {
                usage: Usage {
                    input_tokens: 10,
                    ..Usage::default()
                },
            },
            StreamEvent::Completed {
                stop_reason: StopReason::ToolUse,
                usage: Some(Usage {
                    output_tokens: 4,
                    ..Usage::default()
                }),
            },
            StreamEvent::TextDelta {
                text: "ignored".into(),
            },
        ];
        for event in &events {
            collector.push(event);
        }
        let message = collector.message();
        assert_eq!(message.text(), "Hello");
        assert_eq!(message.content.len(), 3);
        assert_eq!(
            message.content[0],
            ContentBlock::Thinking {
                text: "let me see".into(),
                signature: Some("s".into())
            }
        );
        assert_eq!(message.tool_calls().next().unwrap().name, "read_file");
        assert_eq!(collector.usage().unwrap().input_tokens, 10);
        assert_eq!(collector.usage().unwrap().output_tokens, 4);
        assert_eq!(
            collector.outcome(),
            Some(&Outcome::Completed(StopReason::ToolUse))
        );
    }
}
