#!/bin/sh
# t-unprivileged.sh - shimtop as an ordinary user: its own process works
# (user-space samples only, said in the header); another user's process
# is refused with an explanation of perf_event_paranoid and capabilities.
. "$TESTS_DIR/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to switch to the user nobody"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all"
$AS_NOBODY true 2>/dev/null || skip "cannot drop to nobody here"
$AS_NOBODY test -x "$SHIMTOP" || skip "the build tree is not readable by nobody"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)

# Another user's (root's) process.
start_demo
expect_run 1 "no permission to sample process $DEMO_PID \(kernel.perf_event_paranoid is $paranoid\).*CAP_PERFMON" -- \
	$AS_NOBODY "$SHIMTOP" --batch --duration 1 -p "$DEMO_PID"

# Its own process, launched.
cd "$TMP" && chmod 755 "$TMP"
# (Its phases run 0.5 s after its set-up, however slow the machine is.)
$AS_NOBODY "$SHIMTOP" --batch -- "$SHIMTOP_DEMO" --seconds 0.5 >"$TMP/out" 2>"$TMP/err"
st=$?
if [ "$paranoid" -ge 2 ]; then
	[ "$st" -eq 0 ] || fail "own process as nobody: status $st: $(cat "$TMP/err")"
	grep -q "kernel samples excluded (perf_event_paranoid)" "$TMP/out" ||
		fail "no note that kernel samples are excluded: $(head -4 "$TMP/out")"
	grep -q "phase_compute" "$TMP/out" || fail "own process as nobody: no symbols"
elif [ "$paranoid" -ge 3 ]; then
	[ "$st" -eq 1 ] || fail "paranoid 3 should refuse"
fi
finish
