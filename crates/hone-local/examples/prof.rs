#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
use futures::StreamExt;
use hone_local::{LocalOptions, LocalProvider};
use hone_protocol::{ChatRequest, StreamEvent};
use hone_providers::Provider;
use tokio_util::sync::CancellationToken;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let p = LocalProvider::load(std::path::Path::new(&path), "x", LocalOptions { temperature: 0.0, ..LocalOptions::default() }).unwrap();
    let mut r = ChatRequest::new("", "Count from 1 to 500, one number per line.");
    r.max_tokens = Some(2);
    let _: Vec<StreamEvent> = futures::executor::block_on(p.stream(r.clone(), CancellationToken::new()).collect());
    *hone_local::model::PROF.lock().unwrap() = [0.0; 12];
    r.max_tokens = Some(40);
    let t = std::time::Instant::now();
    let _: Vec<StreamEvent> = futures::executor::block_on(p.stream(r, CancellationToken::new()).collect());
    let s = p.last_stats();
    println!("total {:.2}s decode {:.2}s for {} tokens", t.elapsed().as_secs_f64(), s.decode_time.as_secs_f64(), s.generated_tokens);
    let names = ["rmsnorm", "qkv+o matmul", "bias/reshape", "rope", "cache", "attn", "transpose", "gate+up", "silu/mul/add", "down", "output", "to_vec"];
    let prof = *hone_local::model::PROF.lock().unwrap();
    let total: f64 = prof.iter().sum();
    for (n, v) in names.iter().zip(prof) { println!("{n:>14}: {:7.1} ms/token {:5.1}%", v * 1000.0 / s.generated_tokens as f64, v / total * 100.0); }
}
