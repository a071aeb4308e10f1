//! A profile's request settings (thinking, sampling, output limit, caching, extra body
//! fields) reach the request body of every wire format in that API's shape.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ALL_WIRES, collect, provider_for, render, request};
use hone_config::WireApi;
use hone_protocol::{ChatRequest, GenerationSettings, PromptCache, Thinking};
use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

/// The body `preset` sends for `request`.
async fn body_for(wire: WireApi, preset: &str, request: ChatRequest) -> Value {
    let server = MockServer::start().await;
    server.enqueue(render(wire, &Reply::new().text("ok")));
    collect(provider_for(preset, &server).as_ref(), request).await;
    server.last_request().json()
}

/// A request with `settings` applied, as a session applies a profile's.
fn request_with(settings: &GenerationSettings) -> ChatRequest {
    let mut request = request();
    request.max_tokens = None;
    settings.apply_to(&mut request);
    request
}

fn sampling(thinking: Option<Thinking>) -> GenerationSettings {
    GenerationSettings {
        thinking,
        temperature: Some(0.25),
        top_p: Some(0.5),
        max_output_tokens: Some(300),
        ..GenerationSettings::default()
    }
}

#[tokio::test]
async fn openai_chat_sends_reasoning_effort_and_sampling() {
    let body = body_for(
        WireApi::OpenAiChat,
        "openai",
        request_with(&sampling(Some(Thinking::High))),
    )
    .await;
    assert_eq!(body["reasoning_effort"], "high");
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["top_p"], 0.5);
    assert_eq!(body["max_completion_tokens"], 300);
    let budget = body_for(
        WireApi::OpenAiChat,
        "openai",
        request_with(&sampling(Some(Thinking::Budget(9000)))),
    )
    .await;
    assert_eq!(budget["reasoning_effort"], "medium");
    let off = body_for(
        WireApi::OpenAiChat,
        "openai",
        request_with(&sampling(Some(Thinking::Off))),
    )
    .await;
    assert!(off.get("reasoning_effort").is_none(), "{off}");
}

#[tokio::test]
async fn openai_responses_sends_a_reasoning_effort() {
    let body = body_for(
        WireApi::OpenAiResponses,
        "openai-responses",
        request_with(&sampling(Some(Thinking::Low))),
    )
    .await;
    assert_eq!(
        body["reasoning"],
        json!({ "effort": "low", "summary": "auto" })
    );
    assert_eq!(body["top_p"], 0.5);
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["max_output_tokens"], 300);
}

#[tokio::test]
async fn anthropic_sends_a_thinking_budget_without_sampling() {
    let body = body_for(
        WireApi::Anthropic,
        "anthropic",
        request_with(&sampling(Some(Thinking::Medium))),
    )
    .await;
    assert_eq!(
        body["thinking"],
        json!({ "type": "enabled", "budget_tokens": 8192 })
    );
    assert!(body.get("temperature").is_none(), "{body}");
    assert!(body.get("top_p").is_none(), "{body}");
    assert!(body["max_tokens"].as_u64().unwrap() > 8192);
    let off = body_for(
        WireApi::Anthropic,
        "anthropic",
        request_with(&sampling(Some(Thinking::Off))),
    )
    .await;
    assert!(off.get("thinking").is_none(), "{off}");
    assert_eq!(off["temperature"], 0.25);
    assert_eq!(off["top_p"], 0.5);
    assert_eq!(off["max_tokens"], 300);
}

#[tokio::test]
async fn anthropic_cache_breakpoints_follow_the_cache_setting() {
    let mut request = request();
    request.system = Some("You are hone.".into());
    request.tools = vec![common::read_file_tool()];
    let with = |cache| {
        let mut request = request.clone();
        request.cache = cache;
        request
    };
    let hour = body_for(
        WireApi::Anthropic,
        "anthropic",
        with(Some(PromptCache::OneHour)),
    )
    .await;
    let marker = json!({ "type": "ephemeral", "ttl": "1h" });
    assert_eq!(hour["system"][0]["cache_control"], marker);
    assert_eq!(hour["tools"][0]["cache_control"], marker);
    let last = hour["messages"][0]["content"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["cache_control"], marker);

    let default = body_for(WireApi::Anthropic, "anthropic", with(None)).await;
    assert_eq!(
        default["system"][0]["cache_control"],
        json!({ "type": "ephemeral" })
    );

    let off = body_for(
        WireApi::Anthropic,
        "anthropic",
        with(Some(PromptCache::Off)),
    )
    .await;
    assert!(
        !off.to_string().contains("cache_control"),
        "no breakpoint when caching is off: {off}"
    );
}

#[tokio::test]
async fn gemini_sends_a_thinking_budget_in_the_generation_config() {
    let body = body_for(
        WireApi::Gemini,
        "gemini",
        request_with(&sampling(Some(Thinking::Budget(2000)))),
    )
    .await;
    let generation = &body["generationConfig"];
    assert_eq!(
        generation["thinkingConfig"],
        json!({ "thinkingBudget": 2000, "includeThoughts": true })
    );
    assert_eq!(generation["temperature"], 0.25);
    assert_eq!(generation["topP"], 0.5);
    assert!(generation["maxOutputTokens"].as_u64().unwrap() > 2000);
    let off = body_for(
        WireApi::Gemini,
        "gemini",
        request_with(&sampling(Some(Thinking::Off))),
    )
    .await;
    assert_eq!(
        off["generationConfig"]["thinkingConfig"],
        json!({ "thinkingBudget": 0, "includeThoughts": false })
    );
    assert_eq!(off["generationConfig"]["maxOutputTokens"], 300);
}

#[tokio::test]
async fn ollama_sends_think_and_sampling_options() {
    let body = body_for(
        WireApi::Ollama,
        "ollama",
        request_with(&sampling(Some(Thinking::High))),
    )
    .await;
    assert_eq!(body["think"], true);
    assert_eq!(body["options"]["temperature"], 0.25);
    assert_eq!(body["options"]["top_p"], 0.5);
    assert_eq!(body["options"]["num_predict"], 300);
    let off = body_for(
        WireApi::Ollama,
        "ollama",
        request_with(&sampling(Some(Thinking::Off))),
    )
    .await;
    assert_eq!(off["think"], false);
    let unset = body_for(WireApi::Ollama, "ollama", request()).await;
    assert!(unset.get("think").is_none(), "{unset}");
}

#[tokio::test]
async fn extra_body_fields_are_merged_into_every_wire_format() {
    let settings = GenerationSettings {
        extra_body: json!({ "seed": 7, "options": { "top_k": 20 } })
            .as_object()
            .cloned()
            .unwrap(),
        ..GenerationSettings::default()
    };
    for (wire, preset) in ALL_WIRES {
        let body = body_for(wire, preset, request_with(&settings)).await;
        assert_eq!(body["seed"], 7, "{preset}: {body}");
        assert_eq!(body["options"]["top_k"], 20, "{preset}: {body}");
        assert!(
            body.get("model").is_some() || wire == WireApi::Gemini,
            "{preset}"
        );
        if wire == WireApi::Ollama {
            // Merged key by key: Ollama's own options stay.
            assert!(body["options"].get("num_ctx").is_some(), "{body}");
        }
    }
}
