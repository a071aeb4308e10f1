//! Secrets in a session against a mock model: a file that may hold secrets is read only once
//! the user approves (in every mode, refused without a terminal), and what commands print is
//! redacted (the keys hone holds, their encoded forms, values shaped like secrets) before the
//! model, the events and the audit logs see it.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use hone_api::{ApprovalDecision, Event, EventFrame, Request};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{SessionConfig, SessionHandle};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_testkit::{MockServer, Reply};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

const KEY: &str = "key-for-tests-0123456789";
const ENV: &str = "PORT=8080\nAPI_KEY=Zx9Qw7Er5Ty3Ui1Op\n";

struct Harness {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    server: MockServer,
    handle: SessionHandle,
    events: UnboundedReceiver<EventFrame>,
}

async fn harness(mode: ApprovalMode, interactive: bool, replies: Vec<Reply>) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\n").unwrap();
    std::fs::write(root.join(".env"), ENV).unwrap();
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new(KEY));
    let provider = hone_providers::build_provider(config).unwrap();
    let (handle, events) = hone_core::start_session(SessionConfig {
        root: root.clone(),
        provider,
        model: String::new(),
        permissions: Permissions::new(mode, CommandPolicy::default()),
        max_tool_rounds: 25,
        interactive,
        audit: true,
        secrets: vec![KEY.to_string()],
        commands: Default::default(),
        extra_tools: Vec::new(),
        tool_sources: Vec::new(),
        repo_map: None,
        prompt_profile: hone_core::PromptProfile::Full,
        memory: None,
        context: hone_core::ContextConfig::default(),
        checks: hone_core::ChecksConfig::disabled(),
        code_mapper: None,
        localizer: None,
        guidance: hone_core::Guidance::default(),
        roles: hone_core::RoleModels::default(),
        hooks: hone_core::Hooks::default(),
    })
    .unwrap();
    Harness {
        _dir: dir,
        root,
        server,
        handle,
        events,
    }
}

impl Harness {
    /// Sends `text` and answers approvals with `answer` until the turn ends.
    async fn turn(
        &mut self,
        text: &str,
        mut answer: impl FnMut(&Event) -> ApprovalDecision,
    ) -> Vec<Event> {
        self.handle.send(Request::user_message(text));
        let mut seen = Vec::new();
        loop {
            let event = tokio::time::timeout(Duration::from_secs(20), self.events.recv())
                .await
                .expect("no event for 20 s")
                .expect("session alive")
                .event;
            if let Event::ApprovalNeeded { call_id, .. } = &event {
                self.handle.send(Request::Approval {
                    call_id: call_id.clone(),
                    decision: answer(&event),
                });
            }
            let done = matches!(
                event,
                Event::TurnCompleted { .. }
                    | Event::TurnFailed { .. }
                    | Event::TurnCancelled { .. }
            );
            seen.push(event);
            if done {
                return seen;
            }
        }
    }

    /// Everything the model was sent.
    fn sent(&self) -> String {
        self.server
            .requests()
            .iter()
            .map(|request| request.json().to_string())
            .collect()
    }
}

fn outputs(events: &[Event]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCompleted {
                output, is_error, ..
            } => Some((output.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

fn approvals(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ApprovalNeeded {
                summary, reason, ..
            } => Some((summary.clone(), reason.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn even_full_auto_asks_before_a_secret_file_reaches_the_model() {
    let mut h = harness(
        ApprovalMode::FullAuto,
        true,
        vec![
            Reply::new().tool_call("read_file", json!({"path": ".env"})),
            Reply::new().text("The port is 8080."),
        ],
    )
    .await;
    let events = h.turn("which port?", |_| ApprovalDecision::Approve).await;
    let asked = approvals(&events);
    assert_eq!(asked.len(), 1, "{events:?}");
    assert_eq!(asked[0].0, "read .env");
    assert!(asked[0].1.contains("may hold secrets"), "{asked:?}");
    let outputs = outputs(&events);
    assert!(outputs[0].0.contains("PORT=8080"), "{outputs:?}");
    // A value shaped like a secret is redacted even from an approved read.
    assert!(outputs[0].0.contains("API_KEY=[REDACTED]"), "{outputs:?}");
    assert!(!h.sent().contains("Zx9Qw7Er5Ty3Ui1Op"));
}

#[tokio::test]
async fn a_denied_secret_read_and_one_in_a_batch_of_reads_send_nothing() {
    let mut h = harness(
        ApprovalMode::AutoEdit,
        true,
        vec![
            Reply::new()
                .tool_call("read_file", json!({"path": "notes.txt"}))
                .tool_call("read_file", json!({"path": ".env"})),
            Reply::new().text("I could not read it."),
        ],
    )
    .await;
    let events = h
        .turn("read both", |_| ApprovalDecision::Deny { message: None })
        .await;
    assert_eq!(approvals(&events).len(), 1, "{events:?}");
    let outputs = outputs(&events);
    assert!(
        !outputs[0].1 && outputs[0].0.contains("alpha"),
        "{outputs:?}"
    );
    assert!(outputs[1].1, "{outputs:?}");
    assert!(!h.sent().contains("PORT=8080"), "the content never left");
}

#[tokio::test]
async fn without_a_terminal_a_secret_file_is_refused_and_granting_it_stops_asking() {
    let mut h = harness(
        ApprovalMode::FullAuto,
        false,
        vec![
            Reply::new().tool_call("read_file", json!({"path": ".env"})),
            Reply::new().text("Refused."),
        ],
    )
    .await;
    let events = h.turn("read .env", |_| ApprovalDecision::Approve).await;
    assert!(approvals(&events).is_empty());
    let refused = outputs(&events);
    assert!(refused[0].1, "{refused:?}");
    assert!(refused[0].0.contains("without a terminal"), "{refused:?}");
    assert!(!h.sent().contains("PORT=8080"));

    let mut h = harness(
        ApprovalMode::Ask,
        true,
        vec![
            Reply::new().tool_call("read_file", json!({"path": ".env"})),
            Reply::new().tool_call("read_file", json!({"path": ".env", "start_line": 1})),
            Reply::new().text("Read twice."),
        ],
    )
    .await;
    let events = h
        .turn("read .env twice", |_| ApprovalDecision::AlwaysForSession)
        .await;
    assert_eq!(approvals(&events).len(), 1, "granted for the session");
    assert!(outputs(&events).iter().all(|(_, failed)| !failed));
}

#[tokio::test]
async fn a_command_printing_an_encoded_key_is_redacted_everywhere() {
    // The command names files, not the values: the model never wrote them.
    let command = "base64 key.txt; rev key.txt; cat token.txt";
    let mut h = harness(
        ApprovalMode::FullAuto,
        true,
        vec![
            Reply::new().tool_call("run_command", json!({"command": command})),
            Reply::new().text("Printed."),
        ],
    )
    .await;
    std::fs::write(h.root.join("key.txt"), KEY).unwrap();
    std::fs::write(
        h.root.join("token.txt"),
        "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n",
    )
    .unwrap();
    let events = h.turn("print it", |_| ApprovalDecision::Approve).await;
    let output = &outputs(&events)[0].0;
    assert!(output.contains("[REDACTED]"), "{output}");
    let encoded = base64_of(KEY);
    let reversed: String = KEY.chars().rev().collect();
    let logs = std::fs::read_to_string(h.root.join(".hone/logs/tools.jsonl")).unwrap();
    for text in [output.as_str(), &h.sent(), &logs] {
        assert!(!text.contains(&encoded[..20]), "{text}");
        assert!(!text.contains(&reversed), "{text}");
        assert!(!text.contains("ghp_aBcDeF"), "{text}");
    }
}

/// `base64` of `text` as the command prints it.
fn base64_of(text: &str) -> String {
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf %s '{text}' | base64 -w0"))
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}
