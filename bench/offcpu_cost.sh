#!/bin/sh
# offcpu_cost.sh - shimtop --off-cpu's CPU at 1,000, 10,000 and 50,000
# switches off a CPU a second (tests/waits switch: two threads passing a
# byte over pipes, paced), beside perf record -e sched:sched_switch -g
# attached to the same program in the same run, and the program's
# slowdown: the switch rate it reached under both tools against the rate
# asked.  CPU is each tool's task-clock (perf stat) over SECONDS_EACH
# (default 6); ROUNDS (default 3) rounds, the medians.  shimtop pairs
# each switch with its thread's return and symbolizes and aggregates
# every chain as it comes; perf record writes them to a file.
# WAITS: the built tests/waits (default: ./tests/waits, from the build
# directory).
set -eu
: "${SHIMTOP:?}"
WAITS=${WAITS:-./tests/waits}
SECONDS_EACH=${SECONDS_EACH:-6}
ROUNDS=${ROUNDS:-3}
dir=$(mktemp -d)
w=
trap 'kill $w 2>/dev/null; rm -rf "$dir"' EXIT
: >"$dir/rounds"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	for rate in 1000 10000 50000; do
		"$WAITS" switch "$((SECONDS_EACH + 2))" "$rate" >"$dir/waits.out" &
		w=$!
		sleep 0.5
		perf stat -x, -e task-clock -o "$dir/perf.stat" -- perf record -q \
			-e sched:sched_switch -g -p "$w" -o "$dir/perf.data" -- sleep "$SECONDS_EACH" \
			>/dev/null 2>&1 &
		p=$!
		perf stat -x, -e task-clock -o "$dir/shimtop.stat" -- "$SHIMTOP" --batch --off-cpu \
			--duration "$SECONDS_EACH" -p "$w" >"$dir/shimtop.txt"
		wait "$p"
		wait "$w"
		python3 - "$dir" "$rate" "$SECONDS_EACH" "$round" >>"$dir/rounds" <<'PY'
import re, sys
d, rate, secs, rnd = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
def task_ms(f):
    for line in open(f):
        if "task-clock" in line:
            return float(line.split(",")[0])
    return float("nan")
s, p = task_ms(d + "/shimtop.stat"), task_ms(d + "/perf.stat")
reached = float(re.search(r"switches (\d+)/s", open(d + "/waits.out").read()).group(1))
text = open(d + "/shimtop.txt").read()
m = re.search(r"(\d+) waits\b.*?(\d+) switches not seen to end", text)
waits, lost = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
print(f"{rate} {rnd} {s:.0f} {p:.0f} {reached:.0f} {waits} {lost}")
PY
	done
	round=$((round + 1))
done
python3 - "$dir/rounds" "$SECONDS_EACH" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
secs = float(sys.argv[2])
print("| switches/s asked | shimtop CPU | perf record CPU | ratio | rate reached | waits paired / unpaired |")
print("|---|---|---|---|---|---|")
for rate in ("1000", "10000", "50000"):
    r = [x for x in rows if x[0] == rate]
    s = statistics.median(float(x[2]) for x in r)
    p = statistics.median(float(x[3]) for x in r)
    reached = statistics.median(float(x[4]) for x in r)
    waits = statistics.median(int(x[5]) for x in r)
    lost = statistics.median(int(x[6]) for x in r)
    print(f"| {int(rate):,} | {s:.0f} ms ({100 * s / 1000 / secs:.1f}%) | {p:.0f} ms "
          f"({100 * p / 1000 / secs:.1f}%) | **{s / p:.2f}** | {reached:,.0f}/s | "
          f"{waits:,.0f} / {lost:,.0f} |")
PY
