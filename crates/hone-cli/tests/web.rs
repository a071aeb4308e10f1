//! `hone web` in a real browser: Debian's Chromium driven by `playwright-core` against a
//! scripted model. A prompt and its streamed answer (in a second tab too), an edit approved
//! in the diff dialog, a write denied with a reason, undo, the context inspector against the
//! request the model then received, the project tree with a file and its outline, a new
//! session, the first resumed from the list, a reload, the logs panel (redacted), the status
//! bar on one line at 1200 px, a malformed socket message answered with an error, and
//! requests without the token, for another host or from another origin refused.
//! `playwright-core` comes from `HONE_MCP_NODE_MODULES` (`.ci/run` installs it beside the
//! MCP peers, and `chromium` with apt); without them the test prints a note and passes,
//! unless `HONE_REQUIRE_MCP_PEERS=1`. Screenshots go to `HONE_WEB_SCREENSHOTS` when set.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::{Value, json};

const CHROMIUM: &str = "/usr/bin/chromium";
const KEY: &str = "test-key-abcdef123456";
/// A value shaped like a secret (a GitHub token), in a file the model reads.
const TOKEN_SHAPED: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";

/// The `node_modules` holding playwright-core, or `None` (with a note) when it or
/// Chromium is not installed.
fn playwright() -> Option<PathBuf> {
    let required = std::env::var("HONE_REQUIRE_MCP_PEERS").as_deref() == Ok("1");
    let modules = std::env::var_os("HONE_MCP_NODE_MODULES").map(PathBuf::from);
    let ready = modules
        .as_ref()
        .filter(|dir| dir.join("playwright-core").is_dir() && Path::new(CHROMIUM).is_file());
    match ready {
        Some(dir) => Some(dir.clone()),
        None if required => panic!(
            "HONE_REQUIRE_MCP_PEERS=1 but playwright-core (in HONE_MCP_NODE_MODULES) or \
             {CHROMIUM} is missing"
        ),
        None => {
            eprintln!(
                "note: skipped: set HONE_MCP_NODE_MODULES to a node_modules with playwright-core \
                 and install chromium"
            );
            None
        }
    }
}

#[tokio::test]
async fn the_web_ui_in_chromium_drives_a_session() {
    let Some(modules) = playwright() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".home")).unwrap();
    std::fs::write(root.join("greet.txt"), "hello\n").unwrap();
    std::fs::write(root.join("util.py"), "def greet_all():\n    return 1\n").unwrap();
    std::fs::write(root.join(".env"), "API_TOKEN=do-not-show-me\n").unwrap();
    std::fs::write(
        root.join("config.txt"),
        format!("key = {KEY}\ngithub = {TOKEN_SHAPED}\n"),
    )
    .unwrap();
    common::commit_all(&root);
    let shots = match std::env::var_os("HONE_WEB_SCREENSHOTS") {
        Some(shots) => PathBuf::from(shots),
        None => root.join(".home/screenshots"),
    };
    std::fs::create_dir_all(&shots).unwrap();

    let model = MockServer::start().await;
    for reply in [
        Reply::new()
            .text(
                "Hello **world**, in code:\n\n```rust\nfn main() { println!(\"hi\"); }\n```\n\n\
                 <img src=x onerror=\"window.pwned=1\"> [click](javascript:window.pwned=2) \
                 [docs](https://example.com/a?b=1)\n",
            )
            .text_pieces(6)
            .usage(1840, 32),
        Reply::new()
            .tool_call(
                "edit_file",
                json!({"path": "greet.txt", "old_text": "hello", "new_text": "hello, world"}),
            )
            .usage(1910, 41),
        Reply::new()
            .text("Done: greet.txt greets the world.")
            .usage(2050, 12),
        Reply::new().tool_call(
            "write_file",
            json!({"path": "notes.txt", "content": "never written\n"}),
        ),
        Reply::new().text("Understood, no notes."),
    ] {
        model.enqueue(reply.openai_chat());
    }
    // A request the provider rejects: the page offers retry, skip or abort; retry succeeds.
    model.enqueue(MockResponse::json(
        400,
        &json!({"error": {"message": "the request was malformed", "type": "invalid_request_error"}}),
    ));
    model.enqueue(Reply::new().text("Second time lucky.").openai_chat());
    // An answer that stalls after its first words: Esc cancels the turn.
    model.enqueue(
        Reply::new()
            .text("Thinking about it at length")
            .text_pieces(9)
            .openai_chat()
            .stall_after(5),
    );
    // The answer after the context inspector: no usage reported, so the page's "last
    // request" is hone's estimate of the request the model received.
    model.enqueue(Reply::new().text("You are welcome.").openai_chat());
    // A file proposed, then approved in an edited version.
    model.enqueue(
        Reply::new()
            .tool_call(
                "write_file",
                json!({"path": "poem.txt", "content": "roses are red\n"}),
            )
            .openai_chat(),
    );
    model.enqueue(Reply::new().text("Written.").openai_chat());
    // A file holding the API key and a token-shaped value read: the logs panel shows it
    // redacted.
    model.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "config.txt"}))
            .openai_chat(),
    );
    model.enqueue(Reply::new().text("Read it.").openai_chat());

    let mut server = common::command(&root)
        .env("HONE_DATA_DIR", root.join(".home/data"))
        .env("OPENAI_API_KEY", KEY)
        .args(["--provider", "openai", "--base-url", &model.url(), "web"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("hone web: ")
        .unwrap_or_else(|| panic!("first line: {first}"))
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let script = root.join(".home/e2e.js");
    std::fs::write(&script, include_str!("web/e2e.js")).unwrap();
    let mut command = std::process::Command::new("node");
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("NODE_PATH", &modules)
        .current_dir(&root)
        .arg(&script)
        .arg(&url)
        .arg(&root)
        .arg(&shots);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();

    // With the token, but for another Host or from another site: refused.
    let address = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap()
        .to_string();
    let token = url.split("?token=").nth(1).unwrap().to_string();
    let with_token = format!("/?token={token}");
    let foreign_host = status_with(&address, &with_token, "Host: attacker.example\r\n");
    let foreign_origin = status_with(
        &address,
        &with_token,
        &format!("Host: {address}\r\nOrigin: http://attacker.example\r\n"),
    );
    let own = status_with(&address, &with_token, &format!("Host: {address}\r\n"));

    // SIGTERM stops the server cleanly (the sessions are stored first).
    let stopped = std::process::Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let status = server.wait().unwrap();
    let mut server_stderr = String::new();
    std::io::Read::read_to_string(&mut server.stderr.take().unwrap(), &mut server_stderr).unwrap();

    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "browser: {stderr}\nserver: {server_stderr}"
    );
    let seen: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("stdout: {}", String::from_utf8_lossy(&output.stdout)));
    eprintln!("browser steps (ms since start): {}", seen["times"]);
    assert!(
        status.success(),
        "hone web exited with {status}: {server_stderr}"
    );
    assert!(seen.get("pageErrors").is_none(), "{}", seen["pageErrors"]);

    // The token left the address bar for a cookie; the page names the session.
    let address = seen["address"].as_str().unwrap();
    assert!(!address.contains("token"), "{address}");
    assert!(address.contains("/#session="), "{address}");

    // The answer was streamed and rendered as Markdown, in both tabs.
    assert!(
        seen["answer"][0]
            .as_str()
            .unwrap()
            .starts_with("Hello world, in code:"),
        "{seen}"
    );
    assert_eq!(seen["bold"], json!(["world"]));
    assert_eq!(seen["code"], json!(["fn main() { println!(\"hi\"); }"]));
    assert_eq!(seen["secondTab"], seen["answer"]);
    // Markup in the answer is text: no element from it, no script ran, only http(s) links.
    let answer = seen["answer"][0].as_str().unwrap();
    assert!(
        answer.contains("<img src=x onerror=\"window.pwned=1\">"),
        "{answer}"
    );
    assert_eq!(seen["images"], 0);
    assert_eq!(seen["pwned"], Value::Null);
    assert_eq!(seen["links"], json!(["https://example.com/a?b=1"]));
    assert_eq!(seen["status"]["provider"], "openai");
    assert_eq!(seen["status"]["approval"], "ask");
    assert_eq!(seen["status"]["tokens"], "1840 in · 32 out");

    // The approved edit: its diff in the dialog, the file changed, the other tab's dialog gone.
    assert_eq!(seen["approvalTitle"], "Approve edit_file?");
    assert_eq!(seen["diffRemoved"], json!(["-hello"]));
    assert_eq!(seen["diffAdded"], json!(["+hello, world"]));
    assert_eq!(seen["greetingAfterApprove"], "hello, world\n");
    assert_eq!(seen["secondDialogClosed"], true);
    // Side by side: the old line on the left, the new on the right, in one row.
    let side = seen["sideBySide"].to_string();
    assert!(side.contains("\"-hello\",\"+hello, world\""), "{side}");

    // The proposed file approved in the version the user edited.
    assert_eq!(seen["editProposed"], "roses are red\n");
    assert_eq!(seen["poem"], "violets are blue\n");

    // The denied write: no file, and the model was told why.
    assert_eq!(seen["notesExist"], false);
    let denied = seen["denied"].to_string();
    assert!(denied.contains("not today, thanks"), "{denied}");
    let told = model
        .requests()
        .iter()
        .any(|request| request.json().to_string().contains("not today, thanks"));
    assert!(told, "the model never heard the reason");

    // The failed request: its choices offered, retry answered.
    assert_eq!(seen["choices"], json!(["retry", "skip", "abort"]));
    assert!(
        seen["choiceMessage"]
            .as_str()
            .unwrap()
            .contains("malformed"),
        "{seen}"
    );
    assert!(
        seen["later"].to_string().contains("Second time lucky."),
        "{seen}"
    );

    // The context panel: the pinned file with its tokens, the last request's size, a symbol.
    let pinned = seen["pinned"].to_string();
    assert!(
        pinned.contains("greet.txt") && pinned.contains("tokens"),
        "{pinned}"
    );
    assert!(
        seen["usage"]
            .as_str()
            .unwrap()
            .starts_with("Last request: "),
        "{seen}"
    );
    assert!(
        seen["symbols"].to_string().contains("greet_all"),
        "{}",
        seen["symbols"]
    );

    // The inspector, with the message being typed: its parts add up to its total, and the
    // request the model then received (the pinned file and the message in it) is the one
    // it described: hone's estimate of that request is the same number.
    let parts = seen["inspected"].as_array().unwrap();
    let total = seen["inspectedTotal"].as_u64().unwrap();
    let sum: u64 = parts
        .iter()
        .map(|part| part["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, total, "{parts:?}");
    let kinds: Vec<&str> = parts
        .iter()
        .map(|part| part["kind"].as_str().unwrap())
        .collect();
    for kind in ["system", "tools", "tracked", "history", "tool_results"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    assert!(
        parts.iter().any(|part| part["label"] == "greet.txt"),
        "{parts:?}"
    );
    let received = model
        .requests()
        .iter()
        .map(|request| request.json().to_string())
        .find(|body| body.contains("thanks\"}],"))
        .unwrap();
    assert!(
        received.contains("tracked_file path=\\\"greet.txt\\\""),
        "{received}"
    );
    let after = seen["usageAfter"].as_str().unwrap();
    let last = format!("Last request: {total} tokens");
    assert!(
        after == last || after.starts_with(&format!("{last} of ")),
        "inspected {total}, then: {after}"
    );

    // The project: the tree, util.py read-only with its outline, .env refused, the map.
    let tree = seen["tree"].to_string();
    assert!(
        tree.contains("\"util.py\"") && tree.contains("\"greet.txt\""),
        "{tree}"
    );
    assert_eq!(seen["viewerPath"], "util.py");
    assert_eq!(
        seen["viewerLines"],
        json!(["1def greet_all():", "2    return 1"])
    );
    assert_eq!(seen["outline"], json!(["greet_all"]));
    assert_eq!(seen["outlineLine"], "1");
    assert_eq!(seen["secretOpen"], false);
    assert!(
        seen["map"].as_str().unwrap().contains("util.py"),
        "{}",
        seen["map"]
    );

    // Esc cancelled the stalled turn after its first words.
    assert!(
        seen["partial"].as_str().unwrap().starts_with("Thinking"),
        "{seen}"
    );
    assert!(
        seen["cancelled"].as_str().unwrap().starts_with("cancelled"),
        "{seen}"
    );

    // The model switched from the status bar; the window shown is the new model's at once.
    assert_eq!(seen["switchedModel"], "gpt-5-mini");
    let (before, after) = (
        seen["usageBeforeSwitch"].as_str().unwrap(),
        seen["usageAfterSwitch"].as_str().unwrap(),
    );
    assert!(after.contains(" of 400000 "), "{before} → {after}");
    assert_ne!(before, after);
    assert!(
        seen["windowAfterSwitch"]
            .as_str()
            .unwrap()
            .starts_with("Context window: 400000 tokens"),
        "{}",
        seen["windowAfterSwitch"]
    );
    assert_ne!(seen["windowBeforeSwitch"], seen["windowAfterSwitch"]);
    // At 1200 px the bar is one line.
    let centres: Vec<f64> = seen["barCentres"]
        .as_array()
        .unwrap()
        .iter()
        .map(|centre| centre.as_f64().unwrap())
        .collect();
    let (low, high) = centres.iter().fold((f64::MAX, f64::MIN), |(low, high), c| {
        (low.min(*c), high.max(*c))
    });
    assert!(centres.len() > 10 && high - low < 4.0, "{centres:?}");
    assert_eq!(seen["statusClipped"], json!([]), "cut off at 1200 px");
    assert!(seen["barHeight"].as_f64().unwrap() < 60.0, "{seen}");

    // The logs panel: the tool calls, one more after the turn that read config.txt, its
    // JSON redacted; the model requests and responses.
    let before: Vec<&str> = seen["toolLogBefore"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        before.contains(&"edit_file") && !before.contains(&"read_file"),
        "{before:?}"
    );
    let after = seen["toolLogAfter"].as_array().unwrap();
    assert_eq!(after.len(), before.len() + 1, "{after:?}");
    assert_eq!(after.last().unwrap(), "read_file");
    let line = seen["toolLogLine"].as_str().unwrap();
    assert!(
        line.contains("read_file") && line.contains("config.txt"),
        "{line}"
    );
    let logged = seen["toolLogJson"].as_str().unwrap();
    assert!(
        logged.contains("\"tool\": \"read_file\"") && logged.contains("[REDACTED]"),
        "{logged}"
    );
    let comms = seen["commsLog"].as_array().unwrap();
    assert!(
        comms.iter().any(|entry| entry["label"] == "request"
            && entry["summary"]
                .as_str()
                .unwrap()
                .starts_with("gpt-5-mini · ")),
        "{comms:?}"
    );
    assert!(
        comms.iter().any(|entry| entry["label"] == "response"
            && entry["summary"]
                .as_str()
                .unwrap()
                .contains("calls read_file")),
        "{comms:?}"
    );
    let request = seen["commsLogJson"].as_str().unwrap();
    assert!(
        request.contains("\"direction\": \"request\"") && request.contains("\"messages\""),
        "{request}"
    );
    let panel = seen["logsPanelText"].to_string();
    for secret in [KEY, TOKEN_SHAPED, "do-not-show-me"] {
        assert!(
            !panel.contains(secret) && !logged.contains(secret),
            "{secret} shown"
        );
        assert!(!request.contains(secret), "{secret} shown");
    }

    // A malformed message on the page's socket: an error line, and the socket goes on.
    assert!(
        seen["badMessage"].as_str().unwrap().starts_with("error: "),
        "{}",
        seen["badMessage"]
    );
    assert_eq!(seen["afterBadMessage"], "settings");

    // Undo, a new session, the first one resumed from the list, a reload.
    assert_eq!(seen["greetingAfterUndo"], "hello\n");
    assert_eq!(seen["emptyAfterNew"], 0);
    assert!(
        seen["listed"].to_string().contains("say hello"),
        "{}",
        seen["listed"]
    );
    let resumed = seen["resumed"].to_string();
    assert!(
        resumed.contains("say hello") && resumed.contains("Hello world"),
        "{resumed}"
    );
    assert!(address.ends_with(seen["reloadedHash"].as_str().unwrap()));
    assert_eq!(seen["reloaded"], seen["resumed"]);
    assert_eq!(seen["theme"], "dark");

    // Refusals.
    assert_eq!(seen["wrongToken"], 401);
    assert_eq!(seen["noToken"], 401);
    assert_eq!(seen["noTokenScript"], 401);
    assert_eq!(seen["foreignSocket"], "closed 1006");
    assert_eq!(foreign_host, "403");
    assert_eq!(foreign_origin, "403");
    assert_eq!(own, "303");

    // Nothing secret reached the page.
    let frames = seen["frames"].to_string();
    assert!(frames.contains("session.started"), "no frames recorded");
    assert!(!frames.contains(KEY), "the API key reached the page");
    assert!(
        !frames.contains(TOKEN_SHAPED),
        "a token-shaped value reached the page"
    );
    assert!(
        !frames.contains("do-not-show-me"),
        "a secret file reached the page"
    );
    for shot in [
        "approval.png",
        "approval-side.png",
        "conversation.png",
        "context.png",
        "project.png",
        "sessions-dark.png",
        "logs.png",
        "logs-comms.png",
        "status-1200.png",
    ] {
        assert!(shots.join(shot).is_file(), "{shot}");
    }
}

#[test]
fn another_host_is_served_with_a_warning_and_still_needs_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".home")).unwrap();
    let mut server = common::command(&root)
        .env("HONE_DATA_DIR", root.join(".home/data"))
        .args([
            "--provider",
            "ollama",
            "web",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let mut warning = String::new();
    BufReader::new(server.stderr.take().unwrap())
        .read_line(&mut warning)
        .unwrap();
    let url = first.trim().strip_prefix("hone web: ").unwrap().to_string();
    let base = url.split("/?token=").next().unwrap().to_string();
    let address = base.strip_prefix("http://").unwrap().to_string();
    let token = url.split("/?token=").nth(1).unwrap().to_string();
    let without = status_of(&address, "/");
    let with = status_of(&address, &format!("/?token={token}"));
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(
        warning.contains("warning: listening on 0.0.0.0"),
        "{warning}"
    );
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert_eq!(without, "401");
    assert_eq!(with, "303");
}

/// The status code of `GET path` on `address` (`HOST:PORT`), over a plain socket.
fn status_of(address: &str, path: &str) -> String {
    status_with(address, path, &format!("Host: {address}\r\n"))
}

/// The status code of `GET path` on `address` with `headers` (each ending in CRLF).
fn status_with(address: &str, path: &str, headers: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response.split_whitespace().nth(1).unwrap().to_string()
}
