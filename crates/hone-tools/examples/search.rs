//! Runs the `search_files` tool once, as the agent would, and prints its header line
//! (the match and file counts), so it can be timed against ripgrep on the same tree.
//!
//! ```text
//! cargo build --release -p hone-tools --example search
//! target/release/examples/search TREE PATTERN [--regex] [--case-sensitive] [--max-results N]
//! ```
//!
//! `scripts/bench-search-vs-rg.sh` times it against `rg` with hyperfine.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::ExitCode;

use hone_tools::{Plan, ToolContext};
use serde_json::json;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(root), Some(pattern)) = (args.next(), args.next()) else {
        eprintln!(
            "usage: search TREE PATTERN [--regex] [--case-sensitive] [--max-results N] [--print]"
        );
        return ExitCode::from(2);
    };
    let mut regex = false;
    let mut case_sensitive = false;
    let mut max_results = 1_000;
    let mut print = false;
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--regex" => regex = true,
            "--case-sensitive" => case_sensitive = true,
            "--print" => print = true,
            "--max-results" => {
                max_results = args
                    .next()
                    .and_then(|n| n.parse::<u64>().ok())
                    .expect("--max-results needs a number");
            }
            other => {
                eprintln!("unknown flag {other}");
                return ExitCode::from(2);
            }
        }
    }
    let context = ToolContext::new(&PathBuf::from(&root)).expect("a readable directory");
    let tool = hone_tools::builtin_tools()
        .into_iter()
        .find(|tool| tool.name() == "search_files")
        .expect("search_files is a built-in tool");
    let arguments = json!({
        "pattern": pattern,
        "regex": regex,
        "case_sensitive": case_sensitive,
        "max_results": max_results,
    });
    match tool.plan(&context, &arguments) {
        Ok(Plan::Done(output)) => {
            if print {
                print!("{}", output.content);
            } else {
                println!("{}", output.content.lines().next().unwrap_or(""));
            }
            ExitCode::SUCCESS
        }
        Ok(_) => {
            eprintln!("search_files did not finish at once");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("{}", error.message);
            ExitCode::FAILURE
        }
    }
}
