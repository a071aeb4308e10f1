//! The WebSocket: one text message per JSON-RPC call in, one per response or event out,
//! bridged to a [`hone_server::Connection`] like `hone app-server`'s stdin and stdout.

use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use futures::{SinkExt, StreamExt};
use hone_api::rpc::{RpcError, ServerMessage, decode_call};

use crate::AppState;

/// The largest message a page may send (a long prompt fits many times over).
const MAX_MESSAGE: usize = 8 << 20;

/// Upgrades `/ws` (the guard has checked the token, the host and the origin).
pub(crate) async fn upgrade(State(state): State<AppState>, socket: WebSocketUpgrade) -> Response {
    socket
        .max_message_size(MAX_MESSAGE)
        .on_upgrade(move |socket| bridge(socket, state))
}

/// Serves one page until its socket closes or the server stops.
async fn bridge(socket: WebSocket, state: AppState) {
    let AppState {
        server,
        mut stop,
        reload_grace,
        ..
    } = state;
    let (connection, mut outgoing) = server.connect();
    tracing::debug!("web: a page connected");
    let (mut sink, mut stream) = socket.split();
    let writer = tokio::spawn(async move {
        while let Some(message) = outgoing.recv().await {
            if sink
                .send(Message::Text(message.to_line().into()))
                .await
                .is_err()
            {
                break;
            }
        }
    });
    let stopped = loop {
        tokio::select! {
            incoming = stream.next() => match incoming {
                Some(Ok(Message::Text(text))) => match decode_call(text.as_str()) {
                    Ok(call) => connection.handle(call),
                    Err(refusal) => connection.send(refusal.into()),
                },
                Some(Ok(Message::Binary(_))) => connection.send(ServerMessage::Response {
                    id: None,
                    outcome: Err(RpcError::new(
                        RpcError::INVALID_REQUEST,
                        "a call is one JSON text message, not binary",
                    )),
                }),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(_)) | Err(_)) | None => break false,
            },
            _ = stop.wait_for(|stopping| *stopping) => break true,
        }
    };
    // A page that reloads comes back within the grace and resumes its session: until
    // then this client stays attached, so the session (and a running turn) goes on.
    if !stopped {
        tokio::select! {
            () = tokio::time::sleep(reload_grace) => {}
            _ = stop.wait_for(|stopping| *stopping) => {}
        }
    }
    connection.disconnect();
    writer.abort();
    tracing::debug!("web: a page left");
}
