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
    /// Answers `Range: bytes=START-[END]` requests with the matching slice of the body.
    pub(crate) ranged: bool,
}

/// Largest chunk of a [`MockResponse::file`] body.
const FILE_CHUNK: usize = 64 * 1024;

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
            ranged: false,
        }
    }

    /// A `200` response whose body is `data` (binary, in chunks of at most 64 KiB, with
    /// `Content-Length`) that honours range requests the way file servers do: a request with
    /// `Range: bytes=START-` or `bytes=START-END` gets `206` with that slice and a
    /// `Content-Range` header (sent whole, without the scripted faults), or `416` when START
    /// is past the end. Combine with [`MockServer::route`](crate::MockServer::route) to serve a
    /// file to every request, or with [`MockResponse::disconnect_after`] to break a transfer.
    pub fn file(data: impl Into<Bytes>) -> Self {
        let data: Bytes = data.into();
        let mut response = Self::status(200)
            .header("content-type", "application/octet-stream")
            .header("accept-ranges", "bytes")
            .header("content-length", &data.len().to_string());
        response.chunks = split(&data);
        response.ranged = true;
        response
    }

    /// The answer to a request carrying `range` (its `Range` header), when this response
    /// honours ranges; `None` when it does not or the header is not a byte range.
    pub(crate) fn for_range(&self, range: &str) -> Option<Self> {
        if !self.ranged {
            return None;
        }
        let spec = range.trim().strip_prefix("bytes=")?;
        let (start, end) = spec.split_once('-')?;
        let start: usize = start.trim().parse().ok()?;
        let body = self.body();
        let headers = self
            .headers
            .iter()
            .filter(|(name, _)| !name.eq_ignore_ascii_case("content-length"))
            .cloned();
        let mut answer = Self::status(206);
        answer.headers = headers.collect();
        if start >= body.len() {
            answer.status = 416;
            return Some(answer.header("content-range", &format!("bytes */{}", body.len())));
        }
        let last = match end.trim() {
            "" => body.len() - 1,
            end => end.parse::<usize>().ok()?.min(body.len() - 1),
        };
        let slice = body.slice(start..=last);
        answer.chunks = split(&slice);
        Some(
            answer
                .header("content-length", &slice.len().to_string())
                .header(
                    "content-range",
                    &format!("bytes {start}-{last}/{}", body.len()),
                ),
        )
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

/// `data` in chunks of at most [`FILE_CHUNK`] bytes.
fn split(data: &Bytes) -> Vec<Bytes> {
    (0..data.len())
        .step_by(FILE_CHUNK)
        .map(|start| data.slice(start..(start + FILE_CHUNK).min(data.len())))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn header<'a>(response: &'a MockResponse, name: &str) -> Option<&'a str> {
        response
            .headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    #[test]
    fn files_answer_byte_ranges() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let file = MockResponse::file(data.clone());
        assert_eq!(file.chunk_count(), 4);
        assert_eq!(header(&file, "content-length"), Some("200000"));
        let tail = file.for_range("bytes=150000-").unwrap();
        assert_eq!(tail.status, 206);
        assert_eq!(tail.body().as_ref(), &data[150_000..]);
        assert_eq!(
            header(&tail, "content-range"),
            Some("bytes 150000-199999/200000")
        );
        assert_eq!(header(&tail, "content-length"), Some("50000"));
        let middle = file.for_range("bytes=10-19").unwrap();
        assert_eq!(middle.body().as_ref(), &data[10..20]);
        let past = file.for_range("bytes=200000-").unwrap();
        assert_eq!(past.status, 416);
        assert!(file.for_range("items=1-2").is_none());
        assert!(MockResponse::status(200).for_range("bytes=0-").is_none());
    }
}
