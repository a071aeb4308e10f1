#!/usr/bin/env bash
# Times the code index on SQLite against a shared Redis (docs/store.md) on the same tree:
# a cold `hone index`, a re-index with nothing changed, a second clone's first index (another
# copy of the tree, same namespace) and `hone map --budget 4096` on the warm index.
# Not part of CI: it builds hone in release mode (HONE_BIN=path/to/hone skips that) and needs
# redis-server (apt-get install redis-server), started here on a free port in a temporary
# directory with `appendonly yes`, `appendfsync everysec`.
#
#   scripts/bench-store.sh TREE
#
# TREE is copied twice to a temporary directory (its own `.hone/` is neither used nor
# touched). Each figure is the median of RUNS (default 3) runs; the last line sums them up:
# `RESULT store sqlite_cold_s=… redis_cold_s=… … redis_second_clone_parsed=…`.
set -euo pipefail
cd "$(dirname "$0")/.."

tree="${1:-}"
if [[ -z "$tree" || ! -d "$tree" ]]; then
    echo "usage: $0 TREE (a directory to index, e.g. this repository)" >&2
    exit 1
fi
runs="${RUNS:-3}"
command -v redis-server >/dev/null || { echo "redis-server is missing" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 is missing" >&2; exit 1; }

if [[ -n "${HONE_BIN:-}" ]]; then
    hone="$(realpath "$HONE_BIN")"
else
    cargo build --release --locked -p hone-cli >&2
    hone="$(pwd)/target/release/hone"
fi

work="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
redis-server --port "$port" --bind 127.0.0.1 --dir "$work" --appendonly yes \
    --appendfsync everysec --save "" >/dev/null &
redis_pid=$!
trap 'kill $redis_pid 2>/dev/null; rm -rf "$work"' EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done

mkdir -p "$work/home"
copy() { rm -rf "$1"; mkdir -p "$1"; (cd "$tree" && tar --exclude=.hone --exclude=target --exclude=node_modules -cf - .) | (cd "$1" && tar -xf -); }
# `hone` with a user file selecting STORE ("sqlite" or "redis") in namespace NS.
run() {
    local dir=$1 store=$2 ns=$3; shift 3
    printf '[store]\nbackend = "%s"\nurl = "redis://127.0.0.1:%s/0"\nnamespace = "%s"\n' \
        "$store" "$port" "$ns" > "$work/config.toml"
    (cd "$dir" && env -i PATH="$PATH" HOME="$work/home" HONE_CONFIG="$work/config.toml" "$hone" "$@")
}
seconds() { python3 -c 'import sys,json; print(json.load(sys.stdin)["duration_ms"]/1000)'; }
parsed() { python3 -c 'import sys,json; print(json.load(sys.stdin)["parsed"])'; }
timed() { local start; start=$(date +%s.%N); "$@" >/dev/null; python3 -c "import time; print(round(time.time()-$start,3))"; }
median() { python3 -c 'import sys,statistics; print(round(statistics.median(float(x) for x in sys.argv[1:]),3))' "$@"; }

declare -A results
for store in sqlite redis; do
    cold=(); again=(); second=(); map=()
    for run_number in $(seq "$runs"); do
        ns="bench-$run_number"
        copy "$work/one"; copy "$work/two"
        cold+=("$(run "$work/one" "$store" "$ns" index --yes --json | seconds)")
        again+=("$(run "$work/one" "$store" "$ns" index --yes --json | seconds)")
        summary="$(run "$work/two" "$store" "$ns" index --yes --json)"
        second+=("$(seconds <<<"$summary")")
        results[${store}_second_clone_parsed]="$(parsed <<<"$summary")"
        map+=("$(timed run "$work/one" "$store" "$ns" map --budget 4096)")
    done
    results[${store}_cold_s]="$(median "${cold[@]}")"
    results[${store}_unchanged_s]="$(median "${again[@]}")"
    results[${store}_second_clone_s]="$(median "${second[@]}")"
    results[${store}_map_s]="$(median "${map[@]}")"
done

files="$(find "$work/one" -type f | wc -l)"
echo "tree: $tree ($files files), runs: $runs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %10s %10s\n' "" sqlite redis
for figure in cold_s unchanged_s second_clone_s second_clone_parsed map_s; do
    printf '%-22s %10s %10s\n' "$figure" "${results[sqlite_$figure]}" "${results[redis_$figure]}"
done
line="RESULT store files=$files"
for key in $(printf '%s\n' "${!results[@]}" | sort); do line+=" $key=${results[$key]}"; done
echo "$line"
