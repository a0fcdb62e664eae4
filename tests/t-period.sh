#!/bin/sh
# t-period.sh - ] and [ change the period that samples are taken with,
# checked in the samples themselves (each carries its period), never in
# the header alone.  A target that forks (its children's inherited events
# once made the kernel keep the old period: the rate stayed while the
# header said otherwise), a target that starts threads after the change,
# and -F on a clock event (the kernel took a new frequency as a period in
# ns: ] x6 said 62 Hz and sampled at 83 kHz).  Each is recorded (-o) in
# the UI; after a second's grace every sample has the new period.
. "$TESTS_DIR/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"

# periods FILE SINCE_NS: "N WANT-CHECK" of the samples after SINCE_NS:
# prints count, min and max period, and the tids seen.
periods() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
since = int(sys.argv[2])
at = struct.unpack_from('<I', data, 12)[0]
ps, tids = [], set()
while at + 8 <= len(data):
    typ, src, size = struct.unpack_from('<HHI', data, at)
    if size < 8:
        break
    if typ == 1:	# ST_REC_SAMPLE: pid, tid, time, ip, period
        pid, tid, time, ip, period = struct.unpack_from('<IIQQQ', data, at + 8)
        if time > since:
            ps.append(period)
            tids.add(tid)
    at += size
print(len(ps), min(ps) if ps else 0, max(ps) if ps else 0, len(tids))
PY
}

# change_in_ui NAME KEYS WANT SHIMTOP-ARGS...: runs shimtop -o in the UI,
# presses KEYS once samples flow, waits for the header to show WANT, and
# records in $TMP/NAME.since when (CLOCK_MONOTONIC ns) plus a second.
change_in_ui() {
	name=$1 keys=$2 want=$3
	shift 3
	ui_session -x 160 -y 40 "env LANG=C.UTF-8 SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' \
-o '$TMP/$name.rec' $* 2>'$TMP/$name.err'; touch '$TMP/$name.done'; sleep 30"
	wait_for "samples [1-9]" "$name: no samples" || return 1
	for k in $keys; do
		$T send-keys -t ui "$k"
		sleep 0.2
	done
	wait_for "period $want" "$name: the header never showed period $want" || return 1
	python3 -c "import time; print(time.monotonic_ns() + 1000000000)" >"$TMP/$name.since"
}

# quit NAME: q, and once shimtop has ended (its recording written whole:
# the screen goes before that, and a loaded machine takes a while).
quit() {
	$T send-keys -t ui q
	wait_exists "$TMP/$1.done" 60 || { fail "$1: shimtop did not quit"; return 1; }
}

# check NAME LOW HIGH [MIN_TIDS]: every sample after the grace has a period in [LOW, HIGH].
check() {
	set -- "$1" "$2" "$3" "${4:-1}" $(periods "$TMP/$1.rec" "$(cat "$TMP/$1.since")")
	echo "$1: $5 samples after the change, periods $6-$7, $8 threads"
	[ "$5" -gt 20 ] || fail "$1: only $5 samples after the change"
	[ "$6" -ge "$2" ] && [ "$7" -le "$3" ] ||
		fail "$1: periods $6-$7 after the change, expected $2-$3"
	[ "$8" -ge "$4" ] || fail "$1: samples of $8 threads, expected $4 or more"
}

# A forking target: 20 children a second, each busy 1 ms; 250 us -> 2 ms.
change_in_ui fork '] ] ]' "2000000 ns" -c 250000 -- "$TESTS_BIN/forker" --rate 20 --seconds 30 &&
	sleep 4 && quit fork && check fork 1900000 2100000

# Threads born 3 s after the start, after the change: they sample at the new period too.
change_in_ui threads '] ]' "1000000 ns" -c 250000 -- "$SHIMTOP_DEMO" --threads 3 \
	--thread-delay 3 --seconds 30 &&
	{ wait_for "threads 4" "threads: the late threads never showed"; sleep 3; } &&
	quit threads && check threads 950000 1050000 4

# -F on cpu-clock: 4000 Hz, ] six times: 62 Hz, a sample every 16.1 ms (not every 62 ns).
change_in_ui freq '] ] ] ] ] ]' "62 Hz" -F 4000 -- "$TESTS_BIN/forker" --rate 5 --seconds 30 &&
	sleep 4 && quit freq && check freq 15000000 17200000

finish
