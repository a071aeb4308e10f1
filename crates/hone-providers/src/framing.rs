//! Splitting a response body into frames: server-sent events or newline-delimited JSON.

use bytes::Bytes;
use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use hone_protocol::HoneError;

/// How a wire API frames its streamed body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// `text/event-stream` (OpenAI, Anthropic, Gemini).
    Sse,
    /// One JSON document per line (Ollama).
    Ndjson,
}

/// One unit of a streamed body: an SSE event or one NDJSON line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Frame {
    /// SSE event name (`message` when the server sent none); empty for NDJSON.
    pub(crate) event: String,
    /// The payload: SSE `data` (multi-line data joined by `\n`) or the NDJSON line.
    pub(crate) data: String,
}

/// Why the body could not be framed.
#[derive(Debug)]
pub(crate) enum FrameError {
    /// The connection failed while reading.
    Transport(String),
    /// The bytes were not valid framing (bad UTF-8, broken SSE).
    Malformed(String),
}

impl FrameError {
    pub(crate) fn into_hone_error(self, base_url: &str) -> HoneError {
        match self {
            FrameError::Transport(detail) => HoneError::network(format!(
                "the connection to {base_url} dropped in the middle of the response"
            ))
            .with_detail(detail),
            FrameError::Malformed(detail) => {
                HoneError::provider(format!("{base_url} sent a malformed stream"))
                    .with_detail(detail)
            }
        }
    }
}

/// Frames a byte stream according to `framing`.
pub(crate) fn frames<S, E>(
    framing: Framing,
    body: S,
) -> std::pin::Pin<Box<dyn Stream<Item = Result<Frame, FrameError>> + Send>>
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    match framing {
        Framing::Sse => Box::pin(body.eventsource().map(|item| match item {
            Ok(event) => Ok(Frame {
                event: event.event,
                data: event.data,
            }),
            Err(EventStreamError::Transport(error)) => {
                Err(FrameError::Transport(error.to_string()))
            }
            Err(EventStreamError::Utf8(error)) => Err(FrameError::Malformed(error.to_string())),
            Err(EventStreamError::Parser(error)) => Err(FrameError::Malformed(error.to_string())),
        })),
        Framing::Ndjson => Box::pin(ndjson(body)),
    }
}

fn ndjson<S, E>(body: S) -> impl Stream<Item = Result<Frame, FrameError>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    async_stream::stream! {
        let mut splitter = NdjsonSplitter::default();
        let mut body = std::pin::pin!(body);
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(bytes) => {
                    for line in splitter.push(&bytes) {
                        yield line.map(|data| Frame { event: String::new(), data });
                    }
                }
                Err(error) => {
                    yield Err(FrameError::Transport(error.to_string()));
                    return;
                }
            }
        }
        if let Some(line) = splitter.finish() {
            yield line.map(|data| Frame { event: String::new(), data });
        }
    }
}

/// Splits bytes into complete, non-blank lines; keeps a partial line until its end arrives.
#[derive(Debug, Default)]
pub(crate) struct NdjsonSplitter {
    pending: Vec<u8>,
}

impl NdjsonSplitter {
    /// Adds bytes and returns every line they complete (blank lines skipped).
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<Result<String, FrameError>> {
        let mut lines = Vec::new();
        let mut start = 0;
        for (offset, byte) in bytes.iter().enumerate() {
            if *byte == b'\n' {
                self.pending.extend_from_slice(&bytes[start..offset]);
                start = offset + 1;
                if let Some(line) = self.take_line() {
                    lines.push(line);
                }
            }
        }
        self.pending.extend_from_slice(&bytes[start..]);
        lines
    }

    /// The last line when the body did not end with a newline.
    pub(crate) fn finish(&mut self) -> Option<Result<String, FrameError>> {
        self.take_line()
    }

    fn take_line(&mut self) -> Option<Result<String, FrameError>> {
        let raw = std::mem::take(&mut self.pending);
        let line = match String::from_utf8(raw) {
            Ok(line) => line,
            Err(error) => return Some(Err(FrameError::Malformed(error.to_string()))),
        };
        let trimmed = line.trim();
        (!trimmed.is_empty()).then(|| Ok(trimmed.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(framing: Framing, chunks: &[&'static str]) -> Vec<Frame> {
        let body = futures::stream::iter(
            chunks
                .iter()
                .map(|chunk| Ok::<_, std::io::Error>(Bytes::from_static(chunk.as_bytes())))
                .collect::<Vec<_>>(),
        );
        futures::executor::block_on(
            frames(framing, body)
                .map(|frame| match frame {
                    Ok(frame) => frame,
                    Err(error) => panic!("{error:?}"),
                })
                .collect(),
        )
    }

    #[test]
    fn sse_frames_survive_splits_and_skip_comments() {
        let frames = collect(
            Framing::Sse,
            &[
                ": keep-alive\n\nevent: delta\nda",
                "ta: {\"a\":",
                "1}\n\ndata: [DONE]\n\n",
            ],
        );
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].event, "delta");
        assert_eq!(frames[0].data, "{\"a\":1}");
        assert_eq!(frames[1].data, "[DONE]");
    }

    #[test]
    fn ndjson_lines_survive_splits_and_a_missing_final_newline() {
        let frames = collect(
            Framing::Ndjson,
            &["{\"a\"", ":1}\n\n{\"b\":2}\r\n{\"c\"", ":3}"],
        );
        let data: Vec<_> = frames.into_iter().map(|frame| frame.data).collect();
        assert_eq!(data, ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]);
    }

    #[test]
    fn transport_errors_end_the_ndjson_stream() {
        let body = futures::stream::iter(vec![
            Ok(Bytes::from_static(b"{\"a\":1}\n")),
            Err(std::io::Error::other("reset")),
        ]);
        let items: Vec<_> = futures::executor::block_on(frames(Framing::Ndjson, body).collect());
        assert!(items[0].is_ok());
        assert!(matches!(items[1], Err(FrameError::Transport(_))));
    }
}
