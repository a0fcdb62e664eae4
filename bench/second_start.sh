#!/bin/sh
# second_start.sh - what a session's second start on the same programs
# saves: shimtop attached to a clang++ -O2 compile at 1 kHz for
# SECONDS_EACH (default 6) with its defaults, three ways: no cache
# (SHIMTOP_CACHE_DIR empty), a first session over an empty cache
# directory (it makes its files' rows and writes them), and the second
# one (it reads them).  ROUNDS rounds (default 3), each way a fresh
# compile; the medians of shimtop's task-clock (perf stat) and the
# files whose rows each way made or read (the JSON report).
set -eu
: "${SHIMTOP:?}"
SECONDS_EACH=${SECONDS_EACH:-6}
ROUNDS=${ROUNDS:-3}
dir=$(mktemp -d)
cxx=
trap 'kill $cxx 2>/dev/null; rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc"
: >"$dir/rounds"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	rm -rf "$dir/cache"
	mkdir -m 700 "$dir/cache"
	for how in none first second; do
		case $how in
		none)	cache= ;;
		*)	cache="$dir/cache" ;;
		esac
		clang++ -std=c++17 -O2 -c "$dir/heavy.cc" -o "$dir/heavy.o" &
		cxx=$!
		sleep 0.5
		SHIMTOP_CACHE_DIR="$cache" perf stat -x, -e task-clock -o "$dir/stat" -- \
			"$SHIMTOP" --batch --format json --duration "$SECONDS_EACH" -F 1000 -p "$cxx" \
			>"$dir/out.json"
		kill "$cxx" 2>/dev/null || true
		wait "$cxx" 2>/dev/null || true
		python3 - "$dir" "$how" "$round" >>"$dir/rounds" <<'PY'
import json, sys
d, how, rnd = sys.argv[1:4]
ms = next(float(l.split(",")[0]) for l in open(d + "/stat") if "task-clock" in l)
text = open(d + "/out.json").read()
f = json.loads(text[text.index("{"):])["tree"]["unwind_rows_files"]
print(how, rnd, ms, f["made"], f["from_cache"], f["cache_refused"])
PY
		tail -1 "$dir/rounds"
	done
	round=$((round + 1))
done
python3 - "$dir/rounds" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for how in ("none", "first", "second"):
    r = [x for x in rows if x[0] == how]
    med[how] = statistics.median(float(x[2]) for x in r)
    print(f"{how:>6}: shimtop {med[how]:.0f} ms (median of {len(r)}); files' rows made "
          f"{r[-1][3]}, read from the cache {r[-1][4]}, refused {r[-1][5]}")
print(f"second start against no cache: {100 * (1 - med['second'] / med['none']):.1f}% less CPU")
PY
