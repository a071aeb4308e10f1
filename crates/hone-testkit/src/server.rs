//! The mock HTTP server: serves scripted responses in order and records every request.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::body::{Body, Bytes as AxumBytes};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use axum::serve::ListenerExt;
use futures::StreamExt;
use tokio::sync::oneshot;

use crate::response::{MockResponse, StreamEnd};

/// A request the mock server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// HTTP method.
    pub method: String,
    /// Path without the query string.
    pub path: String,
    /// Raw query string, if any.
    pub query: Option<String>,
    /// Headers with lower-case names (the last value wins for repeated names).
    pub headers: BTreeMap<String, String>,
    /// Raw body.
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The body parsed as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// One header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

#[derive(Default)]
struct State {
    queue: VecDeque<MockResponse>,
    routes: Vec<(String, MockResponse)>,
    requests: Vec<RecordedRequest>,
}

/// A local HTTP server that answers with scripted responses.
///
/// Responses added with [`MockServer::enqueue`] are served one per request, in order,
/// whatever the path; [`MockServer::route`] answers a fixed path every time (checked
/// first). A [`MockResponse::file`] honours `Range` requests. Unscripted requests get a `500` naming the request, so a test sees why it failed.
pub struct MockServer {
    address: SocketAddr,
    state: Arc<Mutex<State>>,
    shutdown: Option<oneshot::Sender<()>>,
}

impl MockServer {
    /// Starts a server on a free loopback port.
    pub async fn start() -> Self {
        let state = Arc::new(Mutex::new(State::default()));
        let handler_state = Arc::clone(&state);
        let app = Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: AxumBytes| {
                let state = Arc::clone(&handler_state);
                async move { answer(&state, method, uri, headers, body) }
            },
        );
        let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
            Ok(listener) => listener,
            Err(error) => panic!("mock server could not bind a loopback port: {error}"),
        };
        let address = match listener.local_addr() {
            Ok(address) => address,
            Err(error) => panic!("mock server has no local address: {error}"),
        };
        // Without TCP_NODELAY, Nagle's algorithm holds small streamed chunks back ~40 ms.
        let listener = listener.tap_io(|stream| {
            let _ = stream.set_nodelay(true);
        });
        let (shutdown, signal) = oneshot::channel();
        tokio::spawn(async move {
            let server = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = signal.await;
            });
            let _ = server.await;
        });
        Self {
            address,
            state,
            shutdown: Some(shutdown),
        }
    }

    /// Base URL such as `http://127.0.0.1:41234` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Queues a response for the next unrouted request.
    pub fn enqueue(&self, response: MockResponse) -> &Self {
        lock(&self.state).queue.push_back(response);
        self
    }

    /// Answers every request whose path ends with `path_suffix` with `response`.
    pub fn route(&self, path_suffix: &str, response: MockResponse) -> &Self {
        lock(&self.state)
            .routes
            .push((path_suffix.to_string(), response));
        self
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// The most recent request; panics when there was none (a test failure).
    pub fn last_request(&self) -> RecordedRequest {
        match lock(&self.state).requests.last() {
            Some(request) => request.clone(),
            None => panic!("the mock server received no request"),
        }
    }

    /// Number of requests received so far.
    pub fn request_count(&self) -> usize {
        lock(&self.state).requests.len()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn answer(
    state: &Mutex<State>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: AxumBytes,
) -> Response {
    let recorded = RecordedRequest {
        method: method.to_string(),
        path: uri.path().to_string(),
        query: uri.query().map(str::to_string),
        headers: headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: body.to_vec(),
    };
    let scripted = {
        let mut state = lock(state);
        let routed = state
            .routes
            .iter()
            .find(|(suffix, _)| recorded.path.ends_with(suffix.as_str()))
            .map(|(_, response)| response.clone());
        let scripted = routed.or_else(|| state.queue.pop_front());
        state.requests.push(recorded.clone());
        scripted
    };
    let scripted = scripted.map(|response| {
        recorded
            .header("range")
            .and_then(|range| response.for_range(range))
            .unwrap_or(response)
    });
    match scripted {
        Some(response) => render(response),
        None => render(MockResponse::status(500).chunks([format!(
            "{{\"error\":{{\"message\":\"mock server: no scripted response for {} {}\"}}}}",
            recorded.method, recorded.path
        )])),
    }
}

fn render(scripted: MockResponse) -> Response {
    let count = scripted.chunk_count();
    let delay = scripted.chunk_delay;
    let end = scripted.end;
    let chunks: Vec<_> = scripted.chunks.into_iter().take(count).collect();
    let body_stream = futures::stream::iter(chunks)
        .then(move |chunk| async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            Ok::<_, std::io::Error>(chunk)
        })
        .chain(
            futures::stream::once(async move {
                match end {
                    StreamEnd::Close => None,
                    StreamEnd::Stall => {
                        futures::future::pending::<()>().await;
                        None
                    }
                    StreamEnd::Disconnect => {
                        // Let the sent chunks reach the client before the connection breaks.
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        Some(Err(std::io::Error::other("scripted disconnect")))
                    }
                }
            })
            .filter_map(|item| async move { item }),
        );
    let mut builder = Response::builder()
        .status(StatusCode::from_u16(scripted.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
    for (name, value) in &scripted.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    match builder.body(Body::from_stream(body_stream)) {
        Ok(response) => response,
        Err(error) => {
            let mut fallback = Response::new(Body::from(format!("bad scripted response: {error}")));
            *fallback.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            fallback
        }
    }
}
