#!/bin/sh
# snapshot_live.sh - `s` on a live session after MINUTES (default 3) of a
# clang++ -O2 compile run again and again (the command shimtop launches),
# sampled at HZ (default 10 kHz) with the default call graph, in the UI
# at 200x50: `s`, then a key every 0.1 s until the snapshot's file is
# there and 5 s more.  Prints the header's `dropped` before `s` and after,
# the seconds until the file was there and its size, and the UI's own
# count of its longest work between two key reads over the whole session
# (SHIMTOP_UI_STATS).  SHIMTOP_BEFORE: a build to run the same way after
# it (one that writes the snapshot on the UI's thread).
set -eu
: "${SHIMTOP:?}"
MINUTES=${MINUTES:-3}
HZ=${HZ:-10000}
WAIT=${WAIT:-60}
command -v tmux >/dev/null || { echo "snapshot_live: tmux is not installed"; exit 0; }
command -v clang++ >/dev/null || { echo "snapshot_live: clang++ is not installed"; exit 0; }
dir=$(mktemp -d)
sock="$dir/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null; pkill -f "$dir/heavy.cc" 2>/dev/null; rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc"
dropped() {	# dropped NAME: the header's figure now
	tmux -S "$sock" capture-pane -p -t "$1" | sed -n 's/.*dropped \([^ ]*\).*/\1/p' | head -1
}
run() {	# run NAME SHIMTOP
	mkdir "$dir/$1"
	tmux -S "$sock" new-session -d -s "$1" -x 200 -y 50 -c "$dir/$1" \
		"env LANG=C.UTF-8 SHIMTOP_UI_STATS='$dir/$1.stats' '$2' -c $((1000000000 / HZ)) -- \
		sh -c 'while :; do clang++ -std=c++17 -O2 -c $dir/heavy.cc -o $dir/$1/heavy.o; done'; \
		sleep 60"
	sleep $((MINUTES * 60))
	before=$(dropped "$1")
	tmux -S "$sock" send-keys -t "$1" s
	t0=$(date +%s.%N)
	i=0
	while [ $i -lt $((WAIT * 10)) ] && ! ls "$dir/$1"/shimtop-*.snap >/dev/null 2>&1; do
		tmux -S "$sock" send-keys -t "$1" Down
		sleep 0.1
		i=$((i + 1))
	done
	t1=$(date +%s.%N)
	i=0
	while [ $i -lt 50 ]; do
		tmux -S "$sock" send-keys -t "$1" Up
		sleep 0.1
		i=$((i + 1))
	done
	after=$(dropped "$1")
	tmux -S "$sock" send-keys -t "$1" q
	i=0
	while [ ! -s "$dir/$1.stats" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	snap=$(ls "$dir/$1"/shimtop-*.snap 2>/dev/null | head -1)
	echo "$1: dropped $before before s, $after 5 s after the file;" \
		"snapshot ${snap:+$(wc -c <"$snap") bytes, }there" \
		"$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s after s;" \
		"$(tr '\n' ' ' <"$dir/$1.stats")"
	tmux -S "$sock" kill-session -t "$1" 2>/dev/null || true
	pkill -f "$dir/heavy.cc" 2>/dev/null || true
	sleep 2
}
echo "$(uname -r), $(uptime -p), load $(cut -d' ' -f1-3 /proc/loadavg):" \
	"$MINUTES minutes at $HZ Hz of clang++ -O2 compiles"
run now "$SHIMTOP"
[ -n "${SHIMTOP_BEFORE:-}" ] && run before "$SHIMTOP_BEFORE"
exit 0
