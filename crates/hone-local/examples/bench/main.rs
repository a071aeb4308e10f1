//! Speed and memory of the local engine on a GGUF file.
//!
//! ```text
//! cargo run --release -p hone-local --example bench -- MODEL.gguf [--threads N]
//!     [--prompt TOKENS] [--decode TOKENS] [--prefix TOKENS] [--layout compact|repacked]
//!     [--calls ROUNDS] [--edit TOKENS] [--prompts DIR]
//! ```
//!
//! Reports prompt tokens/s (a `--prompt`-token prompt read from cold), decode tokens/s
//! (`--decode` tokens generated greedily, without and with speculative decoding), the
//! effective decode speed of an edit-shaped answer (a 62-line function from the prompt
//! rewritten with a one-line change, at most `--edit` tokens, without and with speculative
//! decoding, checked identical), the latency of a follow-up turn that adds about 40 tokens
//! to a `--prefix`-token conversation (cold, and with the prefix reused from the key/value
//! cache), the decode speed of a tool call with and without constrained tool calls
//! (`--calls` rounds of each, alternating, with hone's built-in tools offered), and the
//! peak resident memory (VmHWM) against the file size. The last line, `summary:`, repeats
//! the speeds as `key=value` pairs; `--prompts DIR` writes the prompts as rendered text
//! (`prompt.txt`, `decode.txt`, `edit.txt`, `prefix.txt`, `follow_up.txt`) for running
//! the same ones on another engine (`scripts/bench-engine-vs-llamacpp.sh`).
//! candle's matrix kernels take their thread count from `CANDLE_NUM_THREADS` (else the
//! physical cores); `--threads` sizes hone's own pool — set both for a fixed count.
//! The bench allocates through mimalloc, as the `hone` binary does.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use futures::executor::block_on;
use hone_local::{GenerationStats, LocalOptions, LocalProvider, WeightLayout};
use hone_protocol::{ChatRequest, Message, StreamEvent};
use hone_provider_api::Provider;
use tokio_util::sync::CancellationToken;

/// The `hone` binary's allocator (hone-cli's `main.rs`), so the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const FILLER: &str = "fn parse_line(line: &str) -> Option<(String, u32)> {\n    \
    let (name, count) = line.split_once(',')?;\n    \
    Some((name.trim().to_owned(), count.trim().parse().ok()?))\n}\n";

struct Args {
    model: PathBuf,
    threads: Option<usize>,
    prompt: usize,
    decode: u32,
    prefix: usize,
    layout: WeightLayout,
    calls: usize,
    edit: u32,
    prompts: Option<PathBuf>,
}

fn parse_args() -> Args {
    let mut args = Args {
        model: PathBuf::new(),
        threads: None,
        prompt: 512,
        decode: 64,
        prefix: 2000,
        layout: WeightLayout::Compact,
        calls: 2,
        edit: 768,
        prompts: None,
    };
    let mut iter = std::env::args().skip(1);
    while let Some(arg) = iter.next() {
        let mut value = || iter.next().expect("a value after the flag");
        match arg.as_str() {
            "--threads" => args.threads = Some(value().parse().expect("a number")),
            "--prompt" => args.prompt = value().parse().expect("a number"),
            "--decode" => args.decode = value().parse().expect("a number"),
            "--prefix" => args.prefix = value().parse().expect("a number"),
            "--calls" => args.calls = value().parse().expect("a number"),
            "--edit" => args.edit = value().parse().expect("a number"),
            "--prompts" => args.prompts = Some(PathBuf::from(value())),
            "--layout" => {
                args.layout = match value().as_str() {
                    "repacked" => WeightLayout::Repacked,
                    _ => WeightLayout::Compact,
                }
            }
            path => args.model = PathBuf::from(path),
        }
    }
    assert!(args.model.is_file(), "usage: bench MODEL.gguf [flags]");
    args
}

/// A user message of about `tokens` prompt tokens in total (system prompt included).
fn sized_request(provider: &LocalProvider, system: &str, tokens: usize) -> ChatRequest {
    let mut request = ChatRequest::new("", "");
    request.system = Some(system.to_owned());
    let mut body = String::new();
    loop {
        request.messages = vec![Message::user(format!("{body}Summarise this code."))];
        if provider.count_prompt_tokens(&request).unwrap() >= tokens {
            return request;
        }
        body.push_str(FILLER);
    }
}

/// The function the edit-shaped answer rewrites.
const EDIT_SOURCE: &str = include_str!("edit_source.txt");

fn edit_request(max_tokens: u32) -> ChatRequest {
    let mut request = ChatRequest::new(
        "",
        format!(
            "```rust\n{EDIT_SOURCE}```\n\nIn this function, change `report.small_orders += 1;` \
             to `report.small_orders += order.items.len();`. Reply with the whole updated \
             function in one rust code block, nothing else."
        ),
    );
    request.system = Some("You are hone, a coding agent.".into());
    request.max_tokens = Some(max_tokens);
    request
}

/// Writes a request's rendered prompt to `dir/name` (with `--prompts`).
fn save_prompt(args: &Args, provider: &LocalProvider, name: &str, request: &ChatRequest) {
    if let Some(dir) = &args.prompts {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(name), provider.render_prompt(request).unwrap()).unwrap();
    }
}

/// Tokens per second after the first generated token (which comes from the prompt's
/// logits), and the text.
fn decode_rate(provider: &LocalProvider, request: ChatRequest) -> (f64, String, GenerationStats) {
    let (text, stats) = run(provider, request);
    let steps = stats.generated_tokens.saturating_sub(1);
    (
        per_second(steps, stats.decode_time.as_secs_f64()),
        text,
        stats,
    )
}

fn acceptance(stats: &GenerationStats) -> String {
    format!(
        "{} passes for {} tokens, {} of {} drafted tokens accepted",
        stats.decode_passes, stats.generated_tokens, stats.accepted_tokens, stats.drafted_tokens
    )
}

fn run(provider: &LocalProvider, request: ChatRequest) -> (String, GenerationStats) {
    let mut events = provider.stream(request, CancellationToken::new());
    let mut text = String::new();
    block_on(async {
        while let Some(event) = events.next().await {
            match event {
                StreamEvent::TextDelta { text: piece } => text.push_str(&piece),
                StreamEvent::ToolCallEnd {
                    name, arguments, ..
                } => text.push_str(&format!("[call {name} {arguments}]")),
                StreamEvent::Failed { error } => panic!("generation failed: {error}"),
                _ => {}
            }
        }
    });
    (text, provider.last_stats())
}

/// Decode speed of the same tool-calling request with and without the constraint.
fn tool_calls(args: &Args, constrained: &Arc<LocalProvider>) {
    let free = LocalProvider::load(
        &args.model,
        "bench",
        LocalOptions {
            constrained_tools: false,
            ..constrained.options().clone()
        },
    )
    .unwrap();
    let mut request = ChatRequest::new("", "Read the file src/main.rs.");
    request.system = Some(
        "You are hone, a coding agent. Use the tools to act. Reply with the tool call only: \
         no prose, no code fence."
            .into(),
    );
    request.tools = hone_tools::builtin_tools()
        .iter()
        .map(|tool| tool.spec())
        .collect();
    request.max_tokens = Some(args.decode);
    // The first constrained request builds the vocabulary trie and compiles the grammar.
    let started = Instant::now();
    run(constrained, request.clone());
    println!(
        "tool call: first constrained request {:.2} s (includes building the token trie and grammar)",
        started.elapsed().as_secs_f64()
    );
    run(&free, request.clone());
    let mut totals = [(0usize, 0.0f64); 2];
    let mut texts = [String::new(), String::new()];
    let (mut guided_tokens, mut guide_time) = (0, 0.0);
    for _ in 0..args.calls {
        for (index, provider) in [constrained, &free].into_iter().enumerate() {
            let (text, stats) = run(provider, request.clone());
            totals[index].0 += stats.generated_tokens.saturating_sub(1);
            totals[index].1 += stats.decode_time.as_secs_f64();
            texts[index] = text;
            if index == 0 {
                guided_tokens += stats.constrained_tokens;
                guide_time += stats.constraint_time.as_secs_f64();
            }
        }
    }
    let [(on_steps, on_time), (off_steps, off_time)] = totals;
    let (on, off) = (
        per_second(on_steps, on_time),
        per_second(off_steps, off_time),
    );
    for (label, rate, text) in [
        ("constrained", on, &texts[0]),
        ("unconstrained", off, &texts[1]),
    ] {
        println!(
            "tool call decode, {label}: {rate:.1} tok/s  ({:?}…)",
            text.chars().take(100).collect::<String>()
        );
    }
    println!(
        "constraint overhead: {:.1} % per token by throughput; time in the constraint {:.2} ms \
         per constrained token ({guided_tokens} tokens) = {:.1} % of an unconstrained token's {:.1} ms",
        (off / on.max(1e-9) - 1.0) * 100.0,
        guide_time * 1e3 / guided_tokens.max(1) as f64,
        guide_time / guided_tokens.max(1) as f64 * off * 100.0,
        1e3 / off.max(1e-9),
    );
}

fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
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
        .map_or(0, |kb| kb * 1024)
}

/// CPU time (user + system) this process has used so far, in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses): utime is the 12th, stime the 13th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |index: usize| {
        fields
            .get(index)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn per_second(tokens: usize, seconds: f64) -> f64 {
    tokens as f64 / seconds.max(1e-9)
}

fn main() {
    let args = parse_args();
    let options = LocalOptions {
        threads: args.threads,
        temperature: 0.0,
        context_size: 8192,
        weight_layout: args.layout,
        ..LocalOptions::default()
    };
    println!(
        "model {} ({:.2} GB), layout {:?}, hone threads {}, candle kernel threads {}",
        args.model.display(),
        std::fs::metadata(&args.model).unwrap().len() as f64 / 1e9,
        args.layout,
        options.effective_threads(),
        hone_local::kernel_threads(),
    );
    let started = Instant::now();
    let provider: Arc<LocalProvider> = LocalProvider::load(&args.model, "bench", options).unwrap();
    println!("load: {:.2} s", started.elapsed().as_secs_f64());

    // Warm-up: the first forward pass allocates buffers (and repacks weights, if asked).
    let mut warm = ChatRequest::new("", "Hi");
    warm.max_tokens = Some(2);
    run(&provider, warm);

    let mut prompt = sized_request(&provider, "You are a code reviewer.", args.prompt);
    prompt.max_tokens = Some(1);
    save_prompt(&args, &provider, "prompt.txt", &prompt);
    let cpu = cpu_seconds();
    let (_, stats) = run(&provider, prompt);
    let prompt_tps = per_second(stats.computed_tokens, stats.prompt_time.as_secs_f64());
    println!(
        "prompt: {} tokens in {:.2} s = {:.1} tok/s (process CPU {:.1} s)",
        stats.computed_tokens,
        stats.prompt_time.as_secs_f64(),
        per_second(stats.computed_tokens, stats.prompt_time.as_secs_f64()),
        cpu_seconds() - cpu
    );

    let plain = LocalProvider::load(
        &args.model,
        "bench",
        LocalOptions {
            speculative_decoding: false,
            ..provider.options().clone()
        },
    )
    .unwrap();
    let mut decode = ChatRequest::new(
        "",
        "Count from 1 to 500, one number per line, with no other text.",
    );
    decode.max_tokens = Some(args.decode);
    save_prompt(&args, &provider, "decode.txt", &decode);
    let cpu = cpu_seconds();
    let (decode_tps, text, stats) = decode_rate(&plain, decode.clone());
    let cpu = cpu_seconds() - cpu;
    println!(
        "decode: {} tokens in {:.2} s = {decode_tps:.1} tok/s (process CPU {cpu:.1} s)  ({:?}…)",
        stats.generated_tokens,
        stats.decode_time.as_secs_f64(),
        text.chars().take(24).collect::<String>()
    );
    let (rate, _, stats) = decode_rate(&provider, decode);
    println!(
        "decode, speculative: {rate:.1} tok/s ({})",
        acceptance(&stats)
    );

    let edit = edit_request(args.edit);
    save_prompt(&args, &provider, "edit.txt", &edit);
    let (edit_plain_tps, expected, plain_stats) = decode_rate(&plain, edit.clone());
    let (edit_tps, got, stats) = decode_rate(&provider, edit);
    assert_eq!(got, expected, "speculative decoding changed the answer");
    println!(
        "edit-shaped answer ({} tokens, identical): plain {edit_plain_tps:.1} tok/s, \
         speculative {edit_tps:.1} tok/s = {:.2}x ({})",
        plain_stats.generated_tokens,
        edit_tps / edit_plain_tps.max(1e-9),
        acceptance(&stats)
    );

    let system = "You are hone, a coding agent. Follow the project's conventions.";
    let mut first = sized_request(&provider, system, args.prefix);
    first.max_tokens = Some(8);
    let (answer, _) = run(&provider, first.clone());
    let mut follow_up = first.clone();
    follow_up.messages.push(Message::assistant(answer));
    follow_up.messages.push(Message::user(
        "Now rename parse_line to parse_record everywhere, keep the behaviour identical, \
         and explain in one sentence why the name is better for the readers of this module.",
    ));
    follow_up.max_tokens = Some(1);
    let mut prefix = first.clone();
    prefix
        .messages
        .push(follow_up.messages[follow_up.messages.len() - 2].clone());
    save_prompt(&args, &provider, "prefix.txt", &prefix);
    save_prompt(&args, &provider, "follow_up.txt", &follow_up);
    let (_, warm_stats) = run(&provider, follow_up.clone());
    // Cold: something unrelated in between evicts the shared prefix.
    let mut other = ChatRequest::new("", "Unrelated.");
    other.max_tokens = Some(1);
    run(&provider, other);
    let (_, cold_stats) = run(&provider, follow_up);
    let follow_up_seconds = warm_stats.prompt_time.as_secs_f64();
    println!(
        "follow-up turn: {} prompt tokens; cold {:.2} s ({} computed), reused prefix {follow_up_seconds:.2} s ({} computed, {} reused)",
        warm_stats.prompt_tokens,
        cold_stats.prompt_time.as_secs_f64(),
        cold_stats.computed_tokens,
        warm_stats.computed_tokens,
        warm_stats.reused_tokens,
    );
    if args.calls > 0 {
        tool_calls(&args, &provider);
    }

    let size = std::fs::metadata(&args.model).unwrap().len();
    let peak = peak_rss_bytes();
    println!(
        "peak RSS: {:.2} GB = {:.2}x the file",
        peak as f64 / 1e9,
        peak as f64 / size as f64
    );
    println!(
        "summary: prompt_tps={prompt_tps:.2} decode_tps={decode_tps:.2} edit_plain_tps={edit_plain_tps:.2} \
         edit_tps={edit_tps:.2} edit_tokens={} follow_up_tokens={} follow_up_s={follow_up_seconds:.3}",
        plain_stats.generated_tokens, warm_stats.computed_tokens,
    );
}
