//! Images attached to a user message: checked against the model (the provider's word, then
//! hone's model table; a model neither knows gets them and the API decides), prepared
//! (format, size, downscaling) and added to the message after its text.

use hone_api::ImageAttachment;
use hone_protocol::{ContentBlock, HoneError, ImageRef};

use crate::session::Agent;

impl Agent {
    /// The content blocks of `images` for the model of this session, or why they cannot go.
    pub(crate) fn image_blocks(
        &self,
        images: &[ImageAttachment],
    ) -> Result<Vec<ContentBlock>, HoneError> {
        if images.is_empty() {
            return Ok(Vec::new());
        }
        let sees = self
            .provider
            .accepts_images(&self.model)
            .or_else(|| hone_context::images::known_vision(&self.model));
        if sees == Some(false) {
            return Err(HoneError::validation(format!(
                "{} does not accept images, so the {} attached cannot be sent; choose a model \
                 that sees (`--model`, or /model in the terminal UI), or describe the image in \
                 words",
                self.model,
                if images.len() == 1 {
                    "image".to_string()
                } else {
                    format!("{} images", images.len())
                }
            )));
        }
        let prepared = hone_context::images::prepare_all(images)
            .map_err(|error| HoneError::validation(error.to_string()))?;
        Ok(prepared
            .into_iter()
            .map(|image| {
                ContentBlock::Image(ImageRef::Base64 {
                    media_type: image.media_type.to_string(),
                    data: image.data,
                })
            })
            .collect())
    }
}
