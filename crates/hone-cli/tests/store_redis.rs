//! `hone index` on a Redis store shared by two clones of one project (a real `redis-server`
//! started for the test; skipped with a note when it is not installed, unless
//! `HONE_REQUIRE_REDIS=1`), and a store that cannot be reached.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use hone_store_redis::test_server::RedisServer;
use serde_json::Value;

/// One clone of the project: three Python modules.
fn clone_of_project(root: &Path) {
    for (name, text) in [
        (
            "app.py",
            "from util import helper\n\ndef main():\n    return helper(1)\n",
        ),
        ("util.py", "def helper(x):\n    return x\n"),
        ("models.py", "class User:\n    pass\n"),
    ] {
        std::fs::write(root.join(name), text).unwrap();
    }
}

/// `hone ARGS` in `root` with the user configuration `config`.
fn hone(root: &Path, config: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("HONE_CONFIG", config)
        .current_dir(root)
        .args(args);
    command
}

fn summary(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "hone failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn two_clones_share_one_index_and_the_second_parses_nothing() {
    let data = tempfile::tempdir().unwrap();
    let Some(server) = RedisServer::start(data.path()) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[store]\nbackend = \"redis\"\nurl = \"{}\"\nnamespace = \"team\"\n",
            server.url()
        ),
    )
    .unwrap();
    let (first, second) = (work.path().join("first"), work.path().join("second"));
    for root in [&first, &second] {
        std::fs::create_dir_all(root).unwrap();
        clone_of_project(root);
    }

    let built = summary(
        &hone(&first, &config, &["index", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(built["parsed"], 3);
    let shared = summary(
        &hone(&second, &config, &["index", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(shared["parsed"], 0, "{shared}");
    assert_eq!(shared["files"], 3);
    // Nothing was written into the clones: the index lives on the server.
    assert!(!second.join(".hone/index.db").exists());

    // Two processes at once on a fresh namespace: both finish, and each sees the one index.
    let fresh = work.path().join("fresh.toml");
    std::fs::write(
        &fresh,
        format!(
            "[store]\nbackend = \"redis\"\nurl = \"{}\"\nnamespace = \"fresh\"\n",
            server.url()
        ),
    )
    .unwrap();
    std::fs::write(second.join("extra.py"), "def extra():\n    pass\n").unwrap();
    let spawn = |root: &Path| {
        hone(root, &fresh, &["index", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (one, two) = (spawn(&first), spawn(&second));
    let (one, two) = (
        one.wait_with_output().unwrap(),
        two.wait_with_output().unwrap(),
    );
    let (one, two) = (summary(&one), summary(&two));
    let parsed = one["parsed"].as_u64().unwrap() + two["parsed"].as_u64().unwrap();
    assert!((4..=7).contains(&parsed), "{one} {two}");
    let status = summary(
        &hone(&first, &fresh, &["index", "status", "--json"])
            .output()
            .unwrap(),
    );
    assert!(
        status["files"] == 3 || status["files"] == 4,
        "one clone's view or the other's: {status}"
    );
    assert_eq!(status["by_language"]["python"], status["files"]);
}

#[test]
fn an_unreachable_store_is_a_network_error_naming_the_url() {
    let work = tempfile::tempdir().unwrap();
    clone_of_project(work.path());
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("redis://127.0.0.1:{closed}/0");
    let config = work.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let output = hone(work.path(), &config, &["index", "--store", &url])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains("cannot reach the index store"), "{stderr}");
    assert!(stderr.contains(&url), "{stderr}");
    // A password in the URL is refused before anything is sent.
    let output = hone(
        work.path(),
        &config,
        &["index", "--store", "redis://u:hunter2@127.0.0.1:1/0"],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("password_env"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_falls_back_to_the_local_index_when_allowed() {
    let work = tempfile::tempdir().unwrap();
    clone_of_project(work.path());
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let model = hone_testkit::MockServer::start().await;
    model.enqueue(hone_testkit::Reply::new().text("hello").openai_chat());
    let config = work.path().join("config.toml");
    let store = format!(
        "[store]\nbackend = \"redis\"\nurl = \"redis://127.0.0.1:{closed}/0\"\nfallback = \"sqlite\"\n"
    );
    std::fs::write(&config, &store).unwrap();
    let url = model.url();
    let mut command = hone(
        work.path(),
        &config,
        &["exec", "--provider", "openai", "--base-url", &url, "hi"],
    );
    command
        .env("OPENAI_API_KEY", "test-key-abcdef123456")
        .env("HONE_DATA_DIR", work.path().join(".home/data"))
        .stdin(Stdio::null());
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("this session uses the local SQLite index instead"),
        "{stderr}"
    );
    // The model saw the local index's repo map.
    let body = model.last_request().json().to_string();
    assert!(body.contains("util.py"), "{body}");
    // `fallback` takes only `sqlite`.
    std::fs::write(
        &config,
        store.replace("fallback = \"sqlite\"", "fallback = \"memory\""),
    )
    .unwrap();
    let output = hone(work.path(), &config, &["config", "show"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("the only fallback is `sqlite`"), "{stderr}");
}
