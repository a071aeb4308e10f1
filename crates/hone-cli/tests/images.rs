//! End-to-end tests of attached images: `--image` and `@shot.png` reach the model in each
//! API's shape; a model that does not see, or a file that is not a picture, is refused
//! before anything is sent.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{hone, stderr};
use hone_testkit::{MockServer, Reply};
use serde_json::Value;

/// A 1×1 PNG.
const PIXEL_PNG: [u8; 70] = [
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0,
    0, 0, 31, 21, 196, 137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 218, 99, 100, 96, 248, 95, 15, 0, 2,
    135, 1, 128, 235, 71, 186, 146, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// A project holding `logo.png`, and a screenshot outside it.
fn project() -> (tempfile::TempDir, tempfile::TempDir) {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("logo.png"), PIXEL_PNG).unwrap();
    std::fs::write(project.path().join("notes.png"), "not a picture").unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("shot.png"), PIXEL_PNG).unwrap();
    (project, elsewhere)
}

fn shot(elsewhere: &tempfile::TempDir) -> String {
    elsewhere.path().join("shot.png").display().to_string()
}

/// The content parts of the last user message of an OpenAI chat body.
fn user_parts(body: &Value) -> Vec<Value> {
    let messages = body["messages"].as_array().unwrap();
    let user = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    user["content"].as_array().cloned().unwrap_or_default()
}

async fn exec(
    root: &Path,
    server: &MockServer,
    model: &str,
    extra: &[&str],
) -> std::process::Output {
    let url = server.url();
    let mut args = vec![
        "exec",
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--model",
        model,
    ];
    args.extend_from_slice(extra);
    hone(root, &[("OPENAI_API_KEY", "test-key-abcdef123456")], &args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_flag_and_a_mentioned_image_reach_the_model_as_image_parts() {
    let (project, elsewhere) = project();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("A red dot.").openai_chat());
    let shot = shot(&elsewhere);
    let output = exec(
        project.path(),
        &server,
        "gpt-4o",
        &["--image", &shot, "what is in these pictures? @logo.png"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("attached logo.png (image)"),
        "{}",
        stderr(&output)
    );
    let parts = user_parts(&server.last_request().json());
    let images: Vec<&str> = parts
        .iter()
        .filter(|part| part["type"] == "image_url")
        .map(|part| part["image_url"]["url"].as_str().unwrap())
        .collect();
    assert_eq!(images.len(), 2, "{parts:?}");
    assert!(
        images
            .iter()
            .all(|url| url.starts_with("data:image/png;base64,iVBORw0KGgo"))
    );
    let text = parts[0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("what is in these pictures? @logo.png"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_sends_an_image_in_anthropic_s_shape() {
    let (project, elsewhere) = project();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("A dot.").anthropic());
    let url = server.url();
    let shot = shot(&elsewhere);
    let output = hone(
        project.path(),
        &[("ANTHROPIC_API_KEY", "test-key-abcdef123456")],
        &[
            "ask",
            "--provider",
            "anthropic",
            "--base-url",
            &url,
            "--model",
            "claude-sonnet-4-5",
            "--image",
            &shot,
            "what is this?",
        ],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let body = server.last_request().json();
    let content = body["messages"][0]["content"].as_array().unwrap();
    let image = content
        .iter()
        .find(|block| block["type"] == "image")
        .unwrap();
    assert_eq!(image["source"]["type"], "base64");
    assert_eq!(image["source"]["media_type"], "image/png");
    assert!(
        image["source"]["data"]
            .as_str()
            .unwrap()
            .starts_with("iVBORw0KGgo")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_does_not_see_is_refused_before_anything_is_sent() {
    let (project, elsewhere) = project();
    let server = MockServer::start().await;
    let shot = shot(&elsewhere);
    let output = exec(
        project.path(),
        &server,
        "gpt-3.5-turbo",
        &["--image", &shot, "what is this?"],
    )
    .await;
    assert!(!output.status.success());
    assert!(
        stderr(&output)
            .contains("gpt-3.5-turbo does not accept images, so the image attached cannot be sent"),
        "{}",
        stderr(&output)
    );
    assert_eq!(server.request_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_is_not_a_picture_is_refused_and_a_mentioned_one_is_reported() {
    let (project, _elsewhere) = project();
    let server = MockServer::start().await;
    let output = exec(
        project.path(),
        &server,
        "gpt-4o",
        &["--image", "notes.png", "what is this?"],
    )
    .await;
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("--image: notes.png is not a PNG, JPEG, WebP or GIF image"),
        "{}",
        stderr(&output)
    );
    let missing = exec(
        project.path(),
        &server,
        "gpt-4o",
        &["--image", "gone.png", "hi"],
    )
    .await;
    assert!(
        stderr(&missing).contains("cannot read the image gone.png"),
        "{}",
        stderr(&missing)
    );
    assert_eq!(server.request_count(), 0);
}
