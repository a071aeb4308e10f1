#!/usr/bin/env bash
# hone against its anchors in one run, with one table of ratios at the end:
#   - the embedded engine against llama.cpp on the same GGUF and threads
#     (scripts/bench-engine-vs-llamacpp.sh MODEL THREADS);
#   - the code index against a bare tree-sitter parse (py-tree-sitter) of the same files
#     of a real tree, and the repo map on the warm index (scripts/bench-index-vs-treesitter.sh TREE).
# Not part of CI: both build in release mode and install their anchors from PyPI (see each
# script). Run it on an idle machine: the load average is printed with the table.
#
#   scripts/bench.sh MODEL.gguf TREE [THREADS]
#
# `-` for MODEL or TREE skips that part. Each part's own output is shown as it runs; the table
# is built from the `RESULT` line each prints last.
set -euo pipefail
cd "$(dirname "$0")/.."

model="${1:-}"
tree="${2:-}"
threads="${3:-2}"
if [[ -z "$model" || -z "$tree" || ("$model" != - && ! -f "$model") || ("$tree" != - && ! -d "$tree") ]]; then
    echo "usage: $0 MODEL.gguf TREE [THREADS]   (- skips a part)" >&2
    exit 1
fi

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# Runs one part, showing its output; its RESULT line goes to "$logs/NAME.result".
part() {
    local name="$1"
    shift
    echo "=== $name: $*"
    "$@" 2>&1 | tee "$logs/$name.log"
    grep "^RESULT $name " "$logs/$name.log" | tail -1 | cut -d' ' -f3- >"$logs/$name.result" || true
    if [[ ! -s "$logs/$name.result" ]]; then
        echo "$name: no RESULT line (see the output above)" >&2
        exit 1
    fi
}

[[ "$tree" == - ]] || part index scripts/bench-index-vs-treesitter.sh "$tree"
[[ "$model" == - ]] || part engine scripts/bench-engine-vs-llamacpp.sh "$model" "$threads"

# The value of KEY in a part's RESULT line.
value() {
    tr ' ' '\n' <"$logs/$1.result" | awk -F= -v key="$2" '$1 == key { print $2 }'
}
# One table row: label, hone, anchor, ratio, target; ratios with two decimals.
row() {
    printf '%-34s %10s %10s %8s  %s\n' "$@"
}
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'
}

echo
echo "load average: $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
row "" hone anchor ratio target
if [[ "$model" != - ]]; then
    echo "engine: $(basename "$model"), $threads threads, against llama.cpp"
    for measure in prompt decode edit; do
        hone=$(value engine "${measure}_hone")
        anchor=$(value engine "${measure}_llamacpp")
        case "$measure" in
            prompt) label="prompt (tok/s)" target=">= 1.0x" ;;
            decode) label="decode (tok/s)" target=">= 1.0x" ;;
            edit) label="edit, effective (tok/s)" target=">= 2.0x" ;;
        esac
        row "  $label" "$hone" "$anchor" "$(ratio "$hone" "$anchor")" "$target"
    done
    hone=$(value engine follow_up_hone_s)
    anchor=$(value engine follow_up_llamacpp_s)
    row "  follow-up, +42 tokens (s)" "$hone" "$anchor" "$(ratio "$anchor" "$hone")" \
        "<= 1 s (ratio: llama.cpp / hone)"
fi
if [[ "$tree" != - ]]; then
    echo "index: $(value index files) files of $tree, against py-tree-sitter"
    row "  cold index (s)" "$(value index index_s)" "$(value index parse_s)" \
        "$(value index index_ratio)x" "<= 1.3x (ratio: hone / bare parse)"
    row "  peak RSS, cold index (MB)" "$(value index index_rss_mb)" "" "" ""
    row "  hone map --budget 4096 (s)" "$(value index map_s)" "" "" "<= 0.2 s"
fi
