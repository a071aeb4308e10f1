//! Scripted HTTP responses, including streamed bodies and injected faults.

use std::time::Duration;

use bytes::Bytes;

/// What happens after the scripted chunks of a streamed body have been sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// Finish the body normally.
    Close,
    /// Keep the connection open and send nothing more (an idle-timeout test).
    Stall,
    /// Abort the connection without finishing the body (a dropped-stream test).
    Disconnect,
}

/// One scripted HTTP response.
#[derive(Debug, Clone)]
pub struct MockResponse {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) chunks: Vec<Bytes>,
    pub(crate) chunk_delay: Duration,
    pub(crate) end: StreamEnd,
    pub(crate) end_after: Option<usize>,
}

impl MockResponse {
    /// A response with `status`, no headers and an empty body.
    pub fn status(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            chunks: Vec::new(),
            chunk_delay: Duration::ZERO,
            end: StreamEnd::Close,
            end_after: None,
        }
    }

    /// A `200` server-sent-events response whose body is `events` sent as separate chunks.
    /// Each item is raw SSE text (`"data: {...}\n\n"`); see [`crate::sse_event`].
    pub fn sse<I, S>(events: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::status(200)
            .header("content-type", "text/event-stream")
            .header("cache-control", "no-cache")
            .chunks(events)
    }

    /// A `200` newline-delimited JSON response, one chunk per value.
    pub fn ndjson<I>(lines: I) -> Self
    where
        I: IntoIterator<Item = serde_json::Value>,
    {
        Self::status(200)
            .header("content-type", "application/x-ndjson")
            .chunks(lines.into_iter().map(|line| format!("{line}\n")))
    }

    /// A JSON response with `status`.
    pub fn json(status: u16, body: &serde_json::Value) -> Self {
        Self::status(status)
            .header("content-type", "application/json")
            .chunks([body.to_string()])
    }

    /// Adds a response header.
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Replaces the body with these chunks, sent in order.
    #[must_use]
    pub fn chunks<I, S>(mut self, chunks: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.chunks = chunks
            .into_iter()
            .map(|chunk| Bytes::from(chunk.into()))
            .collect();
        self
    }

    /// Re-cuts the body into chunks of at most `size` bytes, ignoring event and even
    /// UTF-8 boundaries — the way real proxies and TCP deliver streams.
    #[must_use]
    pub fn rechunk(mut self, size: usize) -> Self {
        let size = size.max(1);
        let whole: Vec<u8> = self
            .chunks
            .iter()
            .flat_map(|chunk| chunk.iter().copied())
            .collect();
        self.chunks = whole.chunks(size).map(Bytes::copy_from_slice).collect();
        self
    }

    /// Waits this long before each chunk.
    #[must_use]
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    /// Sends only the first `count` chunks, then stalls forever.
    #[must_use]
    pub fn stall_after(mut self, count: usize) -> Self {
        self.end = StreamEnd::Stall;
        self.end_after = Some(count);
        self
    }

    /// Sends only the first `count` chunks, then drops the connection mid-body.
    #[must_use]
    pub fn disconnect_after(mut self, count: usize) -> Self {
        self.end = StreamEnd::Disconnect;
        self.end_after = Some(count);
        self
    }

    /// The whole body as one buffer (all chunks joined), e.g. to benchmark a decoder.
    pub fn body(&self) -> Bytes {
        let whole: Vec<u8> = self
            .chunks
            .iter()
            .flat_map(|chunk| chunk.iter().copied())
            .collect();
        Bytes::from(whole)
    }

    /// Number of body chunks that will be sent.
    pub fn chunk_count(&self) -> usize {
        self.end_after
            .map_or(self.chunks.len(), |count| count.min(self.chunks.len()))
    }
}

/// Formats one server-sent event: optional `event:` line, `data:` line, blank line.
pub fn sse_event(event: Option<&str>, data: &serde_json::Value) -> String {
    match event {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// An SSE comment line, as servers send to keep connections alive.
pub const SSE_KEEP_ALIVE: &str = ": keep-alive\n\n";
