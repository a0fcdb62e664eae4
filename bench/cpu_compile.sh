#!/bin/sh
# cpu_compile.sh - shimtop's CPU while attached to a C++ compile (clang++
# -O2: hot code in libLLVM and libclang-cpp, tens of thousands of symbols,
# new addresses all the time), beside perf record attached to the same
# compile at the same rate, in the same run.  CPU is each tool's
# task-clock (perf stat); perf record writes to a file and resolves
# nothing, shimtop symbolizes every sample as it arrives and prints the
# report --batch prints (text, as a user reads it).  ROUNDS
# (default 3) rounds at each of RATES (default "1000 10000"), interleaved (1 kHz, 10 kHz, 1 kHz,
# ...), each a fresh compile; the medians of each tool's task-clock and
# their ratio; their page faults and context switches beside (shimtop /
# perf record).
# Both collect what shimtop collects by default, frame-pointer call
# chains: shimtop as it starts, perf record with -g.  CALL_GRAPH=none:
# neither (shimtop --no-callchain, perf record without -g).
# CALL_GRAPH=auto (or dwarf): shimtop --call-graph CALL_GRAPH beside perf
# record -g, the call chains a user asks perf for, with the CPU of the
# perf script that reads them added to perf's.  (perf record --call-graph
# dwarf is no comparison here: its perf script spent 300 s of CPU on 6 s
# of this compile at 1 kHz.)
set -eu
: "${SHIMTOP:?}"
# Each tool's CPU, page faults and context switches (its wake-ups), from perf stat.
counted=task-clock,page-faults,context-switches
SECONDS_EACH=${SECONDS_EACH:-8}
ROUNDS=${ROUNDS:-3}
RATES=${RATES:-1000 10000}
CALL_GRAPH=${CALL_GRAPH:-}
post=""
case "$CALL_GRAPH" in
"")	shimtop_cg="" perf_cg="-g" ;;
none)	shimtop_cg="--no-callchain" perf_cg="" ;;
*)	shimtop_cg="--call-graph $CALL_GRAPH" perf_cg="-g" post=1 ;;
esac
dir=$(mktemp -d)
cxx=
trap 'kill $cxx 2>/dev/null; rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc"
: >"$dir/rounds"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	for hz in $RATES; do
		period=$((1000000000 / hz))
		clang++ -std=c++17 -O2 -c "$dir/heavy.cc" -o "$dir/heavy.o" &
		cxx=$!
		sleep 0.5
		# shellcheck disable=SC2086
		perf stat -x, -e "$counted" -o "$dir/perf.stat" -- perf record -q -e cpu-clock \
			$perf_cg -c "$period" -p "$cxx" -o "$dir/perf.data" -- sleep "$SECONDS_EACH" \
			>/dev/null 2>&1 &
		p=$!
		# shellcheck disable=SC2086
		perf stat -x, -e "$counted" -o "$dir/shimtop.stat" -- "$SHIMTOP" --batch $shimtop_cg \
			--duration "$SECONDS_EACH" -c "$period" -p "$cxx" >"$dir/shimtop.txt"
		wait "$p"
		: >"$dir/post.stat"
		[ -n "$post" ] && perf stat -x, -e task-clock -o "$dir/post.stat" -- \
			perf script -i "$dir/perf.data" -F ip,sym >/dev/null 2>&1
		kill "$cxx" 2>/dev/null || true
		wait "$cxx" 2>/dev/null || true
		python3 - "$dir" "$hz" "$SECONDS_EACH" "$round" >>"$dir/rounds" <<'PY'
import re, sys
d, hz, secs, rnd = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
def counted(f, what):
    return next((float(l.split(",")[0]) for l in open(f) if what in l and l[0].isdigit()), 0.0)
def task_ms(f):
    return counted(f, "task-clock")
s, p = task_ms(d + "/shimtop.stat"), task_ms(d + "/perf.stat") + task_ms(d + "/post.stat")
faults = [counted(d + f, "page-faults") for f in ("/shimtop.stat", "/perf.stat")]
switches = [counted(d + f, "context-switches") for f in ("/shimtop.stat", "/perf.stat")]
# The report a user reads (--batch's text): its counts line.
text = open(d + "/shimtop.txt").read()
count = lambda word: int(re.search(r"\b%s (\d+)" % word, text).group(1))
print(hz, rnd, s, p, count("samples"), count("dropped"), count("unknown"), *faults, *switches)
PY
		tail -1 "$dir/rounds" | awk -v secs="$SECONDS_EACH" '{ printf "%5s Hz, round %s: shimtop %.0f ms (%d samples, %d dropped), perf record %.0f ms: ratio %.2f; page faults %d / %d, context switches %d / %d\n", $1, $2, $3, $5, $6, $4, $3 / $4, $8, $9, $10, $11 }'
	done
	round=$((round + 1))
done
python3 - "$dir/rounds" "$SECONDS_EACH" $RATES <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
secs = float(sys.argv[2])
for hz in sys.argv[3:]:
    r = [x for x in rows if x[0] == hz]
    s = statistics.median(float(x[2]) for x in r)
    p = statistics.median(float(x[3]) for x in r)
    med = lambda k: statistics.median(float(x[k]) for x in r)
    print("%5s Hz, median of %d rounds of %.0f s: shimtop %.0f ms (%.2f%% of a core), "
          "perf record %.0f ms (%.2f%%): ratio %.2f; page faults %.0f / %.0f, "
          "context switches %.0f / %.0f"
          % (hz, len(r), secs, s, 100 * s / 1000 / secs, p, 100 * p / 1000 / secs, s / p,
             med(7), med(8), med(9), med(10)))
PY
