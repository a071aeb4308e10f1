//! HTTP transport: the client, authentication, retries and status-to-error mapping.

use std::time::Duration;

use hone_config::{AuthStyle, ProviderConfig};
use hone_protocol::{ErrorCategory, HoneError, StreamEvent};
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::retry::{backoff_delay, parse_retry_after};
use crate::wire::{WireFormat, WireRequest};

/// Builds the HTTP client for one provider instance.
pub(crate) fn build_client(config: &ProviderConfig) -> Result<reqwest::Client, HoneError> {
    reqwest::Client::builder()
        .connect_timeout(config.network.connect_timeout)
        .user_agent(concat!("hone/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|error| {
            HoneError::config("could not create the HTTP client").with_detail(error.to_string())
        })
}

/// Sends `request`, retrying 429, 5xx and connection failures with backoff; each retry is
/// announced on `notices` (a [`StreamEvent::Retrying`]) when its wait starts.
/// Returns the successful response with its body still unread (the stream).
pub(crate) async fn send_with_retries(
    client: &reqwest::Client,
    config: &ProviderConfig,
    wire: &dyn WireFormat,
    request: &WireRequest,
    cancel: &CancellationToken,
    notices: Option<&UnboundedSender<StreamEvent>>,
) -> Result<reqwest::Response, HoneError> {
    let headers = request_headers(config, request)?;
    let mut attempt: u32 = 0;
    loop {
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(HoneError::cancelled()),
            outcome = tokio::time::timeout(
                config.network.header_timeout,
                send_once(client, request, &headers),
            ) => match outcome {
                Ok(outcome) => outcome,
                Err(_) => return Err(header_timeout_error(config)),
            },
        };
        let failure = match outcome {
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response) => {
                let status = response.status();
                let retry_after = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|value| value.to_str().ok())
                    .and_then(parse_retry_after);
                let body = tokio::select! {
                    biased;
                    () = cancel.cancelled() => return Err(HoneError::cancelled()),
                    body = response.text() => body.unwrap_or_default(),
                };
                let error = status_error(config, wire, status, &body, attempt);
                Failure {
                    error,
                    retry_after,
                    retryable: is_retryable_status(status),
                    status: Some(status.as_u16()),
                }
            }
            Err(error) => Failure {
                retryable: error.is_connect() || error.is_timeout() || error.is_request(),
                error: transport_error(config, &error),
                retry_after: None,
                status: None,
            },
        };
        if !failure.retryable || attempt >= config.network.max_retries {
            return Err(failure.error);
        }
        let delay = backoff_delay(&config.network, attempt, failure.retry_after);
        tracing::debug!(
            provider = %config.name,
            attempt,
            delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            error = %failure.error,
            "retrying provider request"
        );
        if let Some(notices) = notices {
            let _ = notices.send(StreamEvent::Retrying {
                attempt: attempt + 1,
                delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                status: failure.status,
                reason: failure.error.message.clone(),
            });
        }
        tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(HoneError::cancelled()),
            () = tokio::time::sleep(delay) => {}
        }
        attempt += 1;
    }
}

/// The server accepted the request but sent no response headers in time. Not retried: a
/// server that hangs once is likely to hang again, and the user waited long enough.
fn header_timeout_error(config: &ProviderConfig) -> HoneError {
    HoneError::network(format!(
        "timed out after {} s waiting for {} (provider `{}`) to answer: no response headers \
         arrived; raise `[network] header_timeout_secs` if the server is just slow to start",
        config.network.header_timeout.as_secs(),
        config.base_url,
        config.name
    ))
}

struct Failure {
    error: HoneError,
    retry_after: Option<Duration>,
    retryable: bool,
    status: Option<u16>,
}

async fn send_once(
    client: &reqwest::Client,
    request: &WireRequest,
    headers: &HeaderMap,
) -> Result<reqwest::Response, reqwest::Error> {
    let mut builder = client
        .request(request.method.clone(), &request.url)
        .headers(headers.clone());
    if let Some(body) = &request.body {
        builder = builder.json(body);
    }
    builder.send().await
}

/// Headers for one request: the wire's own, then configured ones, then authentication,
/// each replacing same-named earlier ones, so configuration can never duplicate or
/// override the credential header.
fn request_headers(config: &ProviderConfig, request: &WireRequest) -> Result<HeaderMap, HoneError> {
    let mut headers = HeaderMap::new();
    let wire_headers = request.headers.iter().map(|(name, value)| (name, value));
    for (name, value) in wire_headers.chain(config.headers.iter()) {
        headers.insert(
            header_name(config, name)?,
            header_value(config, name, value)?,
        );
    }
    if let Some(key) = &config.api_key {
        let (name, value) = match config.auth {
            AuthStyle::Bearer => ("authorization", format!("Bearer {}", key.expose())),
            AuthStyle::XApiKey => ("x-api-key", key.expose().to_string()),
            AuthStyle::ApiKeyHeader => ("api-key", key.expose().to_string()),
            AuthStyle::GoogApiKey => ("x-goog-api-key", key.expose().to_string()),
        };
        let mut value = HeaderValue::from_str(&value).map_err(|_| {
            HoneError::config(format!(
                "the API key of provider `{}` contains characters not allowed in an HTTP header",
                config.name
            ))
        })?;
        value.set_sensitive(true);
        headers.insert(HeaderName::from_static(name), value);
    }
    Ok(headers)
}

fn header_name(config: &ProviderConfig, name: &str) -> Result<HeaderName, HoneError> {
    HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
        HoneError::config(format!(
            "invalid header name `{name}` in [providers.{}].headers",
            config.name
        ))
    })
}

fn header_value(
    config: &ProviderConfig,
    name: &str,
    value: &str,
) -> Result<HeaderValue, HoneError> {
    HeaderValue::from_str(value).map_err(|_| {
        HoneError::config(format!(
            "invalid value for header `{name}` in [providers.{}].headers",
            config.name
        ))
    })
}

fn is_retryable_status(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
        || status.is_server_error()
}

/// Maps a transport failure (no HTTP status) to a network error naming the URL.
pub(crate) fn transport_error(config: &ProviderConfig, error: &reqwest::Error) -> HoneError {
    let message = if error.is_connect() {
        format!(
            "could not connect to {} (provider `{}`): is the server running and the URL right?",
            config.base_url, config.name
        )
    } else if error.is_timeout() {
        format!("the request to {} timed out", config.base_url)
    } else {
        format!("the request to {} failed", config.base_url)
    };
    HoneError::network(message).with_detail(error_chain(error))
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Maps a non-success HTTP status to a categorised error with an actionable message.
pub(crate) fn status_error(
    config: &ProviderConfig,
    wire: &dyn WireFormat,
    status: StatusCode,
    body: &str,
    retries: u32,
) -> HoneError {
    let said = wire
        .error_message(body)
        .unwrap_or_else(|| excerpt(body, 500));
    let detail = format!("HTTP {status}: {said}");
    let provider = &config.name;
    let after_retries = if retries > 0 {
        format!(" after {retries} retries")
    } else {
        String::new()
    };
    let (category, message) = match status.as_u16() {
        401 | 403 => (
            ErrorCategory::Auth,
            match config.api_key_env.as_deref() {
                Some(variable) => format!(
                    "provider `{provider}` rejected the API key ({status}); check {variable}"
                ),
                None => format!("provider `{provider}` rejected the credentials ({status})"),
            },
        ),
        404 => (
            ErrorCategory::Config,
            format!(
                "provider `{provider}` at {} answered 404: model `{}` or the endpoint does not exist \
                 (run `hone models --provider {provider}` to list models)",
                config.base_url, config.model
            ),
        ),
        429 => (
            ErrorCategory::RateLimit,
            format!("provider `{provider}` is rate limiting requests (429){after_retries}"),
        ),
        400 | 413 | 422 => (
            ErrorCategory::Validation,
            format!("provider `{provider}` rejected the request ({status}): {said}"),
        ),
        _ => (
            ErrorCategory::Provider,
            format!("provider `{provider}` failed with {status}{after_retries}"),
        ),
    };
    HoneError::new(category, message).with_detail(detail)
}

/// The first `limit` characters of `text`, trimmed, with an ellipsis when cut.
pub(crate) fn excerpt(text: &str, limit: usize) -> String {
    let trimmed = text.trim();
    match trimmed.char_indices().nth(limit) {
        Some((cut, _)) => format!("{}…", &trimmed[..cut]),
        None => trimmed.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_headers_cannot_override_the_credential() {
        let mut config = ProviderConfig::from_preset(hone_config::preset("openai").unwrap());
        config.api_key = Some(hone_config::ApiKey::new("sk-real-key-123"));
        config
            .headers
            .insert("Authorization".into(), "Bearer stolen".into());
        config.headers.insert("X-Team".into(), "core".into());
        let request = WireRequest::get("http://localhost/models".into());
        let headers = request_headers(&config, &request).unwrap();
        let auth: Vec<_> = headers.get_all("authorization").iter().collect();
        assert_eq!(auth, ["Bearer sk-real-key-123"]);
        assert_eq!(headers["x-team"], "core");
    }

    #[test]
    fn invalid_configured_headers_are_config_errors() {
        let mut config = ProviderConfig::from_preset(hone_config::preset("lmstudio").unwrap());
        config.headers.insert("Bad Header".into(), "x".into());
        let request = WireRequest::get("http://localhost/models".into());
        let error = request_headers(&config, &request).unwrap_err();
        assert_eq!(error.category, ErrorCategory::Config);
        assert!(error.message.contains("Bad Header"));
    }

    #[test]
    fn excerpt_cuts_on_character_boundaries() {
        assert_eq!(excerpt("  héllo  ", 10), "héllo");
        assert_eq!(excerpt("héllo", 2), "hé…");
    }

    #[test]
    fn retryable_statuses_are_429_408_and_5xx() {
        assert!(is_retryable_status(StatusCode::TOO_MANY_REQUESTS));
        assert!(is_retryable_status(StatusCode::BAD_GATEWAY));
        assert!(!is_retryable_status(StatusCode::UNAUTHORIZED));
        assert!(!is_retryable_status(StatusCode::NOT_FOUND));
    }
}
