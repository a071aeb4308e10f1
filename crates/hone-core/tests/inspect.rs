//! What a face shows of a running session besides the conversation, against a mock model:
//! the context inspector (its parts add up to the request the model then receives, and an
//! inspection changes nothing) and the project (files, one file read-only, the repo map).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use hone_api::{ContextPart, ContextPartKind, Event, EventFrame, Request};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{ContextConfig, SessionConfig, SessionHandle};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_testkit::{MockServer, Reply};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

const MAP: &str = "notes.txt\nsrc/lib.rs\n  pub fn run()";

async fn session(
    root: &std::path::Path,
    server: &MockServer,
) -> (SessionHandle, UnboundedReceiver<EventFrame>) {
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    config.network.max_retries = 0;
    let provider = hone_providers::build_provider(config).unwrap();
    hone_core::start_session(SessionConfig {
        root: root.to_path_buf(),
        provider,
        model: String::new(),
        permissions: Permissions::new(ApprovalMode::AutoEdit, CommandPolicy::default()),
        max_tool_rounds: 25,
        interactive: false,
        audit: false,
        secrets: Vec::new(),
        commands: Default::default(),
        extra_tools: Vec::new(),
        tool_sources: Vec::new(),
        repo_map: Some(MAP.to_string()),
        prompt_profile: hone_core::PromptProfile::Full,
        memory: None,
        context: ContextConfig {
            window: Some(200_000),
            ..ContextConfig::default()
        },
        checks: hone_core::ChecksConfig::disabled(),
        code_mapper: None,
        localizer: None,
        guidance: hone_core::Guidance::default(),
        roles: hone_core::RoleModels::default(),
        hooks: hone_core::Hooks::default(),
    })
    .unwrap()
}

async fn until(
    events: &mut UnboundedReceiver<EventFrame>,
    done: impl Fn(&Event) -> bool,
) -> Vec<Event> {
    let mut seen = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("no event for 20 s")
            .expect("session alive")
            .event;
        let stop = done(&event);
        seen.push(event);
        if stop {
            return seen;
        }
    }
}

fn turn_ended(event: &Event) -> bool {
    matches!(
        event,
        Event::TurnCompleted { .. } | Event::TurnFailed { .. } | Event::TurnCancelled { .. }
    )
}

async fn inspect(
    handle: &SessionHandle,
    events: &mut UnboundedReceiver<EventFrame>,
    message: Option<&str>,
) -> (Vec<ContextPart>, u64) {
    handle.send(Request::InspectContext {
        message: message.map(str::to_string),
    });
    let seen = until(events, |event| {
        matches!(event, Event::ContextInspected { .. })
    })
    .await;
    match seen.into_iter().last() {
        Some(Event::ContextInspected { parts, tokens, .. }) => (parts, tokens),
        other => panic!("{other:?}"),
    }
}

fn used(events: &[Event]) -> Vec<u64> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ContextUsage { used, .. } => Some(*used),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_parts_add_up_to_the_request_the_model_receives_next() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\nbeta\ngamma\n".repeat(30)).unwrap();
    let server = MockServer::start().await;
    for reply in [
        Reply::new().tool_call("read_file", json!({"path": "notes.txt"})),
        Reply::new().text("The notes list three words."),
        Reply::new().text("You are welcome."),
    ] {
        // No usage reported: each `context.usage` is hone's estimate of the request sent.
        server.enqueue(reply.openai_chat());
    }
    let (handle, mut events) = session(&root, &server).await;
    handle.send(Request::user_message("read the notes"));
    until(&mut events, turn_ended).await;
    handle.send(Request::TrackFiles {
        patterns: vec!["notes.txt".into()],
        summary: false,
    });
    until(&mut events, |event| {
        matches!(event, Event::FilesTracked { .. })
    })
    .await;

    // As the conversation stands: the pinned file waits for the next message.
    let (parts, tokens) = inspect(&handle, &mut events, None).await;
    assert_eq!(parts.iter().map(|part| part.tokens).sum::<u64>(), tokens);
    let kinds: Vec<ContextPartKind> = parts.iter().map(|part| part.kind).collect();
    assert_eq!(
        kinds,
        [
            ContextPartKind::System,
            ContextPartKind::RepoMap,
            ContextPartKind::Tools,
            ContextPartKind::History,
            ContextPartKind::ToolResults,
        ]
    );

    // With the next message: the pinned file goes with it, and the model receives exactly
    // that request (an inspection twice gives the same answer: nothing was consumed).
    let (parts, tokens) = inspect(&handle, &mut events, Some("thanks")).await;
    assert_eq!(
        inspect(&handle, &mut events, Some("thanks")).await.1,
        tokens
    );
    assert_eq!(parts.iter().map(|part| part.tokens).sum::<u64>(), tokens);
    let pinned = parts
        .iter()
        .find(|part| part.kind == ContextPartKind::Tracked)
        .unwrap();
    assert_eq!(pinned.path.as_deref(), Some("notes.txt"));
    handle.send(Request::user_message("thanks"));
    let turn = until(&mut events, turn_ended).await;
    assert_eq!(used(&turn), [tokens]);
    let sent = server.requests()[2].json().to_string();
    assert!(
        sent.contains("tracked_file path=\\\"notes.txt\\\""),
        "{sent}"
    );
}

async fn answer(
    handle: &SessionHandle,
    events: &mut UnboundedReceiver<EventFrame>,
    request: Request,
) -> Event {
    handle.send(request);
    until(events, |event| {
        matches!(
            event,
            Event::FileContent { .. }
                | Event::ProjectFiles { .. }
                | Event::RepoMap { .. }
                | Event::Error { .. }
        )
    })
    .await
    .pop()
    .unwrap()
}

#[tokio::test]
async fn project_files_are_listed_and_shown_through_the_path_checks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn run() {}\n").unwrap();
    std::fs::write(root.join(".env"), "API_KEY=abc\n").unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/out.txt"), "x\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "outside\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("link.txt")).unwrap();
    let server = MockServer::start().await;
    let (handle, mut events) = session(&root, &server).await;

    let listed = answer(&handle, &mut events, Request::ProjectFiles { limit: None }).await;
    let Event::ProjectFiles { files, truncated } = listed else {
        panic!("{listed:?}")
    };
    assert!(files.contains(&"src/lib.rs".to_string()), "{files:?}");
    assert!(
        !files.iter().any(|file| file.starts_with("build/")),
        "{files:?}"
    );
    assert!(!truncated);
    let one = answer(
        &handle,
        &mut events,
        Request::ProjectFiles { limit: Some(1) },
    )
    .await;
    assert!(
        matches!(one, Event::ProjectFiles { ref files, truncated: true } if files.len() == 1),
        "{one:?}"
    );

    let shown = answer(
        &handle,
        &mut events,
        Request::ReadFile {
            path: "src/lib.rs".into(),
        },
    )
    .await;
    assert_eq!(
        shown,
        Event::FileContent {
            path: "src/lib.rs".into(),
            content: "pub fn run() {}\n".into(),
            outline: Vec::new(),
        }
    );
    for (path, why) in [
        (".env", "may hold secrets"),
        ("../etc/passwd", "cannot show"),
        ("link.txt", "cannot show"),
        ("missing.rs", "cannot show"),
    ] {
        let refused = answer(
            &handle,
            &mut events,
            Request::ReadFile { path: path.into() },
        )
        .await;
        match refused {
            Event::Error { error } => {
                assert!(error.message.contains(why), "{path}: {}", error.message)
            }
            other => panic!("{path}: {other:?}"),
        }
    }
    let map = answer(&handle, &mut events, Request::RepoMap).await;
    assert_eq!(
        map,
        Event::RepoMap {
            map: Some(MAP.to_string())
        }
    );
}
