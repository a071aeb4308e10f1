//! Decoding Anthropic's streamed events (`message_start`, `content_block_*`,
//! `message_delta`, `message_stop`, `ping`, `error`) into [`StreamEvent`]s.

use hone_protocol::{ErrorCategory, HoneError, StopReason, StreamEvent, Usage};
use serde_json::Value;

use crate::framing::Frame;
use crate::wire::{StreamDecoder, ToolCallAssembler, ended_early, parse_json, u64_at};

/// Decoder state for one Messages stream. Tool calls are keyed by their content block
/// `index`, so `input_json_delta` fragments and `content_block_stop` find their call.
#[derive(Default)]
pub(super) struct AnthropicDecoder {
    calls: ToolCallAssembler,
    stop_reason: Option<StopReason>,
    usage: Option<Usage>,
}

impl StreamDecoder for AnthropicDecoder {
    fn decode(&mut self, frame: &Frame, out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        let event = parse_json(frame)?;
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(frame.event.as_str());
        match kind {
            "message_start" => {
                if let Some(usage) = event.pointer("/message/usage") {
                    self.record_usage(usage, out);
                }
            }
            "content_block_start" => self.block_start(&event, out),
            "content_block_delta" => self.block_delta(&event, out),
            "content_block_stop" => {
                if let Some(index) = self.calls.index_of(&block_key(&event)) {
                    self.calls.end(index, out);
                }
            }
            "message_delta" => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(stop_reason(reason));
                }
                if let Some(usage) = event.get("usage") {
                    self.record_usage(usage, out);
                }
            }
            "message_stop" => self.complete(out),
            "error" => return Err(in_band_error(event.get("error").unwrap_or(&event))),
            // `ping` keeps the connection alive; Anthropic may add event types at any time.
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        // A complete response always ends with `message_stop`, which ends decoding.
        Err(ended_early())
    }
}

impl AnthropicDecoder {
    fn block_start(&mut self, event: &Value, out: &mut Vec<StreamEvent>) {
        let block = event.get("content_block").unwrap_or(&Value::Null);
        match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => push_text(block.get("text"), out),
            "thinking" => {
                push_thinking(block.get("thinking"), out);
                push_signature(block.get("signature"), out);
            }
            "tool_use" => {
                let id = block.get("id").and_then(Value::as_str).unwrap_or("");
                let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                self.calls.start(&block_key(event), id, name, out);
            }
            // `redacted_thinking` carries only encrypted data the protocol has no block for;
            // server-side tool blocks are the provider's business.
            _ => {}
        }
    }

    fn block_delta(&mut self, event: &Value, out: &mut Vec<StreamEvent>) {
        let delta = event.get("delta").unwrap_or(&Value::Null);
        match delta.get("type").and_then(Value::as_str).unwrap_or("") {
            "text_delta" => push_text(delta.get("text"), out),
            "thinking_delta" => push_thinking(delta.get("thinking"), out),
            "signature_delta" => push_signature(delta.get("signature"), out),
            "input_json_delta" => {
                if let Some(index) = self.calls.index_of(&block_key(event)) {
                    let fragment = delta
                        .get("partial_json")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    self.calls.append(index, fragment, out);
                }
            }
            // `citations_delta` and future delta types.
            _ => {}
        }
    }

    fn record_usage(&mut self, usage: &Value, out: &mut Vec<StreamEvent>) {
        let cached = u64_at(usage, "/cache_read_input_tokens");
        let reported = Usage {
            input_tokens: u64_at(usage, "/input_tokens")
                .saturating_add(cached)
                .saturating_add(u64_at(usage, "/cache_creation_input_tokens")),
            output_tokens: u64_at(usage, "/output_tokens"),
            cached_input_tokens: cached,
            reasoning_tokens: 0,
            ..Usage::default()
        };
        let usage = self.usage.map_or(reported, |known| known.merge(reported));
        self.usage = Some(usage);
        out.push(StreamEvent::Usage { usage });
    }

    fn complete(&mut self, out: &mut Vec<StreamEvent>) {
        self.calls.end_all(out);
        let stop_reason = match self.stop_reason.take() {
            Some(reason) => reason,
            None if self.calls.any() => StopReason::ToolUse,
            None => StopReason::EndTurn,
        };
        out.push(StreamEvent::Completed {
            stop_reason,
            usage: self.usage,
        });
    }
}

fn block_key(event: &Value) -> String {
    u64_at(event, "/index").to_string()
}

fn non_empty(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

fn push_text(value: Option<&Value>, out: &mut Vec<StreamEvent>) {
    if let Some(text) = non_empty(value) {
        out.push(StreamEvent::TextDelta { text });
    }
}

fn push_thinking(value: Option<&Value>, out: &mut Vec<StreamEvent>) {
    if let Some(text) = non_empty(value) {
        out.push(StreamEvent::ThinkingDelta { text });
    }
}

fn push_signature(value: Option<&Value>, out: &mut Vec<StreamEvent>) {
    if let Some(signature) = non_empty(value) {
        out.push(StreamEvent::ThinkingSignature { signature });
    }
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "refusal" => StopReason::ContentFilter,
        other => StopReason::Other(other.to_string()),
    }
}

/// Maps an `error` event (`{"type":"overloaded_error","message":…}`) to a categorised error.
fn in_band_error(error: &Value) -> HoneError {
    let kind = error.get("type").and_then(Value::as_str).unwrap_or("error");
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("unknown error");
    let category = match kind {
        "rate_limit_error" => ErrorCategory::RateLimit,
        "authentication_error" | "permission_error" => ErrorCategory::Auth,
        "invalid_request_error" | "request_too_large" => ErrorCategory::Validation,
        "not_found_error" => ErrorCategory::Config,
        // `overloaded_error`, `api_error` and anything new.
        _ => ErrorCategory::Provider,
    };
    HoneError::new(
        category,
        format!("the provider reported an error mid-stream ({kind}): {message}"),
    )
    .with_detail(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(frames: &[&str]) -> (Vec<StreamEvent>, Result<(), HoneError>) {
        crate::wire::decode_frames(&mut AnthropicDecoder::default(), frames)
    }

    #[test]
    fn a_tool_call_without_input_ends_with_empty_arguments() {
        let (events, result) = decode_all(&[
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"list_dir","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        assert!(result.is_ok());
        assert!(events.contains(&StreamEvent::ToolCallEnd {
            index: 0,
            id: "toolu_1".into(),
            name: "list_dir".into(),
            arguments: String::new(),
        }));
        assert!(matches!(
            events.last(),
            Some(StreamEvent::Completed {
                stop_reason: StopReason::ToolUse,
                ..
            })
        ));
    }

    #[test]
    fn refusal_and_pause_turn_map_to_content_filter_and_other() {
        assert_eq!(stop_reason("refusal"), StopReason::ContentFilter);
        assert_eq!(
            stop_reason("pause_turn"),
            StopReason::Other("pause_turn".into())
        );
    }

    #[test]
    fn a_stream_without_message_stop_is_incomplete() {
        let (_, result) = decode_all(&[
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}"#,
        ]);
        assert_eq!(result.unwrap_err().category, ErrorCategory::Network);
    }
}
