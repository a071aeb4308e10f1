//! Streaming response events and the normalised vocabulary they use.

use serde::{Deserialize, Serialize};

use crate::HoneError;

pub use hone_api::Usage;

/// Why the model stopped generating.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer.
    EndTurn,
    /// The model wants tool calls run.
    ToolUse,
    /// The output token limit was reached.
    MaxTokens,
    /// A stop sequence was produced.
    StopSequence,
    /// The provider filtered the output.
    ContentFilter,
    /// Anything else, with the provider's own word for it.
    Other(String),
}

/// One event of a streamed response.
///
/// A stream ends with exactly one terminal event — [`StreamEvent::Completed`],
/// [`StreamEvent::Failed`] or [`StreamEvent::Cancelled`] — and nothing follows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// More answer text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// More reasoning text.
    ThinkingDelta {
        /// The new reasoning text.
        text: String,
    },
    /// Integrity signature of the reasoning so far (Anthropic), needed to send it back.
    ThinkingSignature {
        /// Opaque signature.
        signature: String,
    },
    /// A tool call begins.
    ToolCallStart {
        /// Position of the call within this response (parallel calls have distinct indexes).
        index: usize,
        /// Call identifier.
        id: String,
        /// Tool name.
        name: String,
    },
    /// A fragment of a tool call's JSON arguments.
    ToolCallDelta {
        /// Which call the fragment belongs to.
        index: usize,
        /// The fragment, to be appended to the previous ones.
        arguments: String,
    },
    /// A tool call is complete; `arguments` holds the reassembled raw JSON.
    ToolCallEnd {
        /// Which call ended.
        index: usize,
        /// Call identifier.
        id: String,
        /// Tool name.
        name: String,
        /// All argument fragments joined.
        arguments: String,
    },
    /// The request failed with a transient error and is sent again after `delay_ms` (the
    /// wait starts now; not terminal).
    Retrying {
        /// Which retry this is (1 for the first).
        attempt: u32,
        /// The wait before sending again, in milliseconds.
        delay_ms: u64,
        /// The HTTP status that caused it; `None` for a connection failure.
        status: Option<u16>,
        /// What went wrong, in one line.
        reason: String,
    },
    /// Token usage so far (may arrive more than once; later reports supersede).
    Usage {
        /// The usage figures.
        usage: Usage,
    },
    /// Terminal: the response is complete.
    Completed {
        /// Why generation stopped.
        stop_reason: StopReason,
        /// Final usage, when the provider reported any.
        usage: Option<Usage>,
    },
    /// Terminal: the request failed.
    Failed {
        /// What went wrong.
        error: HoneError,
    },
    /// Terminal: the request was cancelled.
    Cancelled,
}

impl StreamEvent {
    /// True for the three events that end a stream.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            StreamEvent::Completed { .. } | StreamEvent::Failed { .. } | StreamEvent::Cancelled
        )
    }
}
