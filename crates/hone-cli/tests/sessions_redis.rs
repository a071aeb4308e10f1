//! Sessions on a Redis store shared by two clones of one project on two "machines" (each
//! its own data directory), against a real `redis-server` started for the test (skipped
//! with a note when it is not installed, unless `HONE_REQUIRE_REDIS=1`): a session made by
//! `hone exec` in one clone is listed and resumed in the other; a server gone mid-session
//! leaves the store whole.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use hone_store_redis::test_server::RedisServer;
use hone_testkit::{MockServer, Reply};
use serde_json::Value;

/// One clone of the project on its own machine: the project and a data directory.
struct Clone {
    root: PathBuf,
    data: PathBuf,
}

fn clone_in(dir: &Path, name: &str) -> Clone {
    let root = dir.join(name).join("app");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\nbeta\n").unwrap();
    Clone {
        root: root.canonicalize().unwrap(),
        data: dir.join(name).join("data"),
    }
}

impl Clone {
    fn command(&self, config: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root.join(".home"))
            .env("HONE_CONFIG", config)
            .env("HONE_DATA_DIR", &self.data)
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .args(args);
        command
    }

    async fn run(&self, config: &Path, args: &[&str]) -> Output {
        let mut command = self.command(config, args);
        tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
            .await
            .unwrap()
    }

    async fn exec(
        &self,
        config: &Path,
        server: &MockServer,
        extra: &[&str],
        prompt: &str,
    ) -> Output {
        let url = server.url();
        let mut args = vec![
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            "--approval",
            "full-auto",
        ];
        args.extend_from_slice(extra);
        args.push(prompt);
        self.run(config, &args).await
    }

    async fn sessions(&self, config: &Path, all: bool) -> Vec<Value> {
        let mut args = vec!["sessions", "list", "--json"];
        if all {
            args.push("--all");
        }
        let output = self.run(config, &args).await;
        assert!(output.status.success(), "{}", stderr(&output));
        serde_json::from_slice(&output.stdout).unwrap()
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn session_id(output: &Output) -> String {
    stderr(output)
        .lines()
        .find_map(|line| line.strip_prefix("session: "))
        .unwrap_or_else(|| panic!("no session line in: {}", stderr(output)))
        .trim()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_of_one_clone_is_listed_and_resumed_in_another() {
    let redis_data = tempfile::tempdir().unwrap();
    let Some(mut redis) = RedisServer::start(redis_data.path()) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[store]\nbackend = \"redis\"\nurl = \"{}\"\nnamespace = \"team\"\n",
            redis.url()
        ),
    )
    .unwrap();
    let (first, second) = (clone_in(work.path(), "one"), clone_in(work.path(), "two"));
    let server = MockServer::start().await;
    for text in ["answer one", "answer two"] {
        server.enqueue(Reply::new().text(text).usage(10, 2).openai_chat());
    }

    let made = first.exec(&config, &server, &[], "first task").await;
    assert!(made.status.success(), "{}", stderr(&made));
    let id = session_id(&made);

    // The other machine lists it, with or without --all (the namespace is the project).
    for all in [false, true] {
        let listed = second.sessions(&config, all).await;
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(listed[0]["id"], id.as_str());
        assert_eq!(listed[0]["title"], "first task");
        assert_eq!(listed[0]["project"], "team");
    }

    let resumed = second
        .exec(&config, &server, &["--resume", &id[..10]], "second task")
        .await;
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert_eq!(session_id(&resumed), id);
    let sent = server.requests()[1].json().to_string();
    for needle in ["first task", "answer one", "second task"] {
        assert!(sent.contains(needle), "{needle} missing from {sent}");
    }
    let listed = first.sessions(&config, false).await;
    assert_eq!(listed[0]["messages"], 4);
    // Neither machine keeps sessions of its own.
    for clone in [&first, &second] {
        assert!(!clone.data.join("sessions.db").exists());
    }

    // The server gone: a clear network error naming it (exit 5), nothing half-written.
    redis.kill();
    let failed = second
        .exec(&config, &server, &["--resume", "last"], "third task")
        .await;
    assert_eq!(failed.status.code(), Some(5), "{}", stderr(&failed));
    assert!(
        stderr(&failed).contains(&redis.url()),
        "{}",
        stderr(&failed)
    );
    redis.restart();
    let listed = second.sessions(&config, true).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["messages"], 4);

    // With `fallback = "sqlite"` the session runs on the local store, with a warning.
    redis.kill();
    std::fs::write(
        &config,
        format!(
            "[store]\nbackend = \"redis\"\nurl = \"{}\"\nnamespace = \"team\"\nfallback = \"sqlite\"\n",
            redis.url()
        ),
    )
    .unwrap();
    server.enqueue(Reply::new().text("answer local").usage(10, 2).openai_chat());
    let local = second.exec(&config, &server, &[], "local task").await;
    assert!(local.status.success(), "{}", stderr(&local));
    assert!(
        stderr(&local).contains("local SQLite store"),
        "{}",
        stderr(&local)
    );
    assert!(second.data.join("sessions.db").exists());
}
