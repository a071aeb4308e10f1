//! Placeholder until the renderer lands.

use crate::{MockResponse, Reply};

pub(crate) fn render(_reply: &Reply) -> MockResponse {
    MockResponse::status(501)
}
