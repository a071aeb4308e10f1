//! hone's embedded model: a Qwen2/2.5, Qwen3 or Llama 3.x GGUF run in-process on the CPU
//! with candle.
//!
//! [`LocalProvider::load`] reads a model file once per process and returns a
//! [`hone_provider_api::Provider`] (name `local`) that streams answers token by token, with
//! tool calls parsed from the model's `<tool_call>` blocks. The prompt is the model's own
//! chat template (`tokenizer.chat_template`, rendered with minijinja as `transformers`
//! renders it) and the tokenizer is built from the vocabulary stored in the file. The
//! key/value cache is kept between requests: a request that starts with the same tokens
//! as the previous one (every turn of an agent does) only computes what is new, and with
//! [`LocalOptions::prompt_cache`] the stable start of a prompt (system prompt, tools,
//! repository map) is kept on disk for the next process.
//!
//! ```no_run
//! use futures::StreamExt;
//! use hone_local::{LocalOptions, LocalProvider};
//! use hone_protocol::{ChatRequest, StreamEvent};
//! use hone_provider_api::Provider;
//! use tokio_util::sync::CancellationToken;
//!
//! # async fn demo() -> Result<(), hone_local::LocalError> {
//! let provider = LocalProvider::load(
//!     std::path::Path::new("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
//!     "qwen2.5-coder-1.5b",
//!     LocalOptions::default(),
//! )?;
//! let mut events = provider.stream(ChatRequest::new("", "Say hi"), CancellationToken::new());
//! while let Some(event) = events.next().await {
//!     if let StreamEvent::TextDelta { text } = &event {
//!         print!("{text}");
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod draft;
mod engine;
mod error;
mod guide;
mod model;
mod options;
mod prompt_cache;
mod provider;
mod respond;
mod sampler;
pub mod template;
pub mod tokenizer;

pub use engine::GenerationStats;
pub use error::LocalError;
pub use model::WeightLayout;
pub use options::{LocalOptions, kernel_threads};
pub use provider::{FimRequest, LocalProvider};
