//! Images a user attaches to a message ([`ImageAttachment`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An image attached to a user message: the file's bytes, base64-encoded, as the face read
/// them. The session checks the format (PNG, JPEG, WebP or GIF, from the bytes themselves),
/// the size, and whether the model accepts images, and downscales large ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImageAttachment {
    /// What the face calls it (a file name), for messages; never opened by the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The image's bytes, standard base64 with padding.
    pub data: String,
}
