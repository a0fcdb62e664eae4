#!/bin/sh
# t-observer-bad-input.sh - every way the observer can be pointed wrong
# ends in one line that names the problem and what to do, with a non-zero
# status: no segment (how to enable it), a segment owned by someone else,
# open to others, or of another version; --signal names that are missing,
# functions, too big or thread-local; a launched program that never makes
# a segment; CPUs that do not exist or are the target's only one;
# malformed values.
. "$TESTS_DIR/lib.sh"

# write_segment PID VERSION MODE: a segment for PID, as a program would make it.
write_segment() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
pid, version = int(sys.argv[1]), int(sys.argv[2])
head = b"SHIMSIG1" + struct.pack("<IIIIII", version, 4096, 64, 256, pid, 1)
with open(f"/dev/shm/shimtop-{pid}", "wb") as f:
    f.write(head.ljust(4096, b"\0") + bytes(256 * 64))
PY
	chmod "$3" "/dev/shm/shimtop-$1"
}

start_demo --no-signals
seg=/dev/shm/shimtop-$DEMO_PID
expect_run 1 "process $DEMO_PID publishes no signal segment .*shimtop_signals_open\(\).*--signal NAME" -- \
	"$SHIMTOP" --batch --duration 1 --observe -p "$DEMO_PID"

write_segment "$DEMO_PID" 2 600
expect_run 1 "is version 2, not 1.*rebuild the program" -- \
	"$SHIMTOP" --batch --duration 1 --observe -p "$DEMO_PID"
write_segment "$DEMO_PID" 1 644
expect_run 1 "is open to other users \(mode 644\)" -- \
	"$SHIMTOP" --batch --duration 1 --observe -p "$DEMO_PID"
if [ "$(id -u)" -eq 0 ]; then
	write_segment "$DEMO_PID" 1 600
	chown nobody "$seg"
	expect_run 1 "belongs to uid [0-9]+, but process $DEMO_PID runs as uid 0: refusing" -- \
		"$SHIMTOP" --batch --duration 1 --observe -p "$DEMO_PID"
fi
# A well-formed segment is taken (the demo never writes it: no samples with
# threads, but the observer runs and the report says so).
write_segment "$DEMO_PID" 1 600
chown "$(id -u)" "$seg"
"$SHIMTOP" --batch --duration 1 --observe -p "$DEMO_PID" >"$TMP/out" 2>"$TMP/err" ||
	fail "a valid segment was refused: $(cat "$TMP/err")"
grep -q "^observer: shared memory" "$TMP/out" || fail "valid segment not observed: $(cat "$TMP/out")"
rm -f "$seg"

# --signal names.
expect_run 1 "--signal no_such_variable: no such symbol in the executable or libraries of process $DEMO_PID" -- \
	"$SHIMTOP" --batch --duration 1 -p "$DEMO_PID" --signal no_such_variable
expect_run 1 "--signal main: .* defines it as a function, not a data object" -- \
	"$SHIMTOP" --batch --duration 1 -p "$DEMO_PID" --signal main
expect_run 1 "--signal shimtop_demo_phase_items: it is 40 bytes; shimtop reads variables of 1, 2, 4 or 8 bytes" -- \
	"$SHIMTOP" --batch --duration 1 -p "$DEMO_PID" --signal shimtop_demo_phase_items
expect_run 1 "--signal my_slot: a thread-local variable" -- \
	"$SHIMTOP" --batch --duration 1 -p "$DEMO_PID" --signal my_slot
expect_run 2 "the kind after ':' must be 'tag' or 'counter'" -- \
	"$SHIMTOP" --batch --duration 1 -p "$DEMO_PID" --signal shimtop_demo_items:rate
expect_run 2 "give at most 4 counters and one tag" -- \
	"$SHIMTOP" --batch --duration 1 -p "$DEMO_PID" --signal shimtop_demo_items:tag \
	--signal shimtop_demo_phase:tag
# A launched command is looked up after exec, and still refused cleanly.
expect_run 1 "--signal no_such_variable: no such symbol" -- \
	"$SHIMTOP" --batch --duration 1 --signal no_such_variable -- "$SHIMTOP_DEMO" --seconds 3
# A launched program that never makes a segment: after the 5 s wait the
# observer gives up and says why; perf sampling goes on, nothing lost.
"$SHIMTOP" --batch --observe -- "$SHIMTOP_DEMO" --no-signals --seconds 6 \
	>"$TMP/out" 2>"$TMP/err" || fail "run without a segment failed: $(cat "$TMP/err")"
grep -q "^observer: no samples: process [0-9]* publishes no signal segment .*shimtop_signals_open()" \
	"$TMP/out" || fail "no reason given for the missing segment: $(cat "$TMP/out")"
grep -q "phase_compute" "$TMP/out" || fail "the perf table was lost: $(cat "$TMP/out")"

# CPUs.
expect_run 2 "--observer-cpu 4095: no such CPU is online" -- \
	"$SHIMTOP" --batch --duration 1 --observe -p "$DEMO_PID" --observer-cpu 4095
if [ "$(nproc)" -ge 2 ]; then
	taskset -c 1 "$SHIMTOP_DEMO" --ready-file "$TMP/pinned-ready" --seconds 5 &
	pinned=$!
	BG_PIDS="$BG_PIDS $pinned"
	# Pinned (taskset did its part) once the demo has run its set-up.
	wait_exists "$TMP/pinned-ready" || fail "the pinned demo did not start in 20 s"
	expect_run 2 "--observer-cpu 1 is the only CPU the target may run on" -- \
		"$SHIMTOP" --batch --duration 1 --observe -p "$pinned" --observer-cpu 1
	# Left to choose, the observer goes elsewhere and works.
	"$SHIMTOP" --batch --duration 1 --observe -p "$pinned" >"$TMP/out" 2>"$TMP/err" ||
		fail "observer refused a pinned target: $(cat "$TMP/err")"
	grep -q "observer on CPU 0 " "$TMP/out" || fail "observer not moved off the target's CPU: $(cat "$TMP/out")"
fi

# Malformed values.
expect_run 2 "--dte-tolerance needs a fraction between 0 and 1" -- \
	"$SHIMTOP" --batch --dte-tolerance 2
expect_run 2 "--observer-period needs TSC cycles" -- \
	"$SHIMTOP" --batch --observer-period fast
expect_run 2 "--observer-cpu needs a CPU number" -- \
	"$SHIMTOP" --batch --observer-cpu -3
finish
