//! Time to an inline completion from the embedded model through `hone lsp` (in process,
//! over the protocol), and how often its completions are right on real files.
//!
//! ```text
//! cargo run -p hone-lsp --example completion_bench -- --model MODEL.gguf
//!     [--cuts N] [--series N] [--chars N] [--seed N]
//! ```
//!
//! The project is a copy of some of this repository's sources (the Rust of two crates and
//! the Python and JavaScript of the evaluation suite's solutions), so the index and the
//! ring of recent files work as in an editor. Then, with the model's own settings:
//! - **first request**: the first completion after start, loading the model;
//! - **replay** (`--cuts`, default 40): a seeded random file is cut at a seeded random
//!   point inside a line; the rest of that line is taken away (the user is writing it)
//!   and a completion asked for there. Counted: *exact* (the completion is the true text
//!   that followed, at least to the end of the line), *syntax-valid* (tree-sitter finds no
//!   more errors in the file with the completion than in the original file), empty;
//! - **typing** (`--series`, default 6): at such a cut, the true text is typed one
//!   character at a time (`--chars`, default 12), a completion asked after each. Answers
//!   under 60 ms came without the model (the rest of the previous completion, typed
//!   along); the others are listed apart.
//!
//! Latencies are from the request to the response, the server's 75 ms debounce included;
//! p50 and p95 are nearest-rank.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Lsp, position};
use hone_testkit::MockServer;
use serde_json::json;

/// A latency under this came from the previous completion, not the model.
const NO_MODEL: Duration = Duration::from_millis(60);

struct Args {
    model: PathBuf,
    cuts: usize,
    series: usize,
    chars: usize,
    seed: u64,
}

fn parse_args() -> Args {
    let mut args = Args {
        model: PathBuf::new(),
        cuts: 40,
        series: 6,
        chars: 12,
        seed: 7,
    };
    let mut words = std::env::args().skip(1);
    while let Some(word) = words.next() {
        let mut value = || words.next().expect("a value after the flag");
        match word.as_str() {
            "--model" => args.model = PathBuf::from(value()),
            "--cuts" => args.cuts = value().parse().expect("--cuts N"),
            "--series" => args.series = value().parse().expect("--series N"),
            "--chars" => args.chars = value().parse().expect("--chars N"),
            "--seed" => args.seed = value().parse().expect("--seed N"),
            other => panic!("unknown argument {other}"),
        }
    }
    assert!(args.model.is_file(), "--model MODEL.gguf is required");
    args
}

/// SplitMix64: a small seeded generator, so a seed gives the same cuts everywhere.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

/// A source file of the project.
struct Source {
    relative: String,
    text: String,
    language: &'static str,
}

/// The repository's files the replay uses.
fn sources(repo: &Path) -> Vec<Source> {
    let mut found = Vec::new();
    for dir in ["crates/hone-lsp/src", "crates/hone-config/src"] {
        for entry in std::fs::read_dir(repo.join(dir)).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|extension| extension == "rs") {
                found.push(path);
            }
        }
    }
    for task in std::fs::read_dir(repo.join("eval/suite"))
        .unwrap()
        .flatten()
    {
        let solution = task.path().join("solution");
        let mut stack = vec![solution];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path
                    .extension()
                    .is_some_and(|extension| extension == "py" || extension == "js")
                {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let language = match path.extension()?.to_str()? {
                "rs" => "rust",
                "py" => "python",
                _ => "javascript",
            };
            let relative = path.strip_prefix(repo).ok()?.to_str()?.to_string();
            Some(Source {
                relative,
                text,
                language,
            })
        })
        .collect()
}

/// A place to complete: the document with the rest of the cut line taken away.
struct Cut {
    /// Index into the sources.
    source: usize,
    /// The document as the editor has it.
    document: String,
    /// Line and UTF-16 column of the cursor.
    line: u32,
    column: u32,
    /// The true text from the cursor on.
    truth: String,
    /// The true rest of the cursor's line.
    rest_of_line: String,
    /// Byte offset of the cursor.
    offset: usize,
}

/// A seeded cut inside a line of at least 12 characters, with at least `min_rest`
/// characters of it after the cursor.
fn cut(random: &mut Random, sources: &[Source], min_rest: usize) -> Cut {
    loop {
        let source = random.below(sources.len());
        let text = &sources[source].text;
        let lines: Vec<&str> = text.split('\n').collect();
        let line = random.below(lines.len());
        let content = lines[line];
        let indent = content.len() - content.trim_start().len();
        if !content.is_ascii() || content.trim().len() < 12 || content.trim().starts_with("//") {
            continue;
        }
        let room = content.len() - indent - 1 - min_rest.min(content.len() - indent - 1);
        if room == 0 {
            continue;
        }
        let column = indent + 1 + random.below(room);
        let line_start: usize = lines[..line].iter().map(|line| line.len() + 1).sum();
        let offset = line_start + column;
        let line_end = line_start + content.len();
        return Cut {
            source,
            document: format!("{}{}", &text[..offset], &text[line_end..]),
            line: u32::try_from(line).unwrap(),
            column: u32::try_from(column).unwrap(),
            truth: text[offset..].to_string(),
            rest_of_line: content[column..].to_string(),
            offset,
        };
    }
}

/// ERROR and MISSING nodes in `text`'s syntax tree.
fn syntax_errors(language: &str, text: &str) -> usize {
    let grammar: tree_sitter::Language = match language {
        "rust" => tree_sitter_rust::LANGUAGE.into(),
        "python" => tree_sitter_python::LANGUAGE.into(),
        _ => tree_sitter_javascript::LANGUAGE.into(),
    };
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&grammar).unwrap();
    let tree = parser.parse(text, None).unwrap();
    let mut cursor = tree.walk();
    let mut errors = 0;
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            errors += 1;
        }
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return errors;
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

/// The completion `response` proposes (empty when none).
fn proposed(response: &serde_json::Value) -> String {
    response["result"][0]["insertText"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Nearest-rank percentile of sorted `values`.
fn percentile(values: &[Duration], share: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((share * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

fn summary(name: &str, values: &mut [Duration]) -> String {
    values.sort();
    format!(
        "{name}: {} requests, p50 {:.2} s, p95 {:.2} s",
        values.len(),
        percentile(values, 0.5).as_secs_f64(),
        percentile(values, 0.95).as_secs_f64()
    )
}

async fn ask(lsp: &mut Lsp, uri: &str, line: u32, column: u32) -> (String, Duration) {
    let started = Instant::now();
    let response = lsp
        .request("textDocument/inlineCompletion", position(uri, line, column))
        .await;
    assert!(response.get("error").is_none(), "{response}");
    (proposed(&response), started.elapsed())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = parse_args();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize().unwrap();
    let sources = sources(&repo);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    for source in &sources {
        let path = root.join(&source.relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &source.text).unwrap();
    }
    let config = format!(
        "[roles]\ncompletion = {{ model = {:?}, provider = \"local\" }}\n",
        args.model.display().to_string()
    );
    let unused = MockServer::start().await;
    let mut lsp = Lsp::serve(dir, &root, unused, &config).await;
    let mut random = Random(args.seed);
    println!(
        "model {}, {} files, seed {}, build: {}",
        args.model.display(),
        sources.len(),
        args.seed,
        if cfg!(debug_assertions) {
            "dev profile (the engine and its kernels at opt-level 3)"
        } else {
            "release"
        }
    );

    // The first request loads the model.
    let first = cut(&mut random, &sources, 1);
    let uri = lsp.uri(&sources[first.source].relative);
    lsp.open_as(&uri, &first.document, sources[first.source].language)
        .await;
    let (_, latency) = ask(&mut lsp, &uri, first.line, first.column).await;
    println!(
        "first request (loads the model): {:.2} s",
        latency.as_secs_f64()
    );
    lsp.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    )
    .await;

    // The replay.
    let (mut exact, mut valid, mut empty) = (0, 0, 0);
    let mut replay = Vec::new();
    for _ in 0..args.cuts {
        let place = cut(&mut random, &sources, 1);
        let source = &sources[place.source];
        let uri = lsp.uri(&source.relative);
        lsp.open_as(&uri, &place.document, source.language).await;
        let (completion, latency) = ask(&mut lsp, &uri, place.line, place.column).await;
        replay.push(latency);
        let completion = completion.trim_end();
        if completion.is_empty() {
            empty += 1;
        } else {
            let covers_line = completion.len() >= place.rest_of_line.trim_end().len();
            if covers_line && place.truth.starts_with(completion) {
                exact += 1;
            }
            let with = format!(
                "{}{completion}{}",
                &place.document[..place.offset],
                &place.document[place.offset..]
            );
            if syntax_errors(source.language, &with) <= syntax_errors(source.language, &source.text)
            {
                valid += 1;
            }
        }
        lsp.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    }
    let percent = |count: usize| 100.0 * count as f64 / args.cuts.max(1) as f64;
    println!(
        "replay: {} cuts; exact {exact} ({:.0} %), syntax-valid {valid} ({:.0} %), empty {empty}",
        args.cuts,
        percent(exact),
        percent(valid)
    );
    println!("{}", summary("replay (a new place each time)", &mut replay));

    // Typing along a line.
    let mut typing = Vec::new();
    for _ in 0..args.series {
        let place = cut(&mut random, &sources, args.chars);
        let source = &sources[place.source];
        let uri = lsp.uri(&source.relative);
        lsp.open_as(&uri, &place.document, source.language).await;
        ask(&mut lsp, &uri, place.line, place.column).await;
        for (typed, character) in place.rest_of_line.chars().take(args.chars).enumerate() {
            let column = place.column + u32::try_from(typed).unwrap();
            let at = json!({"line": place.line, "character": column});
            lsp.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": typed + 2}, "contentChanges": [
                    {"range": {"start": at, "end": at}, "text": character.to_string()}
                ]}),
            )
            .await;
            let (_, latency) = ask(&mut lsp, &uri, place.line, column + 1).await;
            typing.push(latency);
        }
        lsp.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    }
    let mut asked: Vec<Duration> = typing
        .iter()
        .copied()
        .filter(|latency| *latency >= NO_MODEL)
        .collect();
    let followed = typing.len() - asked.len();
    println!("{}", summary("typing (warm)", &mut typing));
    println!(
        "  of which {followed} answered from the previous completion; {}",
        summary("model asked", &mut asked)
    );
}
