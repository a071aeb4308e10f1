//! The wire format: frames are flat objects, tags are dotted, everything round-trips.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_api::{
    ApprovalDecision, ErrorCategory, ErrorInfo, Event, EventFrame, Request, RequestFrame,
    RunStatus, TurnStats, Usage,
};
use serde_json::json;

fn round_trip_request(frame: &RequestFrame) {
    let text = serde_json::to_string(frame).unwrap();
    assert_eq!(
        &serde_json::from_str::<RequestFrame>(&text).unwrap(),
        frame,
        "{text}"
    );
}

fn round_trip_event(frame: &EventFrame) {
    let text = serde_json::to_string(frame).unwrap();
    assert_eq!(
        &serde_json::from_str::<EventFrame>(&text).unwrap(),
        frame,
        "{text}"
    );
}

#[test]
fn requests_carry_their_id_beside_a_dotted_type() {
    let frame = RequestFrame::new(
        "a1",
        Request::Approval {
            call_id: "c1".into(),
            decision: ApprovalDecision::Deny {
                message: Some("use cargo check".into()),
            },
        },
    );
    assert_eq!(
        serde_json::to_value(&frame).unwrap(),
        json!({"id": "a1", "type": "approval.answer", "call_id": "c1",
               "decision": {"answer": "deny", "message": "use cargo check"}})
    );
    round_trip_request(&frame);
}

#[test]
fn every_kind_of_request_round_trips() {
    let requests = [
        Request::user_message("hi"),
        Request::Cancel,
        Request::Undo { count: 2 },
        Request::ListUndo,
        Request::Compact,
        Request::TrackFiles {
            patterns: vec!["src/**/*.rs".into()],
            summary: true,
        },
        Request::UntrackFiles {
            patterns: vec!["a.rs".into()],
        },
        Request::NewSession {
            model: None,
            cwd: None,
            role: None,
        },
        Request::ResumeSession {
            session_id: "last".into(),
            model: Some("m".into()),
            cwd: Some("/work/app".into()),
        },
        Request::ForkSession {
            session_id: "01J".into(),
        },
        Request::ListSessions { limit: Some(5) },
        Request::DeleteSession {
            session_id: "01J".into(),
        },
        Request::SetModel { model: "m".into() },
        Request::Shutdown,
    ];
    for (number, request) in requests.into_iter().enumerate() {
        round_trip_request(&RequestFrame::new(number.to_string(), request));
    }
}

#[test]
fn a_request_without_an_id_is_refused() {
    let error = serde_json::from_value::<RequestFrame>(json!({"type": "turn.cancel"}));
    assert!(error.is_err());
}

#[test]
fn an_unknown_request_type_is_refused() {
    let error = serde_json::from_value::<RequestFrame>(json!({"id": "1", "type": "cancel"}));
    assert!(error.unwrap_err().to_string().contains("unknown variant"));
}

#[test]
fn events_carry_the_request_id_they_answer() {
    let frame = EventFrame::new(Some("7".into()), Event::TurnStarted { turn: 1 });
    assert_eq!(
        serde_json::to_value(&frame).unwrap(),
        json!({"request_id": "7", "type": "turn.started", "turn": 1})
    );
    round_trip_event(&frame);
    let unasked = EventFrame::new(
        None,
        Event::SessionStarted {
            provider: "p".into(),
            model: "m".into(),
            approval: "suggest".into(),
            root: "/r".into(),
            session_id: None,
            forked_from: None,
        },
    );
    assert!(
        serde_json::to_value(&unasked)
            .unwrap()
            .get("request_id")
            .is_none()
    );
    round_trip_event(&unasked);
}

#[test]
fn tool_arguments_are_objects_and_exit_codes_fields() {
    let requested = EventFrame::new(
        Some("1".into()),
        Event::ToolRequested {
            call_id: "c".into(),
            name: "run_command".into(),
            arguments: json!({"command": "false"}),
        },
    );
    assert_eq!(
        serde_json::to_value(&requested).unwrap()["arguments"]["command"],
        "false"
    );
    round_trip_event(&requested);
    let completed = EventFrame::new(
        Some("1".into()),
        Event::ToolCompleted {
            call_id: "c".into(),
            name: "run_command".into(),
            output: "exit code 1".into(),
            is_error: true,
            exit_code: Some(1),
            duration_ms: 3,
        },
    );
    assert_eq!(serde_json::to_value(&completed).unwrap()["exit_code"], 1);
    round_trip_event(&completed);
}

#[test]
fn the_result_event_always_names_session_and_cost() {
    let result = Event::Result {
        status: RunStatus::Failed,
        exit_code: 2,
        text: String::new(),
        session_id: None,
        usage: Usage::default(),
        cost: None,
        duration_ms: 0,
        error: Some(ErrorInfo {
            category: ErrorCategory::Config,
            message: "no key".into(),
            provider_detail: None,
        }),
    };
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(value["type"], "result");
    assert_eq!(value["status"], "failed");
    assert!(value["session_id"].is_null() && value.get("session_id").is_some());
    assert!(value["cost"].is_null() && value.get("cost").is_some());
    assert_eq!(value["error"]["category"], "config");
    round_trip_event(&EventFrame::new(None, result));
}

#[test]
fn turn_ends_round_trip_with_their_stats() {
    let stats = TurnStats {
        model_requests: 2,
        tool_calls: 1,
        usage: Usage {
            input_tokens: 10,
            output_tokens: 5,
            ..Usage::default()
        },
        duration_ms: 12,
        attempts: 0,
    };
    for event in [
        Event::TurnCancelled { stats },
        Event::TurnFailed {
            error: ErrorInfo {
                category: ErrorCategory::Network,
                message: "down".into(),
                provider_detail: Some("502".into()),
            },
            stats,
        },
    ] {
        round_trip_event(&EventFrame::new(Some("u".into()), event));
    }
}
