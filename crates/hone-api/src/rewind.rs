//! What rewinding a session shows: the prompts it can go back to.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A prompt of the user's that a session can be rewound to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RewindPoint {
    /// Its number among the session's prompts, from 1 (what `session.rewind` takes).
    pub prompt: u32,
    /// The prompt's text (what a face puts back in the input to edit and send again).
    pub text: String,
    /// When it was sent, milliseconds since the Unix epoch.
    pub sent_ms: i64,
    /// Edits the session made since, which a rewind takes back.
    pub edits_since: u32,
}
