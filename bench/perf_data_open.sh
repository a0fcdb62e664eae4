#!/bin/sh
# perf_data_open.sh - a large perf.data opened for the table: shimtop -i
# FILE -b beside perf report --stdio of the same file, in the same run.
# The file is made here: perf record -g of clang++ -O2 compiles (libLLVM:
# deep chains, tens of thousands of symbols) at RATE Hz (default 20000)
# for REC_SECONDS (default 60), -a, -m 1024 so that little is lost; with
# CALL_GRAPH=dwarf, --call-graph dwarf (8 KiB of stack a sample).  perf
# report runs as PERF_MODES says (default "graph flat"): graph is plain
# `perf report --stdio` (on a -g file it builds and prints every call
# graph), flat is `--stdio -g none` (the table alone, as shimtop -b
# prints it first).  Each runs ROUNDS times (default 3), alternated with
# shimtop -i FILE -b; wall time, CPU and peak memory (GNU time), medians
# and shimtop's ratio to each.
set -eu
: "${SHIMTOP:?}"
SECONDS_REC=${REC_SECONDS:-60}
PERF_MODES=${PERF_MODES:-graph flat}
RATE=${RATE:-20000}
ROUNDS=${ROUNDS:-3}
CALL_GRAPH=${CALL_GRAPH:-fp}
command -v clang++ >/dev/null || { echo "perf_data_open: clang++ is not installed"; exit 0; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc"
cat >"$dir/compiles.sh" <<SH
while :; do clang++ -std=c++17 -O2 -c "$dir/heavy.cc" -o "$dir/heavy.o"; done
SH
sh "$dir/compiles.sh" &
loop=$!
case "$CALL_GRAPH" in
dwarf)	cg="--call-graph dwarf" ;;
*)	cg="-g" ;;
esac
# shellcheck disable=SC2086
perf record -q -F "$RATE" $cg -m 1024 -a -o "$dir/big.data" -- sleep "$SECONDS_REC" \
	>/dev/null 2>&1 || true
kill "$loop" 2>/dev/null || true
pkill -P "$loop" 2>/dev/null || true
wait 2>/dev/null || true
size=$(stat -c %s "$dir/big.data")
samples=$(perf report -i "$dir/big.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
echo "perf.data: $size bytes, ${samples:-?} samples ($CALL_GRAPH chains, $RATE Hz, -a, $SECONDS_REC s)"
: >"$dir/times"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for mode in $PERF_MODES; do
		args=""
		[ "$mode" = flat ] && args="-g none"
		# shellcheck disable=SC2086
		/usr/bin/time -f "perf-$mode %e %U %S %M" -a -o "$dir/times" \
			perf report -i "$dir/big.data" --stdio $args >/dev/null 2>&1 || true
	done
	/usr/bin/time -f "shimtop %e %U %S %M" -a -o "$dir/times" \
		"$SHIMTOP" -i "$dir/big.data" -b >/dev/null 2>&1 || true
	r=$((r + 1))
done
python3 - "$dir/times" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])
        if len(l.split()) == 5 and (l.startswith("perf-") or l.startswith("shimtop "))]
med = {}
for tool in sorted({x[0] for x in rows}):
    r = [x for x in rows if x[0] == tool]
    med[tool] = (statistics.median(float(x[1]) for x in r),
                 statistics.median(float(x[2]) + float(x[3]) for x in r),
                 statistics.median(int(x[4]) for x in r))
    print("%-12s wall %7.2f s  cpu %7.2f s  peak %7.0f MB  (median of %d)"
          % (tool, med[tool][0], med[tool][1], med[tool][2] / 1024, len(r)))
s = med["shimtop"]
for tool, p in med.items():
    if tool != "shimtop":
        print("shimtop / %s: wall %.3f, cpu %.3f, memory %.3f"
              % (tool, s[0] / p[0], s[1] / p[1], s[2] / p[2]))
PY
