#!/bin/sh
# t-threads.sh - threads created after sampling starts are followed, for
# a launched command and for a process attached with -p.
. "$TESTS_DIR/lib.sh"

"$SHIMTOP" --batch --duration 2.5 --format json -- "$SHIMTOP_DEMO" \
	--threads 2 --thread-delay 0.5 >"$TMP/launch" 2>"$TMP/err" ||
	fail "launch failed: $(cat "$TMP/err")"
n=$(json_get "$TMP/launch" "d['threads']['seen']")
[ "$n" -ge 3 ] || fail "launched: saw $n threads, expected 3"

start_demo --threads 2 --thread-delay 1
"$SHIMTOP" --batch --duration 2.5 --format json -p "$DEMO_PID" \
	>"$TMP/attach" 2>"$TMP/err" || fail "attach failed: $(cat "$TMP/err")"
n=$(json_get "$TMP/attach" "d['threads']['seen']")
[ "$n" -ge 3 ] || fail "attached: saw $n threads, expected 3 (2 born later)"
# Two busy threads on two CPUs: more than one CPU's worth of samples.
rate=$(json_get "$TMP/attach" "int(d['rate'])")
[ "$rate" -gt 5000 ] || fail "attached: $rate samples/s, expected over 5000 with 3 threads"
finish
