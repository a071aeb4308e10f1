#!/usr/bin/env bash
# Times what the copy-on-write view adds to a sandboxed command (goal: at most 30 ms per
# command), and a small crate's `cargo test` with `target/` passed through the view or not.
# Not part of CI: it needs user namespaces, overlayfs and cargo.
#
#   scripts/bench-sandbox-overlay.sh [HONE_BIN] [RUNS]
#
# HONE_BIN defaults to target/release/hone, RUNS to 50. Each figure is the mean of RUNS
# runs (`date +%s%N` around a shell loop); the view's private directory is made afresh for
# every run in both loops, so the difference is the view itself: the overlay mount, the
# passthrough bind and hiding the directory. Reading an empty upper layer afterwards (what
# hone does after every command) is not included; it is a handful of system calls.
# `cargo test` runs on a generated crate (one module, ten tests, no dependencies): cold
# (no `target/`) and warm (nothing changed), each through `hone sandbox` without a view,
# with the view and `target/` passed through, and with the view keeping `target/` in the
# upper layer (hone would then copy it into the project afterwards: timed separately).
# Warm figures are the mean of five runs.
set -euo pipefail
cd "$(dirname "$0")/.."

hone="$(realpath "${1:-target/release/hone}")"
runs="${2:-50}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }
fresh_view() {
    rm -rf "$work/view"
    mkdir -p "$work/view/upper" "$work/view/work"
    chmod 700 "$work/view"
}
mean_ms() { echo "scale=1; ($2 - $1) / $3 / 1000000" | bc; }

mkdir -p "$work/project"
cd "$work/project"
if ! "$hone" sandbox --overlay-dir "$(fresh_view; echo "$work/view")" -- true 2>/dev/null; then
    echo "no copy-on-write view here: $("$hone" sandbox --overlay-dir "$work/view" -- true 2>&1)" >&2
    exit 1
fi

start=$(now)
for _ in $(seq "$runs"); do fresh_view; "$hone" sandbox --exec -- true; done
plain=$(now)
for _ in $(seq "$runs"); do
    fresh_view
    "$hone" sandbox --exec --overlay-dir "$work/view" --passthrough target -- true
done
viewed=$(now)
echo "per command, no view:   $(mean_ms "$start" "$plain" "$runs") ms"
echo "per command, with view: $(mean_ms "$plain" "$viewed" "$runs") ms"

cargo init -q --lib --name bench_crate "$work/crate"
cd "$work/crate"
{
    echo "pub fn add(a: u64, b: u64) -> u64 { a + b }"
    echo "#[cfg(test)] mod tests {"
    for i in $(seq 10); do
        echo "    #[test] fn t$i() { assert_eq!(super::add($i, 1), $((i + 1))); }"
    done
    echo "}"
} > src/lib.rs

time_cargo() { # label, then the hone sandbox arguments before `--`
    local label="$1"
    shift
    # hone makes a missing passed-through directory before the command.
    rm -rf target
    mkdir target
    fresh_view
    local a b c d
    a=$(now)
    "$hone" sandbox "$@" -- cargo test -q --offline >/dev/null 2>&1
    b=$(now)
    if [[ -d "$work/view/upper/target" ]]; then
        # What the view kept, hone copies into the project afterwards.
        cp -a "$work/view/upper/target/." target/
    fi
    c=$(now)
    for _ in 1 2 3 4 5; do
        fresh_view
        "$hone" sandbox "$@" -- cargo test -q --offline >/dev/null 2>&1
    done
    d=$(now)
    echo "cargo test, $label: cold $(mean_ms "$a" "$b" 1) ms (+ $(mean_ms "$b" "$c" 1) ms copying target/ in), warm $(mean_ms "$c" "$d" 5) ms"
}
time_cargo "no view"
time_cargo "view, target/ passed through" --overlay-dir "$work/view" --passthrough target
time_cargo "view, target/ in the view" --overlay-dir "$work/view"
