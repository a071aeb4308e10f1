//! Placeholder until the adapter lands.

use hone_config::ProviderConfig;
use hone_protocol::{ChatRequest, HoneError};
use serde_json::Value;

use super::{StreamDecoder, WireFormat, WireRequest};
use crate::ModelInfo;
use crate::framing::Framing;

/// Placeholder wire format.
pub(crate) struct Gemini;

impl WireFormat for Gemini {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn build_request(&self, _: &ProviderConfig, _: &ChatRequest) -> Result<WireRequest, HoneError> {
        Err(HoneError::config("not implemented yet"))
    }

    fn decoder(&self) -> Box<dyn StreamDecoder> {
        unimplemented!()
    }

    fn models_request(&self, config: &ProviderConfig) -> WireRequest {
        WireRequest::get(config.base_url.clone())
    }

    fn parse_models(&self, _: &Value) -> Result<Vec<ModelInfo>, HoneError> {
        Ok(Vec::new())
    }
}
