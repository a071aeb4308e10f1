//! Scripted mock LLM servers for hone's tests.
//!
//! A [`MockServer`] answers with scripted [`MockResponse`]s and records every request so
//! tests can assert on what hone sent. A [`Reply`] describes one model reply (text,
//! thinking, tool calls, usage) independently of the API and renders it into each
//! provider's real streaming format, cut the way real servers cut it: text split
//! mid-word, tool-call arguments split into many fragments, keep-alive comments, usage in
//! the final chunk. Faults are response options: a status with `Retry-After`, a stall,
//! a disconnect mid-stream, or raw malformed chunks.
//!
//! ```no_run
//! # async fn demo() {
//! use hone_testkit::{MockResponse, MockServer, Reply};
//! let server = MockServer::start().await;
//! server.enqueue(MockResponse::status(429).header("retry-after", "0"));
//! server.enqueue(Reply::new().text("Hello, world").usage(5, 3).openai_chat());
//! // point a provider at server.url() and assert on server.requests()
//! # }
//! ```

mod reply;
mod response;
mod server;
mod wire;

pub use reply::{Reply, ReplyItem, ReplyStop, ReplyUsage, fragments, pieces};
pub use response::{MockResponse, SSE_KEEP_ALIVE, StreamEnd, sse_event};
pub use server::{MockServer, RecordedRequest};
