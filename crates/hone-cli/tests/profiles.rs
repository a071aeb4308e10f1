//! End-to-end tests of profiles and roles: the real binary, a mock model server; the request
//! bodies carry the profile's settings.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{hone, stderr};
use hone_testkit::{MockServer, Reply};

/// A user file with a `deep` profile (thinking, temperature, a body field, a system prompt)
/// on LM Studio at `url`, with `extra` appended; returns its directory and path.
fn user_file(url: &str, extra: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        format!(
            "[providers.lmstudio]\nbase_url = \"{url}\"\n\
             [profiles.deep]\nprovider = \"lmstudio\"\nmodel = \"deep-model\"\n\
             thinking = \"high\"\ntemperature = 0.3\n\
             system_prompt = \"Always answer in haiku.\"\n\
             [profiles.deep.body]\nseed = 42\n{extra}"
        ),
    )
    .unwrap();
    let path = path.to_string_lossy().into_owned();
    (dir, path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_sends_the_profile_settings_and_the_thinking_flag_wins() {
    let project = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Done.").openai_chat());
    let (_dir, config) = user_file(&server.url(), "");
    let output = hone(
        project.path(),
        &[("HONE_CONFIG", &config)],
        &["exec", "--profile", "deep", "--thinking", "low", "say hi"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let body = server.last_request().json();
    assert_eq!(body["model"], "deep-model");
    assert_eq!(body["reasoning_effort"], "low", "{body}");
    assert_eq!(body["temperature"], 0.3);
    assert_eq!(body["seed"], 42);
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(system.starts_with("You are hone"), "{system}");
    assert!(
        system.trim_end().ends_with("Always answer in haiku."),
        "{system}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_role_selects_the_profile_for_ask() {
    let project = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Hi.").openai_chat());
    let (_dir, config) = user_file(&server.url(), "[roles]\nchat = \"deep\"\n");
    let output = hone(project.path(), &[("HONE_CONFIG", &config)], &["ask", "hi"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let body = server.last_request().json();
    assert_eq!(body["model"], "deep-model");
    assert_eq!(body["reasoning_effort"], "high", "{body}");
    assert_eq!(body["messages"][0]["content"], "Always answer in haiku.");

    let shown = hone(
        project.path(),
        &[("HONE_CONFIG", &config)],
        &["config", "show"],
    )
    .await;
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("chat = { profile = \"deep\" }"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_thinking_flag_is_refused_with_a_suggestion() {
    let project = tempfile::tempdir().unwrap();
    let output = hone(
        project.path(),
        &[],
        &["ask", "--thinking", "hgih", "--provider", "ollama", "hi"],
    )
    .await;
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("Did you mean `high`?"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_s_disabled_tools_are_neither_offered_nor_run() {
    let project = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("run_command", serde_json::json!({"command": "touch ran"}))
            .openai_chat(),
    );
    server.enqueue(
        Reply::new()
            .text("I cannot run commands here.")
            .openai_chat(),
    );
    let (_dir, config) = user_file(
        &server.url(),
        "[profiles.reader]\nextends = \"deep\"\ndisabled_tools = [\"run_command\", \"serch_files\"]\n",
    );
    let output = hone(
        project.path(),
        &[("HONE_CONFIG", &config)],
        &[
            "exec",
            "--profile",
            "reader",
            "--approval",
            "full-auto",
            "--json",
            "run it",
        ],
    )
    .await;
    assert!(!project.path().join("ran").exists());
    let requests = server.requests();
    let offered: Vec<String> = requests[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(offered.contains(&"read_file".to_string()), "{offered:?}");
    assert!(!offered.contains(&"run_command".to_string()), "{offered:?}");
    let told = requests[1].json().to_string();
    assert!(
        told.contains("the tool `run_command` is turned off"),
        "{told}"
    );
    let said = stderr(&output);
    assert!(
        said.contains("names `serch_files`, which is no tool (did you mean `search_files`?)"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_explore_role_answers_the_explore_tool_from_a_read_only_helper() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("util.py"),
        "def helper(x):\n    return x\n",
    )
    .unwrap();
    let server = MockServer::start().await;
    for reply in [
        Reply::new().tool_call(
            "explore",
            serde_json::json!({"question": "Where is helper defined?"}),
        ),
        Reply::new().tool_call("search_files", serde_json::json!({"pattern": "def helper"})),
        Reply::new().text("helper is defined in util.py at line 1."),
        Reply::new().text("It is in util.py."),
    ] {
        server.enqueue(reply.openai_chat());
    }
    let (_dir, config) = user_file(&server.url(), "[roles]\nexplore = \"explore-model\"\n");
    let output = hone(
        project.path(),
        &[("HONE_CONFIG", &config)],
        &["exec", "--profile", "deep", "where is helper?"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let requests: Vec<serde_json::Value> = server
        .requests()
        .iter()
        .map(|request| request.json())
        .collect();
    assert_eq!(requests.len(), 4);
    let names = |body: &serde_json::Value| -> Vec<String> {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["function"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(names(&requests[0]).contains(&"explore".to_string()));
    // The helper: the explore model, read tools only, the question in its prompt.
    assert_eq!(requests[1]["model"], "explore-model");
    let helper_tools = names(&requests[1]);
    assert!(
        helper_tools.contains(&"search_files".to_string()),
        "{helper_tools:?}"
    );
    for write in ["write_file", "edit_file", "run_command", "explore"] {
        assert!(
            !helper_tools.contains(&write.to_string()),
            "{helper_tools:?}"
        );
    }
    assert!(
        requests[1]
            .to_string()
            .contains("Question: Where is helper defined?")
    );
    // Only the helper's answer reaches the main conversation.
    let back = requests[3].to_string();
    assert!(
        back.contains("[explored with explore-model]\\nhelper is defined in util.py at line 1."),
        "{back}"
    );
    // The helper's own search result stays with the helper.
    assert!(
        requests[2].to_string().contains("util.py:1:"),
        "{}",
        requests[2]
    );
    assert!(!back.contains("util.py:1:"), "{back}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("It is in util.py."));
}
