//! Decoding Gemini's streamed `GenerateContentResponse` chunks into [`StreamEvent`]s.
//!
//! The stream has no terminator: the server closes it after the chunk carrying a
//! `finishReason`, so the response completes in [`StreamDecoder::finish`].

use hone_protocol::{ErrorCategory, HoneError, StopReason, StreamEvent, Usage};
use serde_json::Value;

use crate::framing::Frame;
use crate::wire::{StreamDecoder, ToolCallAssembler, ended_early, parse_json, u64_at};

/// Decoder state for one Gemini stream. Function calls arrive whole and without ids,
/// so each gets the next `call_N`.
#[derive(Default)]
pub(super) struct GeminiDecoder {
    calls: ToolCallAssembler,
    call_count: usize,
    stop_reason: Option<StopReason>,
    usage: Option<Usage>,
}

impl StreamDecoder for GeminiDecoder {
    fn decode(&mut self, frame: &Frame, out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        match parse_json(frame)? {
            // Some proxies send the chunks of the JSON-array form as SSE data.
            Value::Array(chunks) => chunks
                .iter()
                .try_for_each(|chunk| self.decode_chunk(chunk, out)),
            chunk => self.decode_chunk(&chunk, out),
        }
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        self.calls.end_all(out);
        let stop_reason = match self.stop_reason.take().ok_or_else(ended_early)? {
            StopReason::EndTurn if self.calls.any() => StopReason::ToolUse,
            other => other,
        };
        out.push(StreamEvent::Completed {
            stop_reason,
            usage: self.usage,
        });
        Ok(())
    }
}

impl GeminiDecoder {
    fn decode_chunk(&mut self, chunk: &Value, out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        if let Some(error) = chunk.get("error") {
            return Err(in_band_error(error));
        }
        if chunk.pointer("/promptFeedback/blockReason").is_some() {
            self.stop_reason = Some(StopReason::ContentFilter);
        }
        if let Some(candidate) = chunk.pointer("/candidates/0") {
            let parts = candidate
                .pointer("/content/parts")
                .and_then(Value::as_array);
            for part in parts.into_iter().flatten() {
                self.decode_part(part, out);
            }
            if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
                self.stop_reason = Some(stop_reason(reason));
            }
        }
        if let Some(usage) = chunk.get("usageMetadata") {
            self.record_usage(usage, out);
        }
        Ok(())
    }

    fn decode_part(&mut self, part: &Value, out: &mut Vec<StreamEvent>) {
        // The signature comes first so it belongs to the thinking that precedes the call.
        if let Some(signature) = part
            .get("thoughtSignature")
            .and_then(Value::as_str)
            .filter(|signature| !signature.is_empty())
        {
            out.push(StreamEvent::ThinkingSignature {
                signature: signature.to_string(),
            });
        }
        if let Some(call) = part.get("functionCall") {
            let key = format!("call-{}", self.call_count);
            self.call_count += 1;
            let id = call.get("id").and_then(Value::as_str).unwrap_or("");
            let name = call.get("name").and_then(Value::as_str).unwrap_or("");
            let arguments = call
                .get("args")
                .filter(|args| !args.is_null())
                .map_or_else(|| "{}".to_string(), Value::to_string);
            let index = self.calls.start(&key, id, name, out);
            self.calls.append(index, &arguments, out);
            self.calls.end(index, out);
            return;
        }
        let Some(text) = part
            .get("text")
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
        else {
            return;
        };
        let text = text.to_string();
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            out.push(StreamEvent::ThinkingDelta { text });
        } else {
            out.push(StreamEvent::TextDelta { text });
        }
    }

    /// Gemini repeats cumulative usage in many chunks; only changes are reported.
    fn record_usage(&mut self, metadata: &Value, out: &mut Vec<StreamEvent>) {
        let thoughts = u64_at(metadata, "/thoughtsTokenCount");
        let reported = Usage {
            input_tokens: u64_at(metadata, "/promptTokenCount"),
            output_tokens: u64_at(metadata, "/candidatesTokenCount").saturating_add(thoughts),
            cached_input_tokens: u64_at(metadata, "/cachedContentTokenCount"),
            reasoning_tokens: thoughts,
            ..Usage::default()
        };
        let usage = self.usage.map_or(reported, |known| known.merge(reported));
        if self.usage != Some(usage) {
            self.usage = Some(usage);
            out.push(StreamEvent::Usage { usage });
        }
    }
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "STOP" => StopReason::EndTurn,
        "MAX_TOKENS" => StopReason::MaxTokens,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            StopReason::ContentFilter
        }
        other => StopReason::Other(other.to_string()),
    }
}

/// Maps an in-band `{"code":…,"message":…,"status":…}` error to a categorised error.
fn in_band_error(error: &Value) -> HoneError {
    let status = error.get("status").and_then(Value::as_str).unwrap_or("");
    let code = error.get("code").and_then(Value::as_u64).unwrap_or(0);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .unwrap_or("unknown error");
    let category = match (status, code) {
        ("RESOURCE_EXHAUSTED", _) | (_, 429) => ErrorCategory::RateLimit,
        ("UNAUTHENTICATED" | "PERMISSION_DENIED", _) | (_, 401 | 403) => ErrorCategory::Auth,
        ("INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "OUT_OF_RANGE", _) | (_, 400) => {
            ErrorCategory::Validation
        }
        ("NOT_FOUND", _) | (_, 404) => ErrorCategory::Config,
        _ => ErrorCategory::Provider,
    };
    HoneError::new(
        category,
        format!("the provider reported an error mid-stream: {message}"),
    )
    .with_detail(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(frames: &[&str]) -> (Vec<StreamEvent>, Result<(), HoneError>) {
        crate::wire::decode_frames(&mut GeminiDecoder::default(), frames)
    }

    #[test]
    fn a_blocked_prompt_completes_as_content_filter() {
        let (events, result) =
            decode_all(&[r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}"#]);
        assert!(result.is_ok());
        assert!(matches!(
            events.last(),
            Some(StreamEvent::Completed {
                stop_reason: StopReason::ContentFilter,
                ..
            })
        ));
    }

    #[test]
    fn a_stream_without_finish_reason_is_incomplete() {
        let (_, result) =
            decode_all(&[r#"{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]}"#]);
        assert_eq!(result.unwrap_err().category, ErrorCategory::Network);
    }

    #[test]
    fn in_band_errors_map_by_status() {
        let (_, result) = decode_all(&[
            r#"{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}"#,
        ]);
        assert_eq!(result.unwrap_err().category, ErrorCategory::RateLimit);
        assert_eq!(
            in_band_error(&serde_json::json!({"code": 500, "status": "INTERNAL"})).category,
            ErrorCategory::Provider
        );
    }

    #[test]
    fn unchanged_usage_is_reported_once() {
        let chunk = r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":4}}"#;
        let (events, _) = decode_all(&[chunk, chunk]);
        let reports = events
            .iter()
            .filter(|event| matches!(event, StreamEvent::Usage { .. }))
            .count();
        assert_eq!(reports, 1);
    }
}
