#!/bin/sh
# t-check.sh - shimtop --check on this machine: the software paths pass
# against the workload's own figures (its CPU time, its functions, main
# at the root, the observer's period against its floor, DTE against a
# counter's physical bound), the hardware ones skip with what is missing where the
# machine lacks them (these VMs have no PMU, no IBS); --json says the
# same for a bug report; a workload that does no work fails the sampling
# check with both figures and exit 1; a command after it is refused.
. "$TESTS_DIR/lib.sh"
# The observer's period against its floor wants both CPUs for --check's
# workloads: not beside another test that asks as much.
one_at_a_time

"$SHIMTOP" --check >"$TMP/text" 2>"$TMP/err" || fail "--check failed ($?): $(cat "$TMP/text" "$TMP/err")"
for row in "sampling, cpu-clock" "symbols" "call chains, frame pointers" "call chains, unwound"; do
	grep -q "^PASS  $row " "$TMP/text" || fail "--check: $row does not pass: $(cat "$TMP/text")"
done
grep -Eq "^shimtop [0-9.]+ --check on .*, kernel $(uname -r), perf_event_paranoid -?[0-9]+, PMU " \
	"$TMP/text" || fail "--check does not say what machine it ran on: $(head -1 "$TMP/text")"
grep -Eq "^[0-9]+ passed, [0-9]+ skipped, 0 failed" "$TMP/text" || fail "no count line: $(tail -1 "$TMP/text")"
if ! "$SHIMTOP" --list-events 2>/dev/null | grep -q "^cycles"; then
	grep -q "^SKIP  sampling, cycles  .*no hardware PMU" "$TMP/text" ||
		fail "no PMU, yet cycles is not skipped with why: $(cat "$TMP/text")"
fi
# The observer's software side runs on any x86 machine of two CPUs: its fastest period
# against the floor measured beside it, DTE on a counter of known bound.
if [ "$(nproc)" -ge 2 ] && [ "$(uname -m)" = x86_64 ]; then
	for row in "observer period" "DTE"; do
		grep -q "^PASS  $row " "$TMP/text" && continue
		# An ASan build's observer is slower than a release build's, and says so.
		[ "${SHIMTOP_SANITIZED:-no}" = yes ] && [ "$row" = "observer period" ] &&
			grep -q "^SKIP  $row .*built with AddressSanitizer" "$TMP/text" && continue
		fail "--check: $row does not pass: $(cat "$TMP/text")"
	done
fi
[ -e /sys/bus/event_source/devices/ibs_op ] ||
	grep -q "^SKIP  IBS op  .*no ibs_op PMU" "$TMP/text" || fail "IBS op is not skipped with why"

"$SHIMTOP" --check --json >"$TMP/json" 2>"$TMP/err" || fail "--check --json failed: $(cat "$TMP/err")"
python3 - "$TMP/json" <<'PY' || fail "--check --json: $(cat "$TMP/json")"
import json, os, sys
d = json.load(open(sys.argv[1]))
m = d['machine']
assert m['kernel'] == os.uname().release and m['pmu'] and 'hypervisor' in m, m
by = {c['name']: c for c in d['checks']}
assert by['sampling, cpu-clock']['result'] == 'pass', by
assert all(c['result'] in ('pass', 'skip', 'fail') and c['detail'] for c in d['checks']), d
assert d['failed'] == 0 and d['passed'] + d['skipped'] == len(d['checks']), d
PY

# A workload that does nothing: no CPU time to hold the samples against.
cat >"$TMP/idle" <<'SH'
#!/bin/sh
sleep 1
SH
chmod +x "$TMP/idle"
SHIMTOP_CHECK_WORKLOAD="$TMP/idle" "$SHIMTOP" --check >"$TMP/idle.txt" 2>&1
[ $? -eq 1 ] || fail "--check of an idle workload did not exit 1: $(cat "$TMP/idle.txt")"
grep -q "^FAIL  sampling, cpu-clock  .*no CPU time" "$TMP/idle.txt" ||
	fail "the idle workload's sampling check does not fail with why: $(cat "$TMP/idle.txt")"
expect_run 2 "--check takes no command" -- "$SHIMTOP" --check -- true
finish
