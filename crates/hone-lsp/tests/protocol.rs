//! `hone lsp` over the protocol, in process, against scripted models: completions with
//! index context and the ring of recently edited buffers, cancellation, a failing model, documents the server never saw, huge
//! documents, files outside the project, workspace symbols and a code action's edit.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{GEO, Lsp, MAIN, position};
use hone_testkit::{MockResponse, Reply};
use serde_json::{Value, json};

fn answer(text: &str) -> MockResponse {
    MockResponse::json(200, &json!({"response": text, "done": true}))
}

fn items(response: &Value) -> Vec<String> {
    response["result"]
        .as_array()
        .unwrap_or_else(|| panic!("no items: {response}"))
        .iter()
        .map(|item| item["insertText"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inline_completion_sends_index_context_and_cuts_the_answer() {
    let mut lsp = Lsp::start().await;
    let main = lsp.uri("src/main.rs");
    lsp.open(&main, MAIN).await;
    lsp.fim
        .enqueue(answer("println!(\"{size}\");\n}\n\nfn another() {}\n"));
    let response = lsp.inline(&main, 4, 4).await;
    assert_eq!(items(&response), ["println!(\"{size}\");"], "{response}");
    let sent = lsp.fim.last_request().json();
    let prompt = sent["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("// pub fn area(width: u32, height: u32) -> u32 {  (src/geo.rs:1)"),
        "{prompt}"
    );
    assert!(
        prompt.ends_with("let size = geo::area(3, 4);\n    "),
        "{prompt}"
    );
    assert_eq!(sent["suffix"], "\n}\n");
    assert_eq!(sent["model"], "coder");

    // The same place again: from the cache, the model is not asked.
    let again = lsp.inline(&main, 4, 4).await;
    assert_eq!(items(&again), ["println!(\"{size}\");"]);
    assert_eq!(lsp.fim.request_count(), 1);

    // Unsaved edits are the context.
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 4, "character": 4}, "end": {"line": 4, "character": 4}},
             "text": "let twice = "}
        ]}),
    )
    .await;
    lsp.fim.enqueue(answer("size * 2;"));
    let response = lsp.inline(&main, 4, 16).await;
    assert_eq!(items(&response), ["size * 2;"]);
    let prompt = lsp.fim.last_request().json()["prompt"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(prompt.ends_with("    let twice = "), "{prompt}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recently_edited_buffers_of_the_project_reach_the_prompt() {
    let mut lsp = Lsp::start().await;
    // Another document of the project, edited and not saved.
    let notes = lsp.uri("src/notes.rs");
    lsp.open(&notes, "pub struct Notes;\n").await;
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": notes, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
             "text": "pub fn unsaved_helper(notes: &Notes) -> usize {\n    7\n}\n"}
        ]}),
    )
    .await;
    // A document outside the project: never part of any prompt.
    let outside_dir = lsp.dir.path().join("elsewhere");
    std::fs::create_dir_all(&outside_dir).unwrap();
    let outside = format!(
        "file://{}/secret.rs",
        outside_dir.canonicalize().unwrap().display()
    );
    lsp.open(&outside, "const SECRET_TOKEN: &str = \"hunter2\";\n")
        .await;
    let main = lsp.uri("src/main.rs");
    lsp.open(&main, MAIN).await;
    lsp.fim.enqueue(answer("size;"));
    assert_eq!(items(&lsp.inline(&main, 4, 4).await), ["size;"]);
    let prompt = lsp.fim.last_request().json()["prompt"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        prompt.starts_with(
            "// src/notes.rs:\n// pub struct Notes;\n\
             // pub fn unsaved_helper(notes: &Notes) -> usize {\n"
        ),
        "{prompt}"
    );
    assert!(!prompt.contains("SECRET_TOKEN"), "{prompt}");
    // The document being completed is not given twice.
    assert!(!prompt.contains("// src/main.rs:"), "{prompt}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classic_completion_replaces_the_word_before_the_cursor() {
    let mut lsp = Lsp::start().await;
    let main = lsp.uri("src/main.rs");
    let text = MAIN.replace("    \n}", "    let total = geo::ar\n}");
    lsp.open(&main, &text).await;
    lsp.fim.enqueue(answer("ea(1, 2);"));
    let response = lsp
        .request("textDocument/completion", position(&main, 4, 23))
        .await;
    let item = &response["result"][0];
    assert_eq!(item["label"], "area(1, 2);", "{response}");
    assert_eq!(item["textEdit"]["newText"], "area(1, 2);");
    assert_eq!(
        item["textEdit"]["range"]["start"],
        json!({"line": 4, "character": 21})
    );
    assert_eq!(
        item["textEdit"]["range"]["end"],
        json!({"line": 4, "character": 23})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_and_superseded_requests_end_and_the_server_keeps_serving() {
    let mut lsp = Lsp::start().await;
    let main = lsp.uri("src/main.rs");
    lsp.open(&main, MAIN).await;
    // A model that never answers.
    lsp.fim.enqueue(answer("never").stall_after(0));
    let first = lsp
        .start_request("textDocument/inlineCompletion", position(&main, 4, 4))
        .await;
    while lsp.fim.request_count() == 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    lsp.notify("$/cancelRequest", json!({"id": first})).await;
    let cancelled = lsp.response(first).await;
    assert_eq!(cancelled["error"]["code"], -32800, "{cancelled}");

    // A newer request ends the running one (with no items) and is answered.
    lsp.fim.enqueue(answer("never").stall_after(0));
    let older = lsp
        .start_request("textDocument/inlineCompletion", position(&main, 3, 4))
        .await;
    while lsp.fim.request_count() == 1 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    lsp.fim.enqueue(answer("size + 1;"));
    let newer = lsp
        .start_request("textDocument/inlineCompletion", position(&main, 4, 4))
        .await;
    let superseded = lsp.response(older).await;
    assert_eq!(superseded["result"], json!([]), "{superseded}");
    let answered = lsp.response(newer).await;
    assert_eq!(items(&answered), ["size + 1;"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_model_is_an_error_and_the_next_request_is_answered() {
    let mut lsp = Lsp::start().await;
    let main = lsp.uri("src/main.rs");
    lsp.open(&main, MAIN).await;
    lsp.fim.enqueue(MockResponse::status(500));
    let failed = lsp.inline(&main, 4, 4).await;
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("HTTP 500"), "{failed}");
    lsp.fim.enqueue(answer("size;"));
    assert_eq!(items(&lsp.inline(&main, 4, 4).await), ["size;"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_outside_and_huge_documents() {
    let mut lsp = Lsp::start().await;
    // Never opened: no items, the model is not asked.
    let unknown = lsp.inline(&lsp.uri("src/geo.rs"), 0, 0).await;
    assert_eq!(unknown["result"], json!([]), "{unknown}");
    // Outside the project: nothing is read from it or sent anywhere.
    let outside_dir = lsp.dir.path().join("elsewhere");
    std::fs::create_dir_all(&outside_dir).unwrap();
    let outside = format!(
        "file://{}/secret.rs",
        outside_dir.canonicalize().unwrap().display()
    );
    lsp.open(&outside, "fn secret() {\n    \n}\n").await;
    assert_eq!(lsp.inline(&outside, 1, 4).await["result"], json!([]));
    let actions = lsp
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": outside}, "range": {"start": {"line": 0, "character": 0},
                   "end": {"line": 1, "character": 0}}, "context": {"diagnostics": []}}),
        )
        .await;
    assert_eq!(actions["result"], json!([]), "{actions}");
    assert_eq!(lsp.fim.request_count(), 0);

    // A huge document: the prompt stays within the budget.
    let huge = format!(
        "{}fn last() {{\n    \n}}\n{}",
        "// filler line\n".repeat(200_000),
        "// tail\n".repeat(50_000)
    );
    let main = lsp.uri("src/main.rs");
    lsp.open(&main, &huge).await;
    lsp.fim.enqueue(answer("1"));
    let response = lsp.inline(&main, 200_001, 4).await;
    assert_eq!(items(&response), ["1"], "{response}");
    let sent = lsp.fim.last_request().json();
    assert!(sent["prompt"].as_str().unwrap().len() < 10_000);
    assert!(sent["suffix"].as_str().unwrap().len() <= 2_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_symbols_come_from_the_index() {
    let mut lsp = Lsp::start().await;
    let response = lsp
        .request("workspace/symbol", json!({"query": "are"}))
        .await;
    let symbols = response["result"].as_array().unwrap();
    let area = symbols
        .iter()
        .find(|symbol| symbol["name"] == "area")
        .unwrap();
    assert_eq!(area["kind"], 12, "{area}");
    assert_eq!(area["location"]["uri"], lsp.uri("src/geo.rs"));
    assert_eq!(area["location"]["range"]["start"]["line"], 0);
}

/// The code actions offered on the whole of `GEO` (open at `uri`), without diagnostics.
async fn geo_actions(lsp: &mut Lsp, uri: &str) -> Value {
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 1}});
    lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": []}}),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_action_runs_one_turn_and_applies_its_edit_to_the_buffer() {
    let mut lsp = Lsp::start().await;
    let geo = lsp.uri("src/geo.rs");
    lsp.open(&geo, GEO).await;
    let actions = geo_actions(&mut lsp, &geo).await;
    let titles: Vec<&str> = actions["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|action| action["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["hone: refactor…", "hone: explain", "hone: add tests"]
    );
    let command = actions["result"][0]["command"].clone();

    for reply in [
        Reply::new().tool_call("read_file", json!({"path": "src/geo.rs"})),
        Reply::new().tool_call(
            "edit_file",
            json!({"path": "src/geo.rs", "old_text": "    width * height", "new_text": "    width.saturating_mul(height)"}),
        ),
        Reply::new().text("Multiplication saturates now."),
    ] {
        lsp.chat.enqueue(reply.openai_chat());
    }
    let mut arguments = command["arguments"].clone();
    arguments[0]["instruction"] = json!("Make the multiplication saturate.");
    let result = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": command["command"], "arguments": arguments}),
        )
        .await;
    assert_eq!(
        result["result"]["changed"],
        json!(["src/geo.rs"]),
        "{result}"
    );
    assert_eq!(result["result"]["applied"], true);
    let on_disk = std::fs::read_to_string(lsp.root.join("src/geo.rs")).unwrap();
    assert!(
        on_disk.contains("width.saturating_mul(height)"),
        "{on_disk}"
    );
    let edit = &lsp.applied[0]["edit"]["documentChanges"][0];
    assert_eq!(edit["textDocument"]["uri"], geo);
    assert_eq!(edit["textDocument"]["version"], 1);
    assert_eq!(
        edit["edits"][0]["newText"],
        "    width.saturating_mul(height)\n"
    );
    assert_eq!(edit["edits"][0]["range"]["start"]["line"], 1);
    let first = lsp.chat.requests()[0].json();
    let asked = first["messages"].to_string();
    assert!(
        asked.contains("Make the multiplication saturate."),
        "{asked}"
    );
    assert!(asked.contains("lines 1-3 of src/geo.rs"), "{asked}");
    lsp.wait_for_notification("window/showMessage", |params| {
        params["message"]
            .as_str()
            .unwrap_or("")
            .contains("saturates")
    })
    .await;

    // An unsaved buffer is not changed behind the editor's back.
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": geo, "version": 2}, "contentChanges": [{"text": "// edited\n"}]}),
    )
    .await;
    let refused = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "hone.refactor", "arguments": arguments}),
        )
        .await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("save src/geo.rs first"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_refactor_runs_on_the_refactor_role_s_model() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/geo.rs"), GEO).unwrap();
    let fim = hone_testkit::MockServer::start().await;
    let config =
        common::fim_config(&fim).replace("[roles]\n", "[roles]\nrefactor = \"refactor-model\"\n");
    let mut lsp = Lsp::serve(dir, &root, fim, &config).await;
    let geo = lsp.uri("src/geo.rs");
    lsp.open(&geo, GEO).await;
    let actions = geo_actions(&mut lsp, &geo).await;
    let command = actions["result"][0]["command"].clone();
    lsp.chat
        .enqueue(Reply::new().text("Nothing needs to change.").openai_chat());
    let mut arguments = command["arguments"].clone();
    arguments[0]["instruction"] = json!("Tidy it.");
    lsp.request(
        "workspace/executeCommand",
        json!({"command": command["command"], "arguments": arguments}),
    )
    .await;
    assert_eq!(lsp.chat.last_request().json()["model"], "refactor-model");
}
