#!/bin/sh
# cpu_use.sh - shimtop's own CPU use while it samples the demo in batch
# mode at 1 kHz and 10 kHz (cpu-clock periods of 1 ms and 0.1 ms), as a
# share of one core: shimtop's task-clock (perf stat, exact run time of
# all its threads, in ns) over wall time.  getrusage and `time` are
# tick-based on this kernel and misreport short bursts.
set -eu
: "${SHIMTOP:?}" "${SHIMTOP_DEMO:?}"
SECONDS_EACH=${SECONDS_EACH:-10}
out=$(mktemp)
"$SHIMTOP_DEMO" &
demo=$!
trap 'kill $demo 2>/dev/null; rm -f "$out" "$out.json"' EXIT
sleep 0.5
for hz in 1000 10000; do
	period=$((1000000000 / hz))
	start=$(date +%s%N)
	perf stat -x, -e task-clock -o "$out" -- "$SHIMTOP" --batch \
		--duration "$SECONDS_EACH" -c "$period" -p "$demo" --format json \
		>"$out.json"
	wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))
	python3 - "$out" "$out.json" "$wall_ms" "$hz" <<'PY'
import json, sys
stat, js, wall_ms, hz = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
task_ms = next(float(l.split(",")[0]) for l in open(stat) if "task-clock" in l)
d = json.load(open(js))
print("cpu: %5s Hz: %.2f%% of a core (task-clock %.1f ms over %.1f s wall), "
      "%d samples, %.0f samples/s" % (hz, 100 * task_ms / wall_ms, task_ms,
      wall_ms / 1000, d["samples"], d["rate"]))
PY
done
