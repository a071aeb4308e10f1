//! The HTTP and WebSocket layer of `hone web` in process, against a scripted model: the
//! token, the Host and Origin checks, the security headers, and the socket speaking the
//! JSON-RPC protocol (bad messages answered with errors, the connection going on, the
//! session's logs read back).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use futures::{SinkExt, StreamExt};
use hone_config::{CliOverrides, ConfigSources};
use hone_runtime::{RuntimeOptions, Unattended};
use hone_server::Server;
use hone_testkit::{MockServer, Reply};
use hone_web::{WebOptions, WebServer};
use reqwest::StatusCode;
use reqwest::header::{COOKIE, HOST, LOCATION, ORIGIN, SET_COOKIE};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// A running `hone web` and what a client needs to reach it.
struct Running {
    base: String,
    token: String,
    cookie: String,
    stop: tokio::sync::oneshot::Sender<()>,
    _dir: tempfile::TempDir,
}

async fn start(model: &MockServer) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    let options = RuntimeOptions {
        sources: ConfigSources {
            user_file: None,
            project_dir: Some(root.clone()),
            env: Default::default(),
        },
        root,
        working_dir: None,
        overrides: CliOverrides {
            provider: Some("lmstudio".into()),
            base_url: Some(model.url()),
            sandbox: Some(hone_sandbox::SandboxMode::Off),
            ..CliOverrides::default()
        },
        store_path: Some(dir.path().join("sessions.db")),
    };
    let server = Server::open(options, Arc::new(Unattended)).unwrap();
    let web = WebServer::bind(server, &WebOptions::default())
        .await
        .unwrap();
    let url = web.url();
    let (base, token) = url.split_once("/?token=").unwrap();
    let port = web.address().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(web.serve(async move {
        let _ = stopped.await;
    }));
    Running {
        base: base.to_string(),
        cookie: format!("hone_web_{port}={token}"),
        token: token.to_string(),
        stop,
        _dir: dir,
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

#[tokio::test]
async fn every_request_needs_the_token_and_the_first_page_load_sets_the_cookie() {
    let model = MockServer::start().await;
    let web = start(&model).await;
    let client = http();
    for path in ["/", "/app.js", "/?token=wrong", "/nothing"] {
        let response = client
            .get(format!("{}{path}", web.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    let wrong_cookie = client
        .get(format!("{}/", web.base))
        .header(COOKIE, format!("{}x", web.cookie))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong_cookie.status(), StatusCode::UNAUTHORIZED);

    let first = client
        .get(format!("{}/?token={}", web.base, web.token))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::SEE_OTHER);
    assert_eq!(first.headers()[LOCATION], "/");
    let cookie = first.headers()[SET_COOKIE].to_str().unwrap();
    assert!(cookie.starts_with(&web.cookie), "{cookie}");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );

    let page = client
        .get(format!("{}/", web.base))
        .header(COOKIE, format!("other=1; {}", web.cookie))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let policy = page.headers()["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"));
    assert_eq!(page.headers()["x-content-type-options"], "nosniff");
    let html = page.text().await.unwrap();
    assert!(html.contains("<script src=\"/app.js\""), "{html}");
    assert!(!html.contains(&web.token), "the page never holds the token");

    let script = client
        .get(format!("{}/app.js", web.base))
        .header(COOKIE, &web.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(script.status(), StatusCode::OK);
    assert!(
        script.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    let missing = client
        .get(format!("{}/secrets.txt", web.base))
        .header(COOKIE, &web.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    web.stop.send(()).unwrap();
}

#[tokio::test]
async fn a_foreign_host_or_origin_is_refused_even_with_the_token() {
    let model = MockServer::start().await;
    let web = start(&model).await;
    let client = http();
    let port = web.base.rsplit(':').next().unwrap();
    let rebound = client
        .get(format!("{}/", web.base))
        .header(COOKIE, &web.cookie)
        .header(HOST, format!("attacker.example:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN);
    let cross_site = client
        .get(format!("{}/app.js", web.base))
        .header(COOKIE, &web.cookie)
        .header(ORIGIN, "http://attacker.example")
        .send()
        .await
        .unwrap();
    assert_eq!(cross_site.status(), StatusCode::FORBIDDEN);
    let by_name = client
        .get(format!("http://localhost:{port}/"))
        .header(COOKIE, &web.cookie)
        .header(ORIGIN, format!("http://localhost:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        by_name.status(),
        StatusCode::OK,
        "localhost names the loopback server too"
    );
    web.stop.send(()).unwrap();
}

/// Opens the socket with `headers`; the HTTP status when the handshake is refused.
async fn socket(
    web: &Running,
    headers: &[(&'static str, String)],
) -> Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    u16,
> {
    let mut request = format!("{}/ws", web.base.replacen("http", "ws", 1))
        .into_client_request()
        .unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(*name, value.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((stream, _)) => Ok(stream),
        Err(WsError::Http(response)) => Err(response.status().as_u16()),
        Err(other) => panic!("{other}"),
    }
}

#[tokio::test]
async fn the_socket_needs_the_token_and_the_pages_origin() {
    let model = MockServer::start().await;
    let web = start(&model).await;
    let origin = web.base.clone();
    let cookie = web.cookie.clone();
    assert_eq!(
        socket(&web, &[("origin", origin.clone())]).await.err(),
        Some(401)
    );
    assert_eq!(
        socket(&web, &[("cookie", cookie.clone())]).await.err(),
        Some(403)
    );
    let foreign = [
        ("cookie", cookie.clone()),
        ("origin", "http://attacker.example".to_string()),
    ];
    assert_eq!(socket(&web, &foreign).await.err(), Some(403));
    assert!(
        socket(&web, &[("cookie", cookie), ("origin", origin)])
            .await
            .is_ok()
    );
    web.stop.send(()).unwrap();
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn next_json(stream: &mut Socket) -> Value {
    loop {
        match stream.next().await.unwrap().unwrap() {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// Messages until the response to `id`.
async fn until_response(stream: &mut Socket, id: &Value) -> (Value, Vec<Value>) {
    let mut events = Vec::new();
    loop {
        let message = next_json(stream).await;
        if message.get("id") == Some(id) {
            return (message, events);
        }
        events.push(message);
    }
}

#[tokio::test]
async fn bad_messages_get_errors_and_the_socket_goes_on_to_a_turn() {
    let model = MockServer::start().await;
    model.enqueue(
        Reply::new()
            .text("Hello from the model.")
            .text_pieces(5)
            .openai_chat(),
    );
    let web = start(&model).await;
    let headers = [("cookie", web.cookie.clone()), ("origin", web.base.clone())];
    let mut stream = socket(&web, &headers).await.unwrap();

    stream.send(Message::text("{not json")).await.unwrap();
    let garbage = next_json(&mut stream).await;
    assert_eq!(garbage["error"]["code"], -32700, "{garbage}");
    stream
        .send(Message::binary(vec![0u8, 159, 146, 150]))
        .await
        .unwrap();
    let binary = next_json(&mut stream).await;
    assert_eq!(binary["error"]["code"], -32600, "{binary}");
    stream
        .send(Message::text(
            r#"{"jsonrpc":"2.0","id":"u","method":"no.such"}"#,
        ))
        .await
        .unwrap();
    assert_eq!(
        until_response(&mut stream, &json!("u")).await.0["error"]["code"],
        -32601
    );
    stream
        .send(Message::text(
            r#"{"jsonrpc":"2.0","id":"p","method":"user.message","params":{}}"#,
        ))
        .await
        .unwrap();
    assert_eq!(
        until_response(&mut stream, &json!("p")).await.0["error"]["code"],
        -32602
    );

    stream
        .send(Message::text(
            r#"{"jsonrpc":"2.0","id":1,"method":"session.new","params":{}}"#,
        ))
        .await
        .unwrap();
    let (opened, _) = until_response(&mut stream, &json!(1)).await;
    assert_eq!(opened["result"]["type"], "session.started", "{opened}");
    assert_eq!(opened["result"]["provider"], "lmstudio");
    stream
        .send(Message::text(
            r#"{"jsonrpc":"2.0","id":2,"method":"user.message","params":{"text":"hi"}}"#,
        ))
        .await
        .unwrap();
    let (accepted, _) = until_response(&mut stream, &json!(2)).await;
    assert_eq!(accepted["result"], Value::Null, "{accepted}");
    let mut streamed = String::new();
    loop {
        let message = next_json(&mut stream).await;
        let event = &message["params"];
        assert_eq!(message["method"], "event", "{message}");
        if event["type"] == "message.delta" {
            assert_eq!(event["request_id"], "2");
            streamed.push_str(event["text"].as_str().unwrap());
        }
        if event["type"] == "turn.completed" {
            break;
        }
    }
    assert_eq!(streamed, "Hello from the model.");

    // The session's comms log: the request and the response of that turn.
    stream
        .send(Message::text(
            r#"{"jsonrpc":"2.0","id":3,"method":"logs.read","params":{"kind":"secrets"}}"#,
        ))
        .await
        .unwrap();
    assert_eq!(
        until_response(&mut stream, &json!(3)).await.0["error"]["code"],
        -32602
    );
    stream
        .send(Message::text(
            r#"{"jsonrpc":"2.0","id":4,"method":"logs.read","params":{"kind":"comms"}}"#,
        ))
        .await
        .unwrap();
    until_response(&mut stream, &json!(4)).await;
    let logged = loop {
        let message = next_json(&mut stream).await;
        if message["params"]["type"] == "logs.entries" {
            break message["params"].clone();
        }
    };
    assert_eq!(logged["request_id"], "4");
    assert_eq!(logged["enabled"], true);
    let labels: Vec<&str> = logged["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["request", "response"], "{logged}");
    assert!(
        logged["entries"][1]["summary"]
            .as_str()
            .unwrap()
            .contains("“Hello from the model.”"),
        "{logged}"
    );
    web.stop.send(()).unwrap();
}
