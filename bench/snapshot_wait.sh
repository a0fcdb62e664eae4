#!/bin/sh
# snapshot_wait.sh - how long `s` keeps the UI's keys waiting: a long
# session (gen_records steady, MINUTES at HZ, default 3 minutes at 10
# kHz: 1.8 million samples with chains) replayed in the UI at 200x50,
# then `s` and a key every 0.1 s until the snapshot's file is there (at
# most WAIT seconds, default 15).  The UI's own count (SHIMTOP_UI_STATS,
# the whole session): its longest stretch of work between two key reads,
# and how many passed 50 ms; the snapshot's size and when it was there.  SHIMTOP_BEFORE: a build to run beside,
# the same way (one that writes the snapshot on the UI's thread).
set -eu
: "${SHIMTOP:?}" "${GEN_RECORDS:?}"
MINUTES=${MINUTES:-3}
HZ=${HZ:-10000}
WAIT=${WAIT:-15}
command -v tmux >/dev/null || { echo "snapshot_wait: tmux is not installed"; exit 0; }
dir=$(mktemp -d)
sock="$dir/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$dir"' EXIT
"$GEN_RECORDS" steady "$dir/long.rec" $((MINUTES * 60)) "$HZ"
run() {	# run NAME SHIMTOP: the replay in the UI, s once it has ended, keys after
	mkdir "$dir/$1"
	tmux -S "$sock" new-session -d -s "$1" -x 200 -y 50 -c "$dir/$1" \
		"env LANG=C.UTF-8 SHIMTOP_UI_STATS='$dir/$1.stats' '$2' -i '$dir/long.rec'; sleep 60"
	i=0
	while ! tmux -S "$sock" capture-pane -p -t "$1" | grep -q "end of recording" &&
		[ $i -lt 600 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	sleep 1
	tmux -S "$sock" send-keys -t "$1" s
	t0=$(date +%s.%N)
	i=0
	# Keys until the snapshot's file is there (renamed into place whole).
	while [ $i -lt $((WAIT * 10)) ] && ! ls "$dir/$1"/shimtop-*.snap >/dev/null 2>&1; do
		tmux -S "$sock" send-keys -t "$1" Down
		sleep 0.1
		i=$((i + 1))
	done
	t1=$(date +%s.%N)
	tmux -S "$sock" send-keys -t "$1" q
	i=0
	while [ ! -s "$dir/$1.stats" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	snap=$(ls "$dir/$1"/shimtop-*.snap 2>/dev/null | head -1)
	echo "$1: snapshot ${snap:+$(wc -c <"$snap") bytes, }there $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s after s;" \
		"$(tr '\n' ' ' <"$dir/$1.stats")"
}
echo "$MINUTES minutes at $HZ Hz: $(wc -c <"$dir/long.rec") bytes of recording"
[ -n "${SHIMTOP_BEFORE:-}" ] && run before "$SHIMTOP_BEFORE"
run now "$SHIMTOP"
