#!/bin/sh
# t-threads.sh - threads created after sampling starts are followed, for
# a launched command and for a process attached with -p.
. "$TESTS_DIR/lib.sh"

# (The demo's times count from the end of its set-up, however slow: the
# session ends when it does, not after a fixed time that a busy machine
# could spend in the set-up.)
"$SHIMTOP" --batch --format json -- "$SHIMTOP_DEMO" \
	--threads 2 --thread-delay 0.5 --seconds 1.5 >"$TMP/launch" 2>"$TMP/err" ||
	fail "launch failed: $(cat "$TMP/err")"
n=$(json_get "$TMP/launch" "d['threads']['seen']")
[ "$n" -ge 3 ] || fail "launched: saw $n threads, expected 3"
# The per-thread table: each of the three threads, with its own top symbols,
# and shares that add up to the whole.
n=$(json_get "$TMP/launch" "len([t for t in d['per_thread'] if t['samples'] and t['top']])")
[ "$n" -ge 3 ] || fail "per_thread lists $n threads with samples, expected 3"
sum=$(json_get "$TMP/launch" "round(sum(t['share'] for t in d['per_thread']))")
[ "$sum" -eq 100 ] || fail "per-thread shares add up to $sum%, expected 100%"
"$SHIMTOP" --batch -H -- "$SHIMTOP_DEMO" --threads 1 --seconds 1 >"$TMP/text" 2>"$TMP/err" ||
	fail "-H failed: $(cat "$TMP/err")"
grep -q "^ *TID *PID COMMAND" "$TMP/text" || fail "-H printed no per-thread table"
[ "$(grep -c " live \| exited " "$TMP/text")" -ge 2 ] || fail "-H lists fewer than 2 threads"

# Attached before the two threads are born (1 s after the demo's set-up,
# however long that takes here), stopped 1.5 s after they are.
start_demo --threads 2 --thread-delay 1
"$SHIMTOP" --batch --format json -p "$DEMO_PID" >"$TMP/attach" 2>"$TMP/err" &
SHIMTOP_PID=$!
i=0
while [ "$(ls "/proc/$DEMO_PID/task" 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1.5
kill -INT "$SHIMTOP_PID"
wait "$SHIMTOP_PID" || fail "attach failed: $(cat "$TMP/err")"
n=$(json_get "$TMP/attach" "d['threads']['seen']")
[ "$n" -ge 3 ] || fail "attached: saw $n threads, expected 3 (2 born later)"
# The two threads born after the attach are sampled as they run: each
# of the three busy threads has its share (not a rate: that would depend
# on how many CPUs the machine lends the test).
shares=$(json_get "$TMP/attach" "sorted(round(t['share']) for t in d['per_thread'] if t['samples'])")
json_get "$TMP/attach" "sorted(t['share'] for t in d['per_thread'] if t['samples'])[-3:]" |
	python3 -c "import ast,sys; s = ast.literal_eval(sys.stdin.read()); sys.exit(not (len(s) == 3 and min(s) > 10))" ||
	fail "attached: thread shares $shares, expected three threads over 10% each"
finish
