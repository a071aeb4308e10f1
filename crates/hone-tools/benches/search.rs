//! `search_files` on a large real tree (target: at most 1.3x ripgrep's time on the same tree).
//!
//! Run with `cargo bench -p hone-tools --bench search`; compare with ripgrep with
//! `scripts/bench-search-vs-rg.sh` (hyperfine, same tree, rg flags mirroring the tool).
//!
//! The tree is `$HONE_BENCH_TREE`, or by default the cargo registry sources
//! (`$CARGO_HOME/registry/src/<index>/`, tens of thousands of files on a dev machine); the
//! bench is skipped with a message when there is none. The tool context's root is the tree
//! itself, and each iteration is one whole tool call as the agent makes it (argument
//! parsing, path guard, parallel walk honouring ignore files, search, sorting, rendering).
//! The patterns match fewer lines than the tool's 20,000-match counting limit, so every
//! file is searched; the files are in the page cache after the warm-up.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hone_tools::{Plan, Tool, ToolContext};
use serde_json::{Value, json};

/// The tree to search, if there is one.
fn tree() -> Option<PathBuf> {
    if let Some(tree) = std::env::var_os("HONE_BENCH_TREE") {
        return Some(PathBuf::from(tree)).filter(|tree| tree.is_dir());
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))?;
    let mut indexes: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
        .ok()?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_dir())
        .collect();
    indexes.sort();
    indexes.into_iter().next()
}

/// Files and bytes the tool searches: what the walker yields (ignore files honoured,
/// hidden files included, symlinks skipped).
fn tree_size(tree: &Path) -> (u64, u64) {
    let mut files = 0;
    let mut bytes = 0;
    let walk = ignore::WalkBuilder::new(tree)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .build();
    for entry in walk.flatten() {
        if entry.file_type().is_some_and(|kind| kind.is_file()) {
            files += 1;
            bytes += entry.metadata().map_or(0, |metadata| metadata.len());
        }
    }
    (files, bytes)
}

fn run(tool: &dyn Tool, context: &ToolContext, arguments: &Value) -> String {
    match tool.plan(context, arguments) {
        Ok(Plan::Done(output)) => {
            assert!(!output.is_error, "{}", output.content);
            output.content
        }
        Ok(_) => panic!("search_files did not finish at once"),
        Err(error) => panic!("search_files failed: {}", error.message),
    }
}

fn search(c: &mut Criterion) {
    let Some(tree) = tree() else {
        eprintln!(
            "search bench skipped: no tree to search (set HONE_BENCH_TREE to a large directory; \
             the default, the cargo registry sources, is missing)"
        );
        return;
    };
    let (files, bytes) = tree_size(&tree);
    println!(
        "tree: {} ({files} files, {:.0} MiB searched)",
        tree.display(),
        bytes as f64 / (1024.0 * 1024.0)
    );
    let context = ToolContext::new(&tree).expect("the tree is a readable directory");
    let tool = hone_tools::builtin_tools()
        .into_iter()
        .find(|tool| tool.name() == "search_files")
        .expect("search_files is a built-in tool");

    let mut group = c.benchmark_group("search_files_large_tree");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(3))
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Bytes(bytes));
    for (name, arguments) in [
        (
            "literal_fn_new",
            json!({"pattern": "fn new(", "max_results": 1_000}),
        ),
        (
            "regex_impl_display_for",
            json!({"pattern": r"impl\s+fmt::Display\s+for", "regex": true, "max_results": 1_000}),
        ),
    ] {
        println!(
            "{name}: {}",
            run(tool.as_ref(), &context, &arguments)
                .lines()
                .next()
                .unwrap_or("")
        );
        group.bench_function(name, |b| {
            b.iter(|| run(tool.as_ref(), &context, &arguments).len());
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
