#!/bin/sh
# ingest_compile.sh - what a sample costs the model on a large real
# program beside the demo: a clang++ -O2 compile (libLLVM, deep chains)
# and the demo, each recorded here for SECONDS (default 5) at 10 kHz with
# frame-pointer chains, then each recording fed through bench_ingest
# (ring, symbolization, tables, tree) to 500,000 records: the first pass
# with every address's first sight and every symbol table's build, as a
# session pays them, then the samples again, as a longer session sees
# the same code.
set -eu
: "${SHIMTOP:?}" "${SHIMTOP_DEMO:?}" "${BENCH_INGEST:?}"
SECONDS_REC=${SECONDS_REC:-5}
command -v clang++ >/dev/null || { echo "ingest_compile: clang++ is not installed"; exit 0; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc"
"$SHIMTOP" -b --duration "$SECONDS_REC" -c 100000 -o "$dir/clang.rec" \
	-- clang++ -std=c++17 -O2 -c "$dir/heavy.cc" -o "$dir/heavy.o" >/dev/null 2>&1 || true
"$SHIMTOP" -b --duration "$SECONDS_REC" -c 100000 -o "$dir/demo.rec" \
	-- "$SHIMTOP_DEMO" >/dev/null 2>&1 || true
for r in demo clang; do
	printf '%-6s' "$r:"
	"$BENCH_INGEST" "$dir/$r.rec" 500000 | tail -1
done
