//! One renderer per wire format.

pub(crate) mod anthropic;
pub(crate) mod gemini;
pub(crate) mod ollama;
pub(crate) mod openai_chat;
pub(crate) mod openai_responses;
