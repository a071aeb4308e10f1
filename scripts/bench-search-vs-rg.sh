#!/usr/bin/env bash
# Times hone's `search_files` tool against ripgrep on the same large tree (target: hone
# takes at most 1.3x rg's time). Not part of CI: it needs `rg` and `hyperfine`
# (e.g. `apt-get install -y ripgrep hyperfine`) and a large tree.
#
#   scripts/bench-search-vs-rg.sh [TREE]
#
# TREE defaults to $HONE_BENCH_TREE, then to the cargo registry sources
# ($CARGO_HOME/registry/src/<index>/, tens of thousands of files on a dev machine).
#
# rg is run with the options that mirror search_files' behaviour:
#   -i                  case-insensitive (search_files' default)
#   -F                  literal pattern (search_files' default; the regex case omits it)
#   --hidden            hidden files are searched (the walker uses hidden(false))
#   --no-require-git    .gitignore files apply outside git repositories too (require_git(false))
#   -n                  line numbers (search_files reports path:line: text)
# Both skip .gitignore/.ignore-d paths, binary files (a NUL byte) and symlinks, and use
# every core. Output goes through a pipe (hyperfine --output=pipe) so neither tool can
# take a /dev/null shortcut. search_files stops counting at 20,000 matches, so the patterns
# are chosen to match fewer lines: the whole tree is searched by both.
set -euo pipefail
cd "$(dirname "$0")/.."

tree="${1:-${HONE_BENCH_TREE:-}}"
if [[ -z "$tree" ]]; then
    for candidate in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
        if [[ -d "$candidate" ]]; then
            tree="${candidate%/}"
            break
        fi
    done
fi
if [[ -z "$tree" || ! -d "$tree" ]]; then
    echo "no tree to search: pass one or set HONE_BENCH_TREE (default: the cargo registry sources)" >&2
    exit 1
fi
for tool in rg hyperfine; do
    if ! command -v "$tool" >/dev/null; then
        echo "$tool is not installed (apt-get install -y ripgrep hyperfine)" >&2
        exit 1
    fi
done

cargo build --quiet --release -p hone-tools --example search
hone=target/release/examples/search
rg_common=(rg -n -i --hidden --no-require-git)

files=$("${rg_common[@]}" --files "$tree" | wc -l)
bytes=$("${rg_common[@]}" --files -0 "$tree" | xargs -0 stat -c %s | awk '{ s += $1 } END { print s }')
echo "tree: $tree"
echo "searched files: $files, $((bytes / 1024 / 1024)) MiB ($(nproc) cores, rg $(rg --version | head -1 | cut -d' ' -f2))"
echo

literal='fn new('
regex='impl\s+fmt::Display\s+for'
echo "hone: $("$hone" "$tree" "$literal")"
echo "rg:   $("${rg_common[@]}" -F "$literal" "$tree" | wc -l) matching lines"
echo "hone: $("$hone" "$tree" "$regex" --regex)"
echo "rg:   $("${rg_common[@]}" "$regex" "$tree" | wc -l) matching lines"
echo

q() { printf '%q ' "$@"; }
hyperfine --warmup 3 --runs "${RUNS:-20}" --output=pipe \
    --command-name "hone search_files, literal" "$(q "$hone" "$tree" "$literal")" \
    --command-name "rg, literal" "$(q "${rg_common[@]}" -F "$literal" "$tree")"
hyperfine --warmup 3 --runs "${RUNS:-20}" --output=pipe \
    --command-name "hone search_files, regex" "$(q "$hone" "$tree" "$regex" --regex)" \
    --command-name "rg, regex" "$(q "${rg_common[@]}" "$regex" "$tree")"

# hyperfine times one command's runs, then the other's: on a shared machine a change of load
# between the two batches skews the ratio. Alternating the two commands run by run and
# comparing medians is steadier.
median_ms() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
interleaved() {
    local name=$1 hone_cmd=$2 rg_cmd=$3 hone_times="" rg_times="" start
    for _ in $(seq "${RUNS:-20}"); do
        start=$(date +%s%N); eval "$hone_cmd" | cat >/dev/null
        hone_times+="$((($(date +%s%N) - start) / 1000000)) "
        start=$(date +%s%N); eval "$rg_cmd" | cat >/dev/null
        rg_times+="$((($(date +%s%N) - start) / 1000000)) "
    done
    local hone_ms rg_ms
    hone_ms=$(median_ms <<<"$hone_times")
    rg_ms=$(median_ms <<<"$rg_times")
    echo "$name: hone $hone_ms ms, rg $rg_ms ms (medians of ${RUNS:-20} alternating runs): hone/rg = $(awk -v h="$hone_ms" -v r="$rg_ms" 'BEGIN { printf "%.2f", h / r }') (target <= 1.3)"
}
echo
interleaved literal "$(q "$hone" "$tree" "$literal")" "$(q "${rg_common[@]}" -F "$literal" "$tree")"
interleaved regex "$(q "$hone" "$tree" "$regex" --regex)" "$(q "${rg_common[@]}" "$regex" "$tree")"
