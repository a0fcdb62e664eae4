#!/bin/sh
# cpu_ui.sh - shimtop's own CPU in its terminal UI, redraw included, and
# perf top's beside it in the same run: both attached with -p to the demo
# for SECONDS_EACH (default 20) s at 1 kHz of cpu-clock (-c 1 ms for
# shimtop, -F 1000 for perf top), each in its own tmux pane of 120x40 with
# its default refresh (shimtop 1 s, perf top 2 s), on the table view.
# CPU is each tool's task-clock (perf stat: exact run time of all its
# threads) over its wall time.
set -eu
: "${SHIMTOP:?}" "${SHIMTOP_DEMO:?}"
SECONDS_EACH=${SECONDS_EACH:-20}
command -v tmux >/dev/null || { echo "cpu_ui: tmux is not installed"; exit 0; }
dir=$(mktemp -d)
sock="$dir/tmux.sock"
"$SHIMTOP_DEMO" &
demo=$!
trap 'tmux -S "$sock" kill-server 2>/dev/null; kill $demo 2>/dev/null; rm -rf "$dir"' EXIT
sleep 0.5
tmux -S "$sock" new-session -d -s shimtop -x 120 -y 40 \
	"perf stat -x, -e task-clock -o '$dir/shimtop.stat' -- env LANG=C.UTF-8 \
	'$SHIMTOP' -p $demo -c 1000000; echo done >'$dir/shimtop.done'; sleep 60"
tmux -S "$sock" new-session -d -s perftop -x 120 -y 40 \
	"perf stat -x, -e task-clock -o '$dir/perftop.stat' -- perf top -p $demo \
	-F 1000 -e cpu-clock; echo done >'$dir/perftop.done'; sleep 60"
start=$(date +%s%N)
sleep "$SECONDS_EACH"
tmux -S "$sock" send-keys -t shimtop q
tmux -S "$sock" send-keys -t perftop q
for i in $(seq 1 50); do
	[ -f "$dir/shimtop.done" ] && [ -f "$dir/perftop.done" ] && break
	sleep 0.2
done
wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))
python3 - "$dir/shimtop.stat" "$dir/perftop.stat" "$wall_ms" <<'PY'
import sys
def task_ms(path):
    return next(float(l.split(",")[0]) for l in open(path) if "task-clock" in l)
wall = float(sys.argv[3])
s, p = task_ms(sys.argv[1]), task_ms(sys.argv[2])
print("cpu in the UI at 1 kHz over %.1f s: shimtop %.2f%% of a core (task-clock %.1f ms), "
      "perf top %.2f%% (%.1f ms); shimtop / perf top = %.2f" %
      (wall / 1000, 100 * s / wall, s, 100 * p / wall, p, s / p))
PY
