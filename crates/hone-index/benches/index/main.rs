//! The code index on a generated corpus of TypeScript and Python, against bare tree-sitter.
//!
//! ```text
//! cargo bench -p hone-index --bench index                       # 1,000,000 lines, RSS at 600,000
//! cargo bench -p hone-index --bench index -- --lines 50000 --rss-lines 0
//! cargo bench -p hone-index --bench index -- --generate /tmp/corpus   # only write the corpus
//! ```
//!
//! For instruction counts (`valgrind --tool=callgrind`, repeatable on a loaded machine), the
//! built bench binary also runs one phase on an existing tree and exits:
//! `--only-parse DIR` (bare tree-sitter parse of the files a cold index would parse),
//! `--only-index DIR` (a cold index into a fresh database), `--only-map DIR` (open a warm
//! index, update, repo map of 4,096 tokens as `hone map --budget 4096` builds it).
//!
//! One run generates the corpus (deterministic, in a temporary directory, removed afterwards;
//! `--lines N` or `HONE_BENCH_LINES`, default 1,000,000) and measures, in order:
//!
//! - bare tree-sitter: `Parser::parse` of every file with its grammar, contents already in
//!   memory, on one thread and on two (the goal: a cold index within 1.3x of the two-thread time);
//! - a cold index with the real [`Indexer`] (scan, read, hash, parse and extract on all cores,
//!   analysis, one SQLite transaction): wall time, files/s, MB/s;
//! - an update with nothing changed (goal: at most 0.3 s);
//! - `update_paths` after each of `--edits N` (default 50) single-file edits that add a
//!   function, p50 and p95 (goal: p95 under 50 ms);
//! - the repo map as `hone exec` builds it from a warm index (goal: under 0.3 s);
//! - peak RSS (`VmHWM`) of a fresh process that cold-indexes a second corpus of `--rss-lines N`
//!   lines (default 600,000; 0 skips it) and builds the map (goal: under 150 MB).
//!
//! The corpus files get an mtime an hour back, as in a checkout nobody is editing; files
//! modified within the last two seconds would be re-hashed by every update (racy-clean rule).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod corpus;
mod rng;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use hone_index::repomap::DEFAULT_BUDGET_TOKENS;
use hone_index::{IndexOptions, Indexer, Language};

const SEED: u64 = 0x686f_6e65;

struct Args {
    lines: usize,
    rss_lines: usize,
    edits: usize,
    /// Internal: index this corpus and print the peak RSS (the child process of the RSS run).
    rss_child: Option<PathBuf>,
    /// Only write the corpus to this directory (e.g. to time `hone index -C DIR` on it).
    generate: Option<PathBuf>,
    /// Only run one phase on an existing tree (for instruction counts).
    only: Option<(Phase, PathBuf)>,
}

/// A phase run alone by `--only-parse`, `--only-index` or `--only-map`.
#[derive(Clone, Copy)]
enum Phase {
    Parse,
    Index,
    Map,
}

fn parse_args() -> Args {
    let mut args = Args {
        lines: std::env::var("HONE_BENCH_LINES")
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or(1_000_000),
        rss_lines: 600_000,
        edits: 50,
        rss_child: None,
        generate: None,
        only: None,
    };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        let mut number = |name: &str| -> usize {
            given
                .next()
                .and_then(|value| value.replace('_', "").parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match arg.as_str() {
            "--lines" => args.lines = number("--lines"),
            "--rss-lines" => args.rss_lines = number("--rss-lines"),
            "--edits" => args.edits = number("--edits").max(1),
            "--rss-child" => args.rss_child = given.next().map(PathBuf::from),
            "--generate" => args.generate = given.next().map(PathBuf::from),
            "--only-parse" => args.only = given.next().map(|dir| (Phase::Parse, dir.into())),
            "--only-index" => args.only = given.next().map(|dir| (Phase::Index, dir.into())),
            "--only-map" => args.only = given.next().map(|dir| (Phase::Map, dir.into())),
            // `cargo bench` passes `--bench`; filters and other harness flags do not apply.
            _ => {}
        }
    }
    args
}

fn main() {
    let args = parse_args();
    if let Some(dir) = &args.rss_child {
        rss_child(dir);
        return;
    }
    if let Some((phase, dir)) = &args.only {
        run_only(*phase, dir);
        return;
    }
    if let Some(dir) = &args.generate {
        std::fs::create_dir_all(dir).unwrap();
        make_corpus(dir, args.lines);
        return;
    }
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "hone-index benchmark: {} lines requested, {workers} cores",
        args.lines
    );
    let dir = tempfile::tempdir().unwrap();
    let corpus = make_corpus(dir.path(), args.lines);
    let contents: Vec<(Language, String)> = corpus
        .files
        .iter()
        .map(|path| {
            let language = Language::from_path(path).unwrap();
            (
                language,
                std::fs::read_to_string(dir.path().join(path)).unwrap(),
            )
        })
        .collect();
    let parse_one = timed(|| bare_parse(&contents, 1));
    let parse_two = timed(|| bare_parse(&contents, 2));
    drop(contents);

    let mut indexer = Indexer::open(dir.path(), &IndexOptions::default()).unwrap();
    let (cold_time, cold) = timed(|| indexer.update(&mut |_| {}).unwrap());
    assert_eq!(
        cold.files_parsed,
        corpus.files.len(),
        "every source file is parsed"
    );
    let started = Instant::now();
    let warm = indexer.update(&mut |_| {}).unwrap();
    let unchanged_time = started.elapsed();
    assert_eq!(warm.files_parsed, 0, "nothing changed");

    let (edits_total, edit_times) =
        timed(|| single_file_edits(&mut indexer, dir.path(), &corpus.files, args.edits));
    drop(indexer);
    let (open_time, map_time, map_chars) = repo_map_from_warm_index(dir.path());
    let database = std::fs::metadata(dir.path().join(".hone/index.db")).map_or(0, |m| m.len());
    let rss = (args.rss_lines > 0).then(|| peak_rss_run(args.rss_lines));

    let mb = corpus.bytes as f64 / 1e6;
    let files = corpus.files.len() as f64;
    println!();
    println!(
        "index: {} files, {} symbols, {} import edges, {} parse errors; database {:.1} MB",
        cold.files_total,
        cold.symbols,
        cold.edges,
        cold.parse_errors,
        database as f64 / 1e6
    );
    println!();
    println!("{:<44} {:>22}  goal", "measurement", "result");
    let row = |name: &str, value: String, goal: &str| println!("{name:<44} {value:>22}  {goal}");
    row(
        "bare tree-sitter parse, 1 thread",
        wall_cpu(parse_one.0),
        "",
    );
    row(
        "bare tree-sitter parse, 2 threads",
        wall_cpu(parse_two.0),
        "",
    );
    row("cold index (Indexer::update)", wall_cpu(cold_time), "");
    row(
        "  throughput",
        format!(
            "{:.0} files/s, {:.1} MB/s",
            files / cold_time.wall.as_secs_f64(),
            mb / cold_time.wall.as_secs_f64()
        ),
        "",
    );
    row(
        "  cold index / bare 2-thread parse, wall",
        ratio(cold_time.wall, parse_two.0.wall),
        "<= 1.3x",
    );
    row(
        "  cold index / bare parse, CPU time",
        ratio(cold_time.cpu, parse_two.0.cpu),
        "",
    );
    row(
        "re-index, nothing changed",
        seconds(unchanged_time),
        "<= 0.3 s",
    );
    row(
        &format!("single-file update p50 / p95 ({} edits)", edit_times.len()),
        format!(
            "{} / {}",
            millis(percentile(&edit_times, 50)),
            millis(percentile(&edit_times, 95))
        ),
        "p95 < 50 ms",
    );
    row(
        "  mean CPU per edit (edit + update_paths)",
        millis(edits_total.cpu / u32::try_from(edit_times.len()).unwrap_or(1)),
        "",
    );
    row(
        "open + update, warm index (hone exec start)",
        seconds(open_time),
        "",
    );
    row(
        &format!("repo map, warm index ({DEFAULT_BUDGET_TOKENS} tokens, {map_chars} chars)"),
        wall_cpu(map_time),
        "< 0.3 s",
    );
    match rss {
        Some((lines, kib)) => row(
            &format!("peak RSS, cold index of {lines} lines"),
            format!("{:.0} MB", kib as f64 / 1024.0),
            "< 150 MB",
        ),
        None => row("peak RSS", "skipped (--rss-lines 0)".to_string(), ""),
    }
}

/// Runs one phase on the tree at `dir` and prints what it did.
fn run_only(phase: Phase, dir: &Path) {
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    match phase {
        Phase::Parse => {
            let scanner =
                hone_index::Scanner::new(dir, &hone_index::ScanOptions::default()).unwrap();
            let contents: Vec<(Language, String)> = scanner
                .scan()
                .files
                .iter()
                .filter(|file| {
                    file.symlink_target.is_none()
                        && file.size <= hone_index::indexer::DEFAULT_MAX_FILE_BYTES
                })
                .filter_map(|file| {
                    let bytes = std::fs::read(dir.join(&file.path)).ok()?;
                    let hone_index::FileKind::Source(language) =
                        hone_index::scan::classify(&file.path, &bytes)
                    else {
                        return None;
                    };
                    Some((language, String::from_utf8(bytes).ok()?))
                })
                .collect();
            let (times, ()) = timed(|| bare_parse(&contents, workers));
            println!("bare parse: {} files, {}", contents.len(), wall_cpu(times));
        }
        Phase::Index => {
            let _ = std::fs::remove_dir_all(dir.join(".hone"));
            let mut indexer = Indexer::open(dir, &IndexOptions::default()).unwrap();
            let (times, report) = timed(|| indexer.update(&mut |_| {}).unwrap());
            println!(
                "cold index: {} files parsed, {} symbols, {}",
                report.files_parsed,
                report.symbols,
                wall_cpu(times)
            );
            println!("  {}", report.timings);
        }
        Phase::Map => {
            let (times, map) = timed(|| {
                let mut indexer = Indexer::open(dir, &IndexOptions::default()).unwrap();
                indexer.update(&mut |_| {}).unwrap();
                let request = hone_index::repomap::RepoMapRequest {
                    budget_tokens: 4096,
                    ..Default::default()
                };
                hone_index::tools::repo_map_for(&indexer, &request).unwrap()
            });
            println!(
                "repo map: {} files shown, {}",
                map.files.len(),
                wall_cpu(times)
            );
        }
    }
}

/// Generates the corpus and ages its files; prints its size.
fn make_corpus(root: &Path, lines: usize) -> corpus::Corpus {
    let started = Instant::now();
    let corpus = corpus::generate(root, lines, SEED).unwrap();
    age_files(root);
    println!(
        "corpus: {} source files ({} TypeScript, {} Python), {} lines, {:.1} MB, generated in {}",
        corpus.files.len(),
        corpus.typescript_files,
        corpus.python_files,
        corpus.lines,
        corpus.bytes as f64 / 1e6,
        seconds(started.elapsed())
    );
    corpus
}

/// Sets every file's mtime an hour back.
fn age_files(root: &Path) {
    let past = SystemTime::now() - Duration::from_secs(3600);
    for entry in ignore::WalkBuilder::new(root)
        .hidden(false)
        .build()
        .flatten()
    {
        if entry.file_type().is_some_and(|kind| kind.is_file()) {
            let file = std::fs::File::options()
                .write(true)
                .open(entry.path())
                .unwrap();
            file.set_modified(past).unwrap();
        }
    }
}

/// Wall-clock and CPU time (all threads of the process, user and system) of one phase.
#[derive(Clone, Copy)]
struct Times {
    wall: Duration,
    cpu: Duration,
}

/// Runs `phase`, measuring it.
fn timed<T>(phase: impl FnOnce() -> T) -> (Times, T) {
    let cpu = process_cpu();
    let started = Instant::now();
    let result = phase();
    let times = Times {
        wall: started.elapsed(),
        cpu: process_cpu().saturating_sub(cpu),
    };
    (times, result)
}

/// CPU time of this process so far (`utime + stime` of `/proc/self/stat`, in 1/100 s).
fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|field| field.parse().ok())
        .collect();
    Duration::from_millis(fields.iter().sum::<u64>() * 10)
}

/// Bare `Parser::parse` of every file on `threads` threads, each with its own parser.
fn bare_parse(contents: &[(Language, String)], threads: usize) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut parser = tree_sitter::Parser::new();
                let mut current = None;
                while let Some((language, text)) =
                    contents.get(next.fetch_add(1, Ordering::Relaxed))
                {
                    if current != Some(*language) {
                        parser
                            .set_language(&hone_index::model::grammar(*language))
                            .unwrap();
                        current = Some(*language);
                    }
                    let tree = parser.parse(text, None).unwrap();
                    std::hint::black_box(tree.root_node().child_count());
                }
            });
        }
    });
}

/// Appends a function to `edits` files spread over the corpus, timing `update_paths` after each.
fn single_file_edits(
    indexer: &mut Indexer,
    root: &Path,
    files: &[String],
    edits: usize,
) -> Vec<Duration> {
    let step = (files.len() / edits).max(1);
    let mut times = Vec::with_capacity(edits);
    for edit in 0..edits {
        let path = &files[(edit * step + edit) % files.len()];
        let mut text = std::fs::read_to_string(root.join(path)).unwrap();
        if path.ends_with(".py") {
            text.push_str(&format!(
                "\n\ndef bench_edit_{edit}(value: int) -> int:\n    return value + {edit}\n"
            ));
        } else {
            text.push_str(&format!("\nexport function benchEdit{edit}(value: number): number {{\n  return value + {edit};\n}}\n"));
        }
        std::fs::write(root.join(path), text).unwrap();
        let started = Instant::now();
        let report = indexer.update_paths(std::slice::from_ref(path)).unwrap();
        times.push(started.elapsed());
        assert_eq!(report.files_parsed, 1, "{path} is re-parsed");
    }
    times
}

/// What `hone exec` does at start on a warm index: open, update (nothing changed), then the
/// repo map focused on a prompt. Returns the open + update time, the map time and its size.
fn repo_map_from_warm_index(root: &Path) -> (Duration, Times, usize) {
    let started = Instant::now();
    let mut indexer = Indexer::open(root, &IndexOptions::default()).unwrap();
    indexer.update(&mut |_| {}).unwrap();
    let open_time = started.elapsed();
    let prompt = "Fix the retry logic in OrderService3 and the payment validator";
    let (map_time, map) =
        timed(|| hone_index::tools::repo_map(&indexer, prompt, DEFAULT_BUDGET_TOKENS).unwrap());
    (open_time, map_time, map.len())
}

/// Generates a corpus of `lines` lines and measures a fresh process indexing it.
fn peak_rss_run(lines: usize) -> (usize, u64) {
    let dir = tempfile::tempdir().unwrap();
    println!("RSS run:");
    let corpus = make_corpus(dir.path(), lines);
    let output = Command::new(std::env::current_exe().unwrap())
        .arg("--rss-child")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let kib = stdout
        .lines()
        .find_map(|line| line.strip_prefix("vm_hwm_kib="))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS reported: {stdout}"));
    (corpus.lines, kib)
}

/// The child of [`peak_rss_run`]: cold index and repo map of `dir`, then `VmHWM`.
fn rss_child(dir: &Path) {
    let mut indexer = Indexer::open(dir, &IndexOptions::default()).unwrap();
    indexer.update(&mut |_| {}).unwrap();
    let map = hone_index::tools::repo_map(&indexer, "", DEFAULT_BUDGET_TOKENS).unwrap();
    std::hint::black_box(map);
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .unwrap_or(0);
    println!("vm_hwm_kib={kib}");
}

fn percentile(times: &[Duration], percent: usize) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

fn wall_cpu(times: Times) -> String {
    format!(
        "{:.2} s (CPU {:.2} s)",
        times.wall.as_secs_f64(),
        times.cpu.as_secs_f64()
    )
}

fn ratio(a: Duration, b: Duration) -> String {
    format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64().max(1e-9))
}

fn seconds(duration: Duration) -> String {
    format!("{:.2} s", duration.as_secs_f64())
}

fn millis(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1e3)
}
