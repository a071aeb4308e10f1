//! The protocol on a wire: JSON-RPC 2.0, one message per line (`hone app-server`).
//!
//! A client calls a [`Request`] by its wire name (`method`), with the request's fields as
//! `params` and, beside them, the optional `session` the request is for (default: the
//! session the client opened or joined last). The server answers every call with one
//! response: its `result` is the answering [`Event`](crate::Event) for requests the server
//! answers at once (`session.list`, `settings.get`, …), or `null` for requests a session
//! works on, whose events follow as `event` notifications carrying the call's id as
//! `request_id`. Failures are JSON-RPC errors with hone's message (and its
//! [`ErrorInfo`] as `data`).
//!
//! ```
//! use hone_api::rpc::{Call, decode_call};
//! use hone_api::Request;
//!
//! let call = decode_call(r#"{"jsonrpc":"2.0","id":7,"method":"user.message","params":{"text":"hi"}}"#).unwrap();
//! assert_eq!(call.request, Request::user_message("hi"));
//! assert_eq!(call.id.unwrap().to_string(), "7");
//! ```

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{ErrorInfo, EventFrame, Request};

/// The JSON-RPC version every message names.
pub const VERSION: &str = "2.0";
/// The method of the notifications that carry events.
pub const EVENT_METHOD: &str = "event";

/// The id of a call, a number or a string as the client chose it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RpcId {
    /// A number.
    Number(i64),
    /// A string.
    Text(String),
}

impl fmt::Display for RpcId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcId::Number(number) => write!(f, "{number}"),
            RpcId::Text(text) => f.write_str(text),
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RpcError {
    /// `-32700` unparseable JSON, `-32600` not a JSON-RPC request, `-32601` unknown
    /// method, `-32602` bad params, `-32603` internal error, `-32001` no such session,
    /// `-32000` the request failed (`data` is hone's error).
    pub code: i64,
    /// What went wrong, in one sentence.
    pub message: String,
    /// For `-32000`: hone's [`ErrorInfo`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// The line was not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON was not a JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No request has this method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params do not fit the method.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The request failed; `data` holds hone's error.
    pub const REQUEST_FAILED: i64 = -32000;
    /// No running session has the id, and the client has none.
    pub const UNKNOWN_SESSION: i64 = -32001;

    /// An error with `code` and `message`.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// A request that failed with hone's `error`.
    pub fn failed(error: ErrorInfo) -> Self {
        Self {
            code: Self::REQUEST_FAILED,
            message: error.message.clone(),
            data: serde_json::to_value(&error).ok(),
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

/// One decoded call: the request, the session it is for, and the id to answer under
/// (`None`: a JSON-RPC notification, answered by nothing but its events).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The call's id.
    pub id: Option<RpcId>,
    /// The session it is for (`None`: the client's current session).
    pub session: Option<String>,
    /// The request.
    pub request: Request,
}

/// What the server sends a client: responses and event notifications.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerMessage {
    /// The answer to one call.
    Response {
        /// The call's id (`None` when the call could not be read).
        id: Option<RpcId>,
        /// The result, or why it failed.
        outcome: Result<Value, RpcError>,
    },
    /// An event of a session the client is attached to.
    Event(SessionEvent),
}

/// An event notification's params, and the result of a request the server answers at
/// once: the session's id beside the event frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionEvent {
    /// The session the event belongs to (its saved id, or `unsaved-N`); absent in the
    /// results of requests about no session (`session.list`, `history.list`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The event, with the id of the call it answers when this client made that call.
    #[serde(flatten)]
    pub frame: EventFrame,
}

#[derive(Serialize)]
struct ResponseWire<'a> {
    jsonrpc: &'static str,
    id: &'a Option<RpcId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a RpcError>,
}

#[derive(Serialize)]
struct NotificationWire<'a> {
    jsonrpc: &'static str,
    method: &'static str,
    params: &'a SessionEvent,
}

impl ServerMessage {
    /// The message as one line of JSON (without the newline).
    pub fn to_line(&self) -> String {
        let encoded = match self {
            ServerMessage::Response { id, outcome } => {
                let (result, error) = match outcome {
                    Ok(value) => (Some(value), None),
                    Err(error) => (None, Some(error)),
                };
                serde_json::to_string(&ResponseWire {
                    jsonrpc: VERSION,
                    id,
                    result,
                    error,
                })
            }
            ServerMessage::Event(event) => serde_json::to_string(&NotificationWire {
                jsonrpc: VERSION,
                method: EVENT_METHOD,
                params: event,
            }),
        };
        // Both shapes hold only strings, numbers and values that came from JSON.
        encoded.unwrap_or_else(|error| {
            format!(
                r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32603,"message":"{}"}}}}"#,
                error.to_string().replace('"', "'")
            )
        })
    }
}

/// A line that is not a valid call: the error to answer it with, under its id when it had
/// a readable one.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The call's id, when it could be read.
    pub id: Option<RpcId>,
    /// What is wrong with it.
    pub error: Box<RpcError>,
}

impl From<Refusal> for ServerMessage {
    fn from(refusal: Refusal) -> Self {
        ServerMessage::Response {
            id: refusal.id,
            outcome: Err(*refusal.error),
        }
    }
}

/// Reads one line of a client's input as a call; a line that is not a valid call is
/// refused with the error to send back.
pub fn decode_call(line: &str) -> Result<Call, Refusal> {
    let refuse = |id: Option<RpcId>, code: i64, message: String| Refusal {
        id,
        error: Box::new(RpcError::new(code, message)),
    };
    let value: Value = serde_json::from_str(line)
        .map_err(|error| refuse(None, RpcError::PARSE_ERROR, format!("not JSON: {error}")))?;
    let Value::Object(mut object) = value else {
        return Err(refuse(
            None,
            RpcError::INVALID_REQUEST,
            "a call is one JSON object (batches are not supported)".into(),
        ));
    };
    let id = match object.remove("id") {
        None => None,
        Some(value) => Some(serde_json::from_value::<RpcId>(value).map_err(|_| {
            refuse(
                None,
                RpcError::INVALID_REQUEST,
                "`id` must be a number or a string".into(),
            )
        })?),
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some(VERSION) {
        return Err(refuse(
            id,
            RpcError::INVALID_REQUEST,
            r#"`jsonrpc` must be "2.0""#.into(),
        ));
    }
    let Some(Value::String(method)) = object.remove("method") else {
        return Err(refuse(
            id,
            RpcError::INVALID_REQUEST,
            "`method` must be a string".into(),
        ));
    };
    if !Request::METHODS.contains(&method.as_str()) {
        return Err(refuse(
            id,
            RpcError::METHOD_NOT_FOUND,
            format!("no method `{method}` (docs/protocol.md lists them)"),
        ));
    }
    let mut params = match object.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params,
        Some(_) => {
            return Err(refuse(
                id,
                RpcError::INVALID_PARAMS,
                "`params` must be an object".into(),
            ));
        }
    };
    let session = match params.remove("session") {
        None | Some(Value::Null) => None,
        Some(Value::String(session)) => Some(session),
        Some(_) => {
            return Err(refuse(
                id,
                RpcError::INVALID_PARAMS,
                "`session` must be a string".into(),
            ));
        }
    };
    params.insert("type".into(), Value::String(method.clone()));
    let request = serde_json::from_value::<Request>(Value::Object(params)).map_err(|error| {
        refuse(
            id.clone(),
            RpcError::INVALID_PARAMS,
            format!("bad params for `{method}`: {error}"),
        )
    })?;
    Ok(Call {
        id,
        session,
        request,
    })
}

/// `call` as one line of JSON, the way a client sends it.
pub fn encode_call(call: &Call) -> String {
    let mut params = match serde_json::to_value(&call.request) {
        Ok(Value::Object(params)) => params,
        _ => Map::new(),
    };
    params.remove("type");
    if let Some(session) = &call.session {
        params.insert("session".into(), Value::String(session.clone()));
    }
    let mut object = Map::new();
    object.insert("jsonrpc".into(), Value::String(VERSION.into()));
    if let Some(id) = &call.id {
        object.insert("id".into(), serde_json::to_value(id).unwrap_or(Value::Null));
    }
    object.insert(
        "method".into(),
        Value::String(call.request.method().to_string()),
    );
    object.insert("params".into(), Value::Object(params));
    Value::Object(object).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Event;

    fn error_of(line: &str) -> RpcError {
        match decode_call(line) {
            Err(refusal) => *refusal.error,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn calls_round_trip_through_their_wire_form() {
        let call = Call {
            id: Some(RpcId::Text("a".into())),
            session: Some("01J".into()),
            request: Request::TrackFiles {
                patterns: vec!["src/*.rs".into()],
                summary: true,
            },
        };
        assert_eq!(decode_call(&encode_call(&call)).ok(), Some(call));
    }

    #[test]
    fn bad_lines_become_json_rpc_errors() {
        assert_eq!(error_of("{not json").code, RpcError::PARSE_ERROR);
        assert_eq!(error_of("[1]").code, RpcError::INVALID_REQUEST);
        assert_eq!(
            error_of(r#"{"jsonrpc":"1.0","id":1,"method":"settings.get"}"#).code,
            RpcError::INVALID_REQUEST
        );
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":1,"method":"no.such"}"#).code,
            RpcError::METHOD_NOT_FOUND
        );
        let bad = error_of(r#"{"jsonrpc":"2.0","id":1,"method":"user.message","params":{}}"#);
        assert_eq!(bad.code, RpcError::INVALID_PARAMS);
        assert!(bad.message.contains("text"), "{}", bad.message);
    }

    #[test]
    fn an_unreadable_id_is_answered_under_null() {
        let refusal = decode_call("{oops").unwrap_err();
        let line = ServerMessage::from(refusal).to_line();
        assert_eq!(
            line,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not JSON: key must be a string at line 1 column 2"}}"#
        );
    }

    #[test]
    fn results_and_events_are_json_rpc_messages() {
        let ok = ServerMessage::Response {
            id: Some(RpcId::Number(3)),
            outcome: Ok(Value::Null),
        };
        assert_eq!(ok.to_line(), r#"{"jsonrpc":"2.0","id":3,"result":null}"#);
        let event = ServerMessage::Event(SessionEvent {
            session: Some("s1".into()),
            frame: EventFrame::new(Some("3".into()), Event::TurnStarted { turn: 1 }),
        });
        assert_eq!(
            event.to_line(),
            r#"{"jsonrpc":"2.0","method":"event","params":{"session":"s1","request_id":"3","type":"turn.started","turn":1}}"#
        );
    }
}
