#!/bin/sh
# cpu_ui.sh - shimtop's own CPU in its terminal UI, redraw included, and
# perf top's beside it in the same run: both attached with -p to the same
# target for SECONDS_EACH s at HZ of cpu-clock (-c for shimtop, -F for
# perf top), each in its own tmux pane of 120x40 with its default refresh
# (shimtop 1 s, perf top 2 s).  TARGET=demo (the default: 20 s at 1 kHz,
# the table view) or TARGET=compile (a clang++ -O2 compile, libLLVM and
# deep chains: 8 s at 10 kHz, shimtop's view going round the table, the
# tree and the timeline every 2 s).  CPU is each tool's task-clock (perf
# stat: exact run time of all its threads) over its wall time.
set -eu
: "${SHIMTOP:?}"
TARGET=${TARGET:-demo}
if [ "$TARGET" = compile ]; then
	SECONDS_EACH=${SECONDS_EACH:-8}
	HZ=${HZ:-10000}
	command -v clang++ >/dev/null || { echo "cpu_ui: clang++ is not installed"; exit 0; }
else
	: "${SHIMTOP_DEMO:?}"
	SECONDS_EACH=${SECONDS_EACH:-20}
	HZ=${HZ:-1000}
fi
command -v tmux >/dev/null || { echo "cpu_ui: tmux is not installed"; exit 0; }
dir=$(mktemp -d)
sock="$dir/tmux.sock"
if [ "$TARGET" = compile ]; then
	python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc"
	clang++ -std=c++17 -O2 -c "$dir/heavy.cc" -o "$dir/heavy.o" &
else
	"$SHIMTOP_DEMO" &
fi
target=$!
trap 'tmux -S "$sock" kill-server 2>/dev/null; kill $target 2>/dev/null; rm -rf "$dir"' EXIT
sleep 0.5
tmux -S "$sock" new-session -d -s shimtop -x 120 -y 40 \
	"perf stat -x, -e task-clock -o '$dir/shimtop.stat' -- env LANG=C.UTF-8 \
	'$SHIMTOP' -p $target -c $((1000000000 / HZ)); echo done >'$dir/shimtop.done'; sleep 60"
tmux -S "$sock" new-session -d -s perftop -x 120 -y 40 \
	"perf stat -x, -e task-clock -o '$dir/perftop.stat' -- perf top -p $target \
	-F $HZ -e cpu-clock; echo done >'$dir/perftop.done'; sleep 60"
start=$(date +%s%N)
if [ "$TARGET" = compile ]; then
	i=0
	while [ $((i * 2)) -lt "$SECONDS_EACH" ]; do
		sleep 2
		tmux -S "$sock" send-keys -t shimtop "$(echo 6 2 1 | cut -d' ' -f$((i % 3 + 1)))"
		i=$((i + 1))
	done
else
	sleep "$SECONDS_EACH"
fi
tmux -S "$sock" send-keys -t shimtop q
tmux -S "$sock" send-keys -t perftop q
for i in $(seq 1 50); do
	[ -f "$dir/shimtop.done" ] && [ -f "$dir/perftop.done" ] && break
	sleep 0.2
done
wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))
python3 - "$dir/shimtop.stat" "$dir/perftop.stat" "$wall_ms" "$TARGET" "$HZ" <<'PY'
import sys
def task_ms(path):
    return next(float(l.split(",")[0]) for l in open(path) if "task-clock" in l)
wall = float(sys.argv[3])
s, p = task_ms(sys.argv[1]), task_ms(sys.argv[2])
print("cpu in the UI on the %s at %d Hz over %.1f s: shimtop %.2f%% of a core (task-clock "
      "%.1f ms), perf top %.2f%% (%.1f ms); shimtop / perf top = %.2f" %
      (sys.argv[4], int(sys.argv[5]), wall / 1000, 100 * s / wall, s, 100 * p / wall, p, s / p))
PY
