//! Images attached to a user message, checked and prepared for the session's model by
//! [`hone_context::images::image_blocks`] (the one implementation every face shares).

use hone_api::ImageAttachment;
use hone_protocol::{ContentBlock, HoneError};

use crate::session::Agent;

impl Agent {
    /// The content blocks of `images` for the model of this session, or why they cannot go.
    pub(crate) fn image_blocks(
        &self,
        images: &[ImageAttachment],
    ) -> Result<Vec<ContentBlock>, HoneError> {
        hone_context::images::image_blocks(
            &self.model,
            self.provider.accepts_images(&self.model),
            images,
        )
        .map_err(|error| HoneError::validation(error.to_string()))
    }
}
