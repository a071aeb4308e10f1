#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
//! Every supported architecture through the provider, on the tiny synthetic models of
//! `fixtures/synthetic` (random weights, so the answers are noise): the file loads, the
//! prompt is the model's own chat template with its own markers as single tokens, the
//! answer streams to its end. An unsupported architecture fails to load, naming it.

use std::path::PathBuf;

use futures::StreamExt;
use futures::executor::block_on;
use hone_local::{LocalError, LocalOptions, LocalProvider};
use hone_protocol::{ChatRequest, StopReason, StreamEvent};
use hone_provider_api::Provider;
use tokio_util::sync::CancellationToken;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/synthetic")
        .join(name)
}

fn options() -> LocalOptions {
    LocalOptions {
        threads: Some(1),
        temperature: 0.0,
        max_output_tokens: 6,
        ..LocalOptions::default()
    }
}

/// Streams "hello" to the model in `file`; returns the rendered prompt, its token count
/// from the usage report and the stop reason.
fn chat(file: &str) -> (String, u64, StopReason) {
    let provider = LocalProvider::load(&fixture(file), file, options()).unwrap();
    let mut request = ChatRequest::new(file, "hello");
    request.system = Some("Be brief.".into());
    let prompt = provider.render_prompt(&request).unwrap();
    let counted = provider.count_prompt_tokens(&request).unwrap();
    let events: Vec<StreamEvent> =
        block_on(provider.stream(request, CancellationToken::new()).collect());
    match events.last() {
        Some(StreamEvent::Completed {
            stop_reason,
            usage: Some(usage),
        }) => {
            assert_eq!(usage.input_tokens, counted as u64);
            (prompt, usage.input_tokens, stop_reason.clone())
        }
        other => panic!("{file}: expected a completed stream, got {other:?}"),
    }
}

#[test]
fn qwen_models_use_chatml_markers_as_single_tokens() {
    for file in ["qwen2.gguf", "qwen3.gguf"] {
        let (prompt, tokens, stop) = chat(file);
        assert_eq!(
            prompt,
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhello<|im_end|>\n\
             <|im_start|>assistant\n"
        );
        // Three markers of each kind are one token each; the rest is one byte per token
        // (the synthetic vocabulary has no merges beyond "Ġt").
        let text_bytes = "system\nBe brief.\nuser\nhello\nassistant\n".len() as u64;
        assert_eq!(tokens, 3 + 2 + text_bytes, "{file}");
        assert!(
            matches!(stop, StopReason::MaxTokens | StopReason::EndTurn),
            "{stop:?}"
        );
    }
}

#[test]
fn llama_renders_its_header_template_with_the_bos_token() {
    let (prompt, tokens, _) = chat("llama.gguf");
    assert_eq!(
        prompt,
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>\
         <|start_header_id|>user<|end_header_id|>\n\nhello<|eot_id|>\
         <|start_header_id|>assistant<|end_header_id|>\n\n"
    );
    let text_bytes = "system\n\nBe brief.user\n\nhelloassistant\n\n".len() as u64;
    assert_eq!(tokens, 1 + 3 * 2 + 2 + text_bytes);
}

#[test]
fn an_unsupported_architecture_is_refused_by_name() {
    // A GGUF whose metadata names an architecture hone does not run, and nothing else.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gemma.gguf");
    let mut file = std::fs::File::create(&path).unwrap();
    let architecture = candle_core::quantized::gguf_file::Value::String("gemma2".into());
    candle_core::quantized::gguf_file::write(
        &mut file,
        &[("general.architecture", &architecture)],
        &[],
    )
    .unwrap();
    drop(file);
    let error = LocalProvider::load(&path, "gemma", options()).unwrap_err();
    assert!(matches!(error, LocalError::InvalidModel { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("`gemma2`"), "{message}");
    assert!(message.contains("qwen2, qwen3, llama"), "{message}");
}
