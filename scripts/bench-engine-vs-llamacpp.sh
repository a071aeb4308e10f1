#!/usr/bin/env bash
# Runs hone's embedded engine and llama.cpp side by side on the same GGUF, the same prompts
# and the same thread count, and prints hone's speed as a ratio of llama.cpp's (targets:
# prompt ≥ 1.0x, decode ≥ 1.0x, edit-shaped effective decode ≥ 2x, follow-up ≤ 1 s).
# Not part of CI: it builds hone's bench in release mode and needs python3 with venv.
#
#   scripts/bench-engine-vs-llamacpp.sh MODEL.gguf [THREADS]
#
# llama.cpp is llama-cpp-python, installed (built from source, several minutes, once) into a
# venv cached under ~/.cache/hone/bench-llamacpp-venv (HONE_BENCH_VENV overrides), with
# portable AVX2 kernels (a native build dies with SIGILL on some virtual machines).
# hone's `bench` example runs first and writes the prompts it used, rendered with the
# model's chat template; llama.cpp then tokenizes the same text and runs, greedily:
#   - prompt: the ~512-token prompt read from cold (tokens/s);
#   - decode: 64 tokens after a short prompt (tokens/s; hone without speculation);
#   - edit: a 62-line function from the prompt rewritten with a one-line change (hone's
#     effective tokens/s with speculative decoding from the context, which gives the same
#     tokens as plain decoding, against llama.cpp's plain decoding);
#   - follow-up: the new tokens of a turn added to a ~2,000-token conversation whose
#     keys/values are cached (seconds).
# THREADS (default 2) is given to both: hone's pool and candle's kernels
# (CANDLE_NUM_THREADS), llama.cpp's n_threads and n_threads_batch. The load average is
# printed: on a busy machine, compare the ratios rather than the speeds.
set -euo pipefail
cd "$(dirname "$0")/.."

model="${1:-}"
threads="${2:-2}"
if [[ -z "$model" || ! -f "$model" ]]; then
    echo "usage: $0 MODEL.gguf [THREADS]" >&2
    exit 1
fi
model="$(realpath "$model")"
venv="${HONE_BENCH_VENV:-$HOME/.cache/hone/bench-llamacpp-venv}"
if ! "$venv/bin/python" -c 'import llama_cpp, numpy' 2>/dev/null; then
    echo "installing llama-cpp-python into $venv (builds llama.cpp: several minutes)" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF" \
        "$venv/bin/pip" install --quiet llama-cpp-python numpy
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cargo build --quiet --release -p hone-local --example bench
target="${CARGO_TARGET_DIR:-target}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== hone"
CANDLE_NUM_THREADS="$threads" "$target/release/examples/bench" "$model" \
    --threads "$threads" --calls 0 --prompts "$work" | tee "$work/hone.txt"

echo "== llama.cpp ($("$venv/bin/python" -c 'import llama_cpp; print(llama_cpp.__version__)'))"
"$venv/bin/python" - "$model" "$threads" "$work" <<'PY'
import sys
import time

import numpy as np
from llama_cpp import Llama

model, threads, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
summary = {}
for line in open(f"{work}/hone.txt", encoding="utf-8"):
    if line.startswith("summary:"):
        for pair in line.split()[1:]:
            key, value = pair.split("=")
            summary[key] = float(value)

llm = Llama(
    model_path=model,
    n_ctx=8192,
    n_batch=512,
    n_threads=threads,
    n_threads_batch=threads,
    verbose=False,
)


def tokens(name):
    text = open(f"{work}/{name}", encoding="utf-8").read()
    return llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)


stops = {llm.token_eos()} | {
    t for text in ("<|im_end|>", "<|endoftext|>")
    for t in llm.tokenize(text.encode(), add_bos=False, special=True)[:1]
}


def next_token():
    """The greedy choice after the last token evaluated."""
    logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
    return int(np.argmax(logits))


def generate(prompt, most, stop=True):
    """Greedy decoding after `prompt`: (tokens/s after the first token, tokens)."""
    llm.reset()
    llm.eval(prompt)
    started = time.perf_counter()
    token = next_token()
    generated = 0
    while True:
        if stop and token in stops:
            break
        generated += 1
        if generated >= most:
            break
        llm.eval([token])
        token = next_token()
    elapsed = time.perf_counter() - started
    return max(generated - 1, 0) / elapsed, generated


# Warm-up.
llm.eval(tokens("decode.txt")[:8])

prompt = tokens("prompt.txt")
llm.reset()
started = time.perf_counter()
llm.eval(prompt)
prompt_tps = len(prompt) / (time.perf_counter() - started)
print(f"prompt: {len(prompt)} tokens = {prompt_tps:.1f} tok/s")

decode_tps, count = generate(tokens("decode.txt"), 64, stop=False)
print(f"decode: {count} tokens = {decode_tps:.1f} tok/s")

# The same limit as hone's bench (--edit).
edit_tps, count = generate(tokens("edit.txt"), 768)
print(f"edit-shaped answer: {count} tokens = {edit_tps:.1f} tok/s (plain)")

follow_up = tokens("follow_up.txt")
new = int(summary.get("follow_up_tokens", 42))
llm.reset()
llm.eval(follow_up[:-new])
started = time.perf_counter()
llm.eval(follow_up[-new:])
follow_up_s = time.perf_counter() - started
print(f"follow-up turn: {new} new tokens after {len(follow_up) - new} cached = {follow_up_s:.2f} s")

print()
print(f"{'':28} {'hone':>10} {'llama.cpp':>10} {'ratio':>7}  target")
rows = [
    ("prompt (tok/s)", summary["prompt_tps"], prompt_tps, "≥ 1.0x"),
    ("decode (tok/s)", summary["decode_tps"], decode_tps, "≥ 1.0x"),
    ("edit, plain hone (tok/s)", summary["edit_plain_tps"], edit_tps, ""),
    ("edit, effective (tok/s)", summary["edit_tps"], edit_tps, "≥ 2.0x"),
]
for label, hone, llama, target in rows:
    print(f"{label:28} {hone:10.1f} {llama:10.1f} {hone / llama:6.2f}x  {target}")
print(
    f"{'follow-up (s)':28} {summary['follow_up_s']:10.2f} {follow_up_s:10.2f} "
    f"{follow_up_s / summary['follow_up_s']:6.2f}x  ≤ 1 s (ratio: llama.cpp time / hone time)"
)
if count != int(summary["edit_tokens"]):
    print(f"note: the edit answers differ in length ({int(summary['edit_tokens'])} tokens in hone)")
# One machine-readable line (collected by scripts/bench.sh).
print(
    f"RESULT engine prompt_hone={summary['prompt_tps']:.1f} prompt_llamacpp={prompt_tps:.1f} "
    f"decode_hone={summary['decode_tps']:.1f} decode_llamacpp={decode_tps:.1f} "
    f"edit_hone={summary['edit_tps']:.1f} edit_llamacpp={edit_tps:.1f} "
    f"follow_up_hone_s={summary['follow_up_s']:.2f} follow_up_llamacpp_s={follow_up_s:.2f}"
)
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
