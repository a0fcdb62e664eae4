#!/bin/sh
# t-threads.sh - threads created after sampling starts are followed, for
# a launched command and for a process attached with -p.
. "$TESTS_DIR/lib.sh"

"$SHIMTOP" --batch --duration 2.5 --format json -- "$SHIMTOP_DEMO" \
	--threads 2 --thread-delay 0.5 >"$TMP/launch" 2>"$TMP/err" ||
	fail "launch failed: $(cat "$TMP/err")"
n=$(json_get "$TMP/launch" "d['threads']['seen']")
[ "$n" -ge 3 ] || fail "launched: saw $n threads, expected 3"
# The per-thread table: each of the three threads, with its own top symbols,
# and shares that add up to the whole.
n=$(json_get "$TMP/launch" "len([t for t in d['per_thread'] if t['samples'] and t['top']])")
[ "$n" -ge 3 ] || fail "per_thread lists $n threads with samples, expected 3"
sum=$(json_get "$TMP/launch" "round(sum(t['share'] for t in d['per_thread']))")
[ "$sum" -eq 100 ] || fail "per-thread shares add up to $sum%, expected 100%"
"$SHIMTOP" --batch --duration 2.5 -H -- "$SHIMTOP_DEMO" --threads 1 >"$TMP/text" 2>"$TMP/err" ||
	fail "-H failed: $(cat "$TMP/err")"
grep -q "^ *TID *PID COMMAND" "$TMP/text" || fail "-H printed no per-thread table"
[ "$(grep -c " live \| exited " "$TMP/text")" -ge 2 ] || fail "-H lists fewer than 2 threads"

start_demo --threads 2 --thread-delay 1
"$SHIMTOP" --batch --duration 2.5 --format json -p "$DEMO_PID" \
	>"$TMP/attach" 2>"$TMP/err" || fail "attach failed: $(cat "$TMP/err")"
n=$(json_get "$TMP/attach" "d['threads']['seen']")
[ "$n" -ge 3 ] || fail "attached: saw $n threads, expected 3 (2 born later)"
# Two busy threads on two CPUs: more than one CPU's worth of samples.
rate=$(json_get "$TMP/attach" "int(d['rate'])")
[ "$rate" -gt 5000 ] || fail "attached: $rate samples/s, expected over 5000 with 3 threads"
finish
