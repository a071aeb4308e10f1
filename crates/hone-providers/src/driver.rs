//! The shared request driver: send, frame, decode, and guarantee one terminal event.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use hone_config::ProviderConfig;
use hone_protocol::{ChatRequest, ErrorCategory, HoneError, Redactor, StreamEvent};
use tokio_util::sync::CancellationToken;

use crate::framing::{FrameError, frames};
use crate::wire::{StreamDecoder, WireFormat};
use crate::{EventStream, ModelInfo, http};

/// What a provider's errors must not carry: its own key (a server may echo the key it
/// rejected in the error body) and every value shaped like a secret.
fn redactor(config: &ProviderConfig) -> Redactor {
    Redactor::with_secrets(config.api_key.iter().map(|key| key.expose()))
}

/// Streams one request through `wire`; a failure's message and detail are redacted.
pub(crate) fn run(
    client: reqwest::Client,
    config: Arc<ProviderConfig>,
    wire: Arc<dyn WireFormat>,
    request: ChatRequest,
    cancel: CancellationToken,
) -> EventStream {
    let redactor = redactor(&config);
    let events = stream(client, config, wire, request, cancel);
    Box::pin(events.map(move |event| match event {
        StreamEvent::Failed { error } => StreamEvent::Failed {
            error: error.redacted(&redactor),
        },
        other => other,
    }))
}

fn stream(
    client: reqwest::Client,
    config: Arc<ProviderConfig>,
    wire: Arc<dyn WireFormat>,
    request: ChatRequest,
    cancel: CancellationToken,
) -> EventStream {
    Box::pin(async_stream::stream! {
        let wire_request = match wire.build_request(&config, &request) {
            Ok(wire_request) => crate::wire::with_extra_body(wire_request, &request),
            Err(error) => {
                yield StreamEvent::Failed { error };
                return;
            }
        };
        let (notices, mut retries) = tokio::sync::mpsc::unbounded_channel();
        // Retry notices are passed on while the request is being sent (and waited for).
        let sent = {
            let sending = http::send_with_retries(
                &client,
                &config,
                wire.as_ref(),
                &wire_request,
                &cancel,
                Some(&notices),
            );
            let mut sending = std::pin::pin!(sending);
            loop {
                let step = tokio::select! {
                    biased;
                    Some(notice) = retries.recv() => Err(notice),
                    sent = &mut sending => Ok(sent),
                };
                match step {
                    Err(notice) => yield notice,
                    Ok(sent) => break sent,
                }
            }
        };
        while let Ok(notice) = retries.try_recv() {
            yield notice;
        }
        let response =
            match sent {
                Ok(response) => response,
                Err(error) if error.category == ErrorCategory::Cancelled => {
                    yield StreamEvent::Cancelled;
                    return;
                }
                Err(error) => {
                    yield StreamEvent::Failed { error };
                    return;
                }
            };
        let body = response.bytes_stream();
        let events = decode_body(
            wire.as_ref(),
            body,
            config.network.idle_timeout,
            cancel,
            &config.base_url,
        );
        let mut events = std::pin::pin!(events);
        while let Some(event) = events.next().await {
            yield event;
        }
    })
}

/// Decodes a response body into events, enforcing the idle timeout and cancellation,
/// and making sure exactly one terminal event ends the stream.
pub(crate) fn decode_body<'a, S, E>(
    wire: &'a dyn WireFormat,
    body: S,
    idle_timeout: Duration,
    cancel: CancellationToken,
    base_url: &'a str,
) -> impl Stream<Item = StreamEvent> + Send + 'a
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    async_stream::stream! {
        let mut decoder: Box<dyn StreamDecoder> = wire.decoder();
        let mut frames = frames(wire.framing(), body);
        let mut out = Vec::new();
        loop {
            let next = tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    yield StreamEvent::Cancelled;
                    return;
                }
                next = tokio::time::timeout(idle_timeout, frames.next()) => next,
            };
            let body_ended = matches!(next, Ok(None));
            let result = match next {
                Err(_) => Err(HoneError::network(format!(
                    "the stream from {base_url} stalled: no data for {:.1}s",
                    idle_timeout.as_secs_f64()
                ))),
                Ok(None) => decoder.finish(&mut out),
                Ok(Some(Err(error))) => Err(FrameError::into_hone_error(error, base_url)),
                Ok(Some(Ok(frame))) => decoder.decode(&frame, &mut out),
            };
            for event in out.drain(..) {
                let terminal = event.is_terminal();
                yield event;
                if terminal {
                    return;
                }
            }
            if let Err(error) = result {
                yield StreamEvent::Failed { error };
                return;
            }
            if body_ended {
                yield StreamEvent::Failed { error: crate::wire::ended_early() };
                return;
            }
        }
    }
}

/// Lists models through `wire`'s listing endpoint; an error is redacted like a stream's.
pub(crate) async fn list_models(
    client: reqwest::Client,
    config: Arc<ProviderConfig>,
    wire: Arc<dyn WireFormat>,
) -> Result<Vec<ModelInfo>, HoneError> {
    let redactor = redactor(&config);
    fetch_models(client, config, wire)
        .await
        .map_err(|error| error.redacted(&redactor))
}

async fn fetch_models(
    client: reqwest::Client,
    config: Arc<ProviderConfig>,
    wire: Arc<dyn WireFormat>,
) -> Result<Vec<ModelInfo>, HoneError> {
    let request = wire.models_request(&config);
    let response = http::send_with_retries(
        &client,
        &config,
        wire.as_ref(),
        &request,
        &CancellationToken::new(),
        None,
    )
    .await?;
    let body = response
        .text()
        .await
        .map_err(|error| http::transport_error(&config, &error))?;
    let json: serde_json::Value = serde_json::from_str(&body).map_err(|error| {
        HoneError::provider(format!(
            "{} answered the model listing with something that is not JSON",
            config.base_url
        ))
        .with_detail(format!("{error}: {}", http::excerpt(&body, 300)))
    })?;
    wire.parse_models(&json)
}

/// Decodes a recorded response body of `api` into events, without any network:
/// used by benchmarks and to diagnose captured streams. [`hone_config::WireApi::Local`]
/// has no wire format and yields a single `Failed` event.
pub async fn replay<S, E>(api: hone_config::WireApi, body: S) -> Vec<StreamEvent>
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    let Some(wire) = crate::wire::for_api(api) else {
        return vec![StreamEvent::Failed {
            error: HoneError::config("the `local` provider has no wire format to replay"),
        }];
    };
    decode_body(
        wire.as_ref(),
        body,
        Duration::from_secs(3600),
        CancellationToken::new(),
        "replay",
    )
    .collect()
    .await
}
