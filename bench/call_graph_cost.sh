#!/bin/sh
# call_graph_cost.sh - what each way of taking call chains costs, beside
# perf in the same run: Debian's python3 does a fixed amount of work
# (json and re, about 4 s alone) while one profiler samples it with
# cpu-clock every 250 us (4 kHz): shimtop --call-graph fp, dwarf (its
# unwinder's rows, and libdwfl alone: SHIMTOP_UNWINDER=libdwfl), auto (the
# default: walked in the kernel where it allows, and with every copy
# walked here: SHIMTOP_KERNEL_WALK=0) and callerchain, perf record -g and
# perf record --call-graph dwarf.
# Reported per mode: the target's slowdown (its own time over its time
# alone), the profiler's CPU per sample (task-clock of the profiler alone,
# perf stat), and for perf also the CPU of perf script, which does the
# unwinding that shimtop does live.
set -eu
: "${SHIMTOP:?}"
PY=${PY:-/usr/bin/python3}
ROUNDS=${ROUNDS:-1500}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/work.py" <<PY
import json, re, sys, time
t = time.perf_counter()
for _ in range($ROUNDS):
    json.loads(json.dumps([{"a": i, "b": str(i) * 3} for i in range(2000)]))
    r = re.compile(r"(\d+)-(\w+)")
    sum(1 for i in range(5000) if r.match(f"{i}-x{i}"))
open(sys.argv[1], "w").write("%.3f" % (time.perf_counter() - t))
PY
task_ms() { awk -F, '/task-clock/ { print $1 }' "$1"; }

"$PY" "$tmp/work.py" "$tmp/alone"
"$PY" "$tmp/work.py" "$tmp/alone"
alone=$(cat "$tmp/alone")
echo "python3 alone: $alone s"
printf '| profiler | target time | slowdown | samples | profiler CPU | per sample | post-processing |\n'
printf '|---|---|---|---|---|---|---|\n'

run() {
	name=$1
	shift
	"$PY" "$tmp/work.py" "$tmp/t" &
	pid=$!
	unwinder=rows kernel=1
	case $name in *libdwfl*) unwinder=libdwfl ;; esac
	case $name in *"walked here"*) kernel=0 ;; esac
	case $name in
	shimtop*)
		SHIMTOP_UNWINDER=$unwinder SHIMTOP_KERNEL_WALK=$kernel \
			perf stat -x, -e task-clock -o "$tmp/stat" -- \
			"$SHIMTOP" --batch -c 250000 \
			--format json -p "$pid" "$@" >"$tmp/out.json" 2>/dev/null
		samples=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples"])' \
			"$tmp/out.json")
		post=0 ;;
	perf*)
		perf stat -x, -e task-clock -o "$tmp/stat" -- perf record -q -e cpu-clock \
			-c 250000 "$@" -p "$pid" -o "$tmp/perf.data" >/dev/null 2>&1
		samples=$(perf script -i "$tmp/perf.data" -F tid 2>/dev/null | grep -c .)
		perf stat -x, -e task-clock -o "$tmp/post" -- perf script -i "$tmp/perf.data" \
			-F ip,sym >/dev/null 2>&1
		post=$(task_ms "$tmp/post") ;;
	esac
	wait "$pid" || true
	python3 - "$name" "$(cat "$tmp/t")" "$alone" "$samples" "$(task_ms "$tmp/stat")" "$post" <<'PY'
import sys
name, t, alone, samples, cpu, post = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
per = 1000.0 * (cpu + post) / samples if samples else 0
print("| %s | %.2f s | %.3f | %d | %.0f ms | %.1f us | %s |" % (name, t, t / alone, samples,
      cpu, per, ("%.0f ms" % post) if post else "live"))
PY
}

run "shimtop fp" --call-graph fp
run "perf record -g" -g
run "shimtop dwarf" --call-graph dwarf
run "shimtop dwarf, libdwfl alone" --call-graph dwarf
run "perf record --call-graph dwarf" --call-graph dwarf
run "shimtop callerchain" --call-graph callerchain
run "shimtop auto (the default)" --call-graph auto
run "shimtop auto, every copy walked here" --call-graph auto
