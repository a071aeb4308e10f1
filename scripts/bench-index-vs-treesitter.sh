#!/usr/bin/env bash
# Times a cold `hone index` against a bare tree-sitter parse of the same files, and a warm
# `hone map --budget 4096` (targets: cold index within 1.3x of the bare parse; map under 0.2 s).
# Not part of CI: it builds hone in release mode, needs python3 (with venv and pip) and
# installs py-tree-sitter and the grammars it needs from PyPI into a temporary venv.
#
#   scripts/bench-index-vs-treesitter.sh TREE
#
# TREE is copied to a temporary directory (so its own `.hone/` is neither used nor touched).
# Each run interleaves, RUNS times (default 3), so a change of machine load hits both alike:
#   - `hone index --yes` on a fresh database (the copy's `.hone/` removed first);
#   - the bare parse: py-tree-sitter `Parser.parse` of every file the index parsed (the list
#     comes from the index database, so both see the same files), each with its grammar, on
#     as many worker processes as hone uses threads (the machine's cores), pool and grammars
#     loaded before the clock starts; reading the files is timed, as in the index.
# Then `hone map --budget 4096` on the warm index. Medians are printed, with peak RSS
# (`/usr/bin/time -v`) of the cold index and the map, the load average (on a loaded machine
# the ratios hold better than the times), and where the last cold index spent its time
# (`HONE_LOG=hone_index=debug`: the walk, the workers' read/parse/extract time summed over
# threads, the writer's wait/write/resolve/commit). The last line sums it up for scripts:
# `RESULT index parse_s=… index_s=… index_ratio=… index_rss_mb=… map_s=… map_rss_mb=… …`.
set -euo pipefail
cd "$(dirname "$0")/.."

tree="${1:-${HONE_BENCH_TREE:-}}"
if [[ -z "$tree" || ! -d "$tree" ]]; then
    echo "usage: $0 TREE (a directory to index, e.g. a checkout of microsoft/playwright)" >&2
    exit 1
fi
runs="${RUNS:-3}"
for tool in python3 /usr/bin/time; do
    if ! command -v "$tool" >/dev/null; then
        echo "$tool is missing (apt-get install -y python3-venv time)" >&2
        exit 1
    fi
done

# HONE_BIN=path/to/hone skips the build (e.g. to compare two builds).
if [[ -n "${HONE_BIN:-}" ]]; then
    hone="$(realpath "$HONE_BIN")"
else
    cargo build --quiet --release -p hone-cli
    target="${CARGO_TARGET_DIR:-target}"
    hone="$(cd "$target/release" && pwd)/hone"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
project="$work/project"
mkdir -p "$project"
cp -a "$tree/." "$project/"
rm -rf "$project/.hone"
# The user's configuration must not change what is indexed or where the database lives.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
mkdir -p "$HOME"

# A first index gives the file list the bare parse uses (and warms the page cache).
"$hone" -C "$project" index --yes --json >/dev/null
python3 - "$project/.hone/index.db" >"$work/files.tsv" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for path, language in db.execute("SELECT path, language FROM files WHERE kind = 'source' ORDER BY path"):
    print(f"{language}\t{path}")
EOF
languages=$(cut -f1 "$work/files.tsv" | sort -u | tr '\n' ' ')

# py-tree-sitter and the grammars of the languages present.
python3 -m venv "$work/venv"
packages=(tree-sitter)
for language in $languages; do
    case "$language" in
        typescript | tsx) packages+=(tree-sitter-typescript) ;;
        *) packages+=("tree-sitter-$language") ;;
    esac
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}"

cat >"$work/parse.py" <<'EOF'
"""Bare tree-sitter parse of the files listed in argv[2] (root argv[1]) on argv[3] processes."""
import importlib, multiprocessing, os, sys, time
import tree_sitter

MODULES = {"typescript": ("tree_sitter_typescript", "language_typescript"),
           "tsx": ("tree_sitter_typescript", "language_tsx")}
parsers = {}

def load(languages):
    for language in languages:
        module, function = MODULES.get(language, (f"tree_sitter_{language}", "language"))
        grammar = tree_sitter.Language(getattr(importlib.import_module(module), function)())
        parsers[language] = tree_sitter.Parser(grammar)

def parse(job):
    language, path = job
    with open(path, "rb") as source:
        tree = parsers[language].parse(source.read())
    return tree.root_node.child_count

if __name__ == "__main__":
    root, listing, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    jobs = [line.rstrip("\n").split("\t", 1) for line in open(listing)]
    jobs = [(language, os.path.join(root, path)) for language, path in jobs]
    languages = sorted({language for language, _ in jobs})
    with multiprocessing.get_context("fork").Pool(workers, load, (languages,)) as pool:
        pool.map(abs, range(workers * 4))  # every worker started and loaded
        started = time.perf_counter()
        pool.map(parse, jobs, chunksize=8)
        print(f"{time.perf_counter() - started:.3f}")
EOF

cores=$(nproc)
# `/usr/bin/time -v` of a command: "seconds kib".
timed() {
    /usr/bin/time -v "$@" 2>"$work/time.txt" >/dev/null
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
                /Maximum resident set size/ { kib = $2 }
                END { printf "%.3f %d\n", s, kib }' "$work/time.txt"
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

index_times="" index_rss="" parse_times="" breakdown=""
for _ in $(seq "$runs"); do
    rm -rf "$project/.hone"
    # The debug log's one line on where the update's time went (see UpdateTimings).
    read -r seconds kib < <(HONE_LOG=hone_index=debug timed "$hone" -C "$project" index --yes --json)
    breakdown=$(grep -o 'index update: .*' "$work/time.txt" | tail -1 || true)
    index_times+="$seconds"$'\n' index_rss+="$kib"$'\n'
    parse_times+="$("$work/venv/bin/python" "$work/parse.py" "$project" "$work/files.tsv" "$cores")"$'\n'
done
map_times="" map_rss=""
"$hone" -C "$project" map --budget 4096 >/dev/null 2>&1
for _ in $(seq "$runs"); do
    read -r seconds kib < <(timed "$hone" -C "$project" map --budget 4096)
    map_times+="$seconds"$'\n' map_rss+="$kib"$'\n'
done

index_s=$(median <<<"${index_times%$'\n'}")
parse_s=$(median <<<"${parse_times%$'\n'}")
map_s=$(median <<<"${map_times%$'\n'}")
ratio=$(awk -v a="$index_s" -v b="$parse_s" 'BEGIN { printf "%.2f", a / b }')
index_mb=$(median <<<"${index_rss%$'\n'}" | awk '{ printf "%.0f", $1 / 1024 }')
map_mb=$(median <<<"${map_rss%$'\n'}" | awk '{ printf "%.0f", $1 / 1024 }')
files=$(wc -l <"$work/files.tsv")
bytes=$(cut -f2 "$work/files.tsv" | (cd "$project" && tr '\n' '\0' | xargs -0 cat) | wc -c)
versions=$("$work/venv/bin/pip" list --disable-pip-version-check 2>/dev/null | awk '/^tree-sitter/ { printf "%s %s, ", $1, $2 }')

echo "tree: $tree"
echo "parsed files: $files ($languages), $((bytes / 1024)) KiB; $cores cores, $runs runs (medians)"
echo "python grammars: ${versions%, }"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '%-52s %10s  %s\n' "measurement" "result" "goal"
printf '%-52s %8.2f s\n' "bare tree-sitter parse (py-tree-sitter, $cores processes)" "$parse_s"
printf '%-52s %8.2f s\n' "cold hone index (fresh database)" "$index_s"
printf '%-52s %8.2fx  <= 1.3x\n' "  cold index / bare parse" "$ratio"
printf '%-52s %8.0f MB\n' "  peak RSS, cold index" "$index_mb"
printf '%-52s %8.2f s  <= 0.2 s\n' "hone map --budget 4096, warm index" "$map_s"
printf '%-52s %8.0f MB\n' "  peak RSS, map" "$map_mb"
echo
echo "last cold index, ${breakdown:-no timings logged}"
echo "all runs (s): index $(tr '\n' ' ' <<<"${index_times%$'\n'}")| parse $(tr '\n' ' ' <<<"${parse_times%$'\n'}")| map $(tr '\n' ' ' <<<"${map_times%$'\n'}")"
# One machine-readable line (collected by scripts/bench.sh).
echo "RESULT index files=$files parse_s=$parse_s index_s=$index_s index_ratio=$ratio" \
    "index_rss_mb=$index_mb map_s=$map_s map_rss_mb=$map_mb load=$(cut -d' ' -f1 /proc/loadavg)"
