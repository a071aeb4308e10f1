//! The harness of the guided-flow tests: a mock model, a fixed localizer and a session.
#![allow(dead_code, unused_imports)]

pub use std::sync::{Arc, Mutex};
pub use std::time::Duration;

pub use hone_api::{Event, EventFrame, Request, TaskKind, TurnEnd};
pub use hone_config::{ApiKey, ProviderConfig, preset};
pub use hone_context::localize::{Candidate, Localizer, Mention, MentionKind};
pub use hone_core::{
    FlowMode, Guidance, LocalizeMode, PromptProfile, RoleModel, RoleModels, SessionConfig,
    SessionHandle,
};
pub use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
pub use hone_testkit::{MockServer, Reply};
pub use serde_json::{Value, json};
pub use tokio::sync::mpsc::UnboundedReceiver;

pub const MATH_TS: &str =
    "export function add(a: number, b: number): number {\n  return a - b;\n}\n";

/// Finds `add` in `src/math.ts` when the request names it; records what it was asked.
#[derive(Default)]
pub struct FixedLocalizer {
    pub asked: Mutex<Vec<String>>,
}

impl Localizer for FixedLocalizer {
    fn locate(&self, mentions: &[Mention]) -> Vec<Candidate> {
        let mut asked = self.asked.lock().unwrap();
        asked.extend(mentions.iter().map(|mention| mention.text.clone()));
        mentions
            .iter()
            .filter(|mention| mention.names.iter().any(|name| name == "add"))
            .map(|mention| Candidate {
                path: "src/math.ts".to_string(),
                lines: Some((1, 3)),
                what: "function add".to_string(),
                mention: mention.text.clone(),
                kind: MentionKind::Symbol,
                score: 4.0,
            })
            .collect()
    }
}

pub struct Harness {
    pub _dir: tempfile::TempDir,
    pub root: std::path::PathBuf,
    pub server: MockServer,
    pub handle: SessionHandle,
    pub events: UnboundedReceiver<EventFrame>,
    pub localizer: Arc<FixedLocalizer>,
}

pub async fn harness(
    profile: PromptProfile,
    guidance: Guidance,
    roles: RoleModels,
    replies: Vec<Reply>,
) -> Harness {
    harness_with(
        profile,
        guidance,
        roles,
        replies,
        ApprovalMode::AutoEdit,
        hone_core::ChecksConfig::disabled(),
    )
    .await
}

pub async fn harness_with(
    profile: PromptProfile,
    guidance: Guidance,
    roles: RoleModels,
    replies: Vec<Reply>,
    approval: ApprovalMode,
    checks: hone_core::ChecksConfig,
) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/math.ts"), MATH_TS).unwrap();
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    let provider = hone_providers::build_provider(config).unwrap();
    let localizer = Arc::new(FixedLocalizer::default());
    let (handle, events) = hone_core::start_session(SessionConfig {
        root: root.clone(),
        provider,
        model: "session-model".to_string(),
        permissions: Permissions::new(approval, CommandPolicy::default()),
        max_tool_rounds: 25,
        interactive: false,
        audit: false,
        secrets: Vec::new(),
        extra_tools: Vec::new(),
        tool_sources: Vec::new(),
        repo_map: None,
        prompt_profile: profile,
        memory: None,
        context: hone_core::ContextConfig::default(),
        localizer: Some(localizer.clone()),
        guidance,
        roles,
        hooks: hone_core::Hooks::default(),
        checks,
        code_mapper: None,
        commands: Default::default(),
    })
    .unwrap();
    Harness {
        _dir: dir,
        root,
        server,
        handle,
        events,
        localizer,
    }
}

impl Harness {
    pub async fn turn(&mut self, text: &str) -> Vec<Event> {
        self.handle.send(Request::user_message(text));
        let mut seen = Vec::new();
        loop {
            let event = tokio::time::timeout(Duration::from_secs(20), self.events.recv())
                .await
                .expect("no event for 20 s")
                .expect("session alive")
                .event;
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

    pub fn request(&self, index: usize) -> Value {
        self.server.requests()[index].json()
    }
}

pub fn offers_tools(request: &Value) -> bool {
    request["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty())
}

pub fn localized(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ContextLocalized { items, .. } => {
                Some(items.iter().map(|item| item.describe()).collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect()
}

pub fn step(events: &[Event]) -> Option<(Option<TaskKind>, bool)> {
    events.iter().find_map(|event| match event {
        Event::TurnStep { task, guided } => Some((*task, *guided)),
        _ => None,
    })
}

pub const FIX_REQUEST: &str =
    "The add function in src/math.ts subtracts instead of adding. Fix it.";

pub fn adding(extra: &str) -> Reply {
    Reply::new().text(&format!("```ts src/math.ts\n{MATH_TS}{extra}```"))
}

pub fn ended(events: &[Event]) -> Option<TurnEnd> {
    events.iter().find_map(|event| match event {
        Event::TurnCompleted { end, .. } => Some(*end),
        _ => None,
    })
}

/// Checks that run the project's tests.
pub fn test_checks() -> hone_core::ChecksConfig {
    hone_core::ChecksConfig {
        run_tests: true,
        ..hone_core::ChecksConfig::default()
    }
}

/// The guided flow (compact profile, the default guidance and roles) in full-auto, with
/// `checks` after edits.
pub async fn guided_harness(replies: Vec<Reply>, checks: hone_core::ChecksConfig) -> Harness {
    harness_with(
        PromptProfile::Compact,
        Guidance::default(),
        RoleModels::default(),
        replies,
        ApprovalMode::FullAuto,
        checks,
    )
    .await
}

/// A harness whose project has a Python test that fails until `src/math.ts` has `sub`.
pub async fn harness_with_sub_test(replies: Vec<Reply>) -> Harness {
    let h = guided_harness(replies, test_checks()).await;
    std::fs::write(
        h.root.join("test_math.py"),
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        with open('src/math.ts') as f:\n            self.assertTrue('function sub' in f.read())\n",
    )
    .unwrap();
    h
}
