#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
//! Throwaway: prints what a model answers to a tool prompt.
use futures::StreamExt;
use hone_local::{LocalOptions, LocalProvider};
use hone_protocol::{ChatRequest, StreamEvent, ToolSpec};
use hone_providers::Provider;
use tokio_util::sync::CancellationToken;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let p = LocalProvider::load(
        std::path::Path::new(&args[1]),
        "x",
        LocalOptions {
            temperature: 0.0,
            max_output_tokens: 64,
            ..LocalOptions::default()
        },
    )
    .unwrap();
    let mut r = ChatRequest::new("", args[3].clone());
    r.system = Some(args[2].clone());
    r.tools.push(ToolSpec { name: "read_file".into(), description: "Read a file of the project and return its contents.".into(), parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string", "description": "Path relative to the project root"}}, "required": ["path"]}) });
    let t = std::time::Instant::now();
    let events: Vec<StreamEvent> =
        futures::executor::block_on(p.stream(r, CancellationToken::new()).collect());
    for e in events {
        println!("{e:?}");
    }
    println!("{:?} {:.1}s", p.last_stats(), t.elapsed().as_secs_f64());
}
