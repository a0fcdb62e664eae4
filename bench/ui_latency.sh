#!/bin/sh
# ui_latency.sh - how long the UI keeps keys waiting with CallerChaining's
# pane open, on a large real program: a clang++ -O2 compile (libLLVM, deep
# chains) recorded with --call-graph callerchain at 10 kHz (-c 100000,
# SECONDS, default 8), replayed in the UI at its own speed (--realtime,
# as it came live) at 200x50: view 6, c (the rebuilt tree beside), then a
# key every 0.2 s to the end.  The UI's own count (SHIMTOP_UI_STATS): its
# longest stretch of work between two key reads, and how many passed
# 50 ms; the same run with the pane closed beside it.
set -eu
: "${SHIMTOP:?}"
SECONDS_REC=${SECONDS_REC:-8}
command -v clang++ >/dev/null || { echo "ui_latency: clang++ is not installed"; exit 0; }
command -v tmux >/dev/null || { echo "ui_latency: tmux is not installed"; exit 0; }
dir=$(mktemp -d)
sock="$dir/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc" regex
"$SHIMTOP" -b --duration "$SECONDS_REC" -c 100000 --call-graph callerchain -o "$dir/clang.rec" \
	-- clang++ -std=c++17 -O2 -c "$dir/heavy.cc" -o "$dir/heavy.o" >"$dir/rec.txt" 2>&1 || true
samples=$(sed -n 's/^samples \([0-9]*\) .*/\1/p' "$dir/rec.txt")
run() {	# run NAME KEYS: the replay in the UI, KEYS after the start, a key every 0.2 s
	tmux -S "$sock" new-session -d -s "$1" -x 200 -y 50 \
		"env LANG=C.UTF-8 SHIMTOP_UI_STATS='$dir/$1.stats' '$SHIMTOP' -i '$dir/clang.rec' --realtime; sleep 30"
	sleep 1
	for k in $2; do tmux -S "$sock" send-keys -t "$1" "$k"; sleep 0.3; done
	i=0
	while [ $i -lt $((SECONDS_REC * 5 + 10)) ]; do
		tmux -S "$sock" send-keys -t "$1" Down
		sleep 0.2
		i=$((i + 1))
	done
	tmux -S "$sock" send-keys -t "$1" q
	i=0
	while [ ! -s "$dir/$1.stats" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	echo "$1: $(tr '\n' ' ' <"$dir/$1.stats")"
}
echo "clang++ -O2 recorded $SECONDS_REC s with --call-graph callerchain at 10 kHz: $samples samples"
run closed "6"
run pane "6 c"
