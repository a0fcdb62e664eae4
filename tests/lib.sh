# lib.sh - helpers for the end-to-end tests.  Each test is a script that
# exits 0 (pass), 1 (fail) or 77 (skipped, saying why).
set -u
: "${SHIMTOP:?run through make check}"
: "${SHIMTOP_DEMO:?run through make check}"
TMP=$(mktemp -d /tmp/shimtop-test.XXXXXX)
# Debian's python3 (the tests' package list) first on PATH, for the tests
# and what they start: a shim before it (pyenv's, on these machines) runs
# four bash processes before Python, 0.45 s of CPU a call, a fifth of the
# suite's CPU; and the programs profiled are then Debian's, as said.
if [ -x /usr/bin/python3 ]; then
	mkdir "$TMP/bin" && ln -s /usr/bin/python3 "$TMP/bin/python3" && PATH=$TMP/bin:$PATH
fi
failures=0
BG_PIDS=""
LEFT_FILES=""	# files outside $TMP a test made, e.g. a killed target's segment

cleanup() {
	[ -n "${T_SOCK:-}" ] && tmux -S "$T_SOCK" kill-server 2>/dev/null
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for f in $LEFT_FILES; do rm -f "$f"; done
	rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# expect_run STATUS PATTERN -- CMD...: runs CMD, checks its exit status and
# that its stderr matches PATTERN (an extended regex).  Its variables are
# its own (er_*): a caller's $want or $pattern must survive it.
expect_run() {
	er_status=$1 er_pattern=$2
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	er_got=$?
	if [ "$er_got" -ne "$er_status" ]; then
		fail "'$*' exited $er_got, expected $er_status; stderr: $(cat "$TMP/err")"
	elif ! grep -Eq -- "$er_pattern" "$TMP/err"; then
		fail "'$*' stderr lacks /$er_pattern/: $(cat "$TMP/err")"
	fi
	# Errors are one line.
	if [ "$er_status" -ne 0 ] && [ "$(grep -c . "$TMP/err")" -gt 1 ]; then
		fail "'$*' printed more than one line of error: $(cat "$TMP/err")"
	fi
}

# one_at_a_time: from here to the test's end (or one_at_a_time_done), no
# other test that asked runs: for a test that times what shimtop does,
# counts its samples against CPU time, or needs the CPUs for its targets,
# which two such tests side by side on two CPUs would skew.  The rest of
# the suite runs beside it (make -j check), so it must still hold beside
# one other busy test.  The lock (flock) is held by a process of its own
# that watches this test, so nothing this test starts inherits it.
one_at_a_time() {
	rm -f "$TMP/alone"
	(
		flock 9 && echo >"$TMP/alone"
		while kill -0 $$ 2>/dev/null && [ -e "$TMP/alone" ]; do sleep 0.2; done
	) 9>>"${SHIMTOP_TEST_LOCK:-/tmp/shimtop-tests.lock}" &
	ALONE_PID=$!
	BG_PIDS="$BG_PIDS $ALONE_PID"
	# Others may hold it for minutes: wait as long as the suite may run.
	wait_exists "$TMP/alone" 3600 || fail "the tests' lock was never free"
}
one_at_a_time_done() {
	rm -f "$TMP/alone"
	wait "$ALONE_PID" 2>/dev/null
}

# run_and_time CMD...: runs CMD (stdin /dev/null), and sets RAN_WALL to the
# seconds it took and RAN_OWN to those less the time its main thread
# waited for a CPU (the kernel's schedstat, read as it ran): how late a
# command returned on its own account, not a busy machine's.  Its status
# is CMD's.
run_and_time() {
	python3 -c '
import subprocess, sys, time
t0, waited = time.monotonic(), 0
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL)
while p.poll() is None:
    try:
        waited = int(open("/proc/%d/schedstat" % p.pid).read().split()[1])
    except (OSError, IndexError, ValueError):
        pass
    time.sleep(0.05)
wall = time.monotonic() - t0
open(sys.argv[1], "w").write("%.2f %.2f\n" % (wall, wall - waited / 1e9))
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)' "$TMP/ran" "$@"
	rat_status=$?
	read -r RAN_WALL RAN_OWN <"$TMP/ran" || RAN_WALL=0 RAN_OWN=0
	return $rat_status
}

# start_demo ARGS...: runs the demo in the background and returns once
# its set-up is done (its phases run); sets DEMO_PID.
start_demo() {
	rm -f "$TMP/demo-ready"
	"$SHIMTOP_DEMO" --ready-file "$TMP/demo-ready" "$@" &
	DEMO_PID=$!
	BG_PIDS="$BG_PIDS $DEMO_PID"
	# Its phases have begun: however slow the set-up, what follows sees them.
	wait_exists "$TMP/demo-ready" 30 || fail "the demo did not finish its set-up in 30 s"
}

# wait_exists FILE [SECONDS]: true once FILE exists (default 20 s).
wait_exists() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt $((${2:-20} * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

# json_get FILE EXPR: evaluates a Python expression over the JSON in FILE (d).
json_get() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# The UI tests' view of a tmux pane: set T (the tmux command with its
# socket) first.  screen prints the pane "ui".  wait_for REGEX [WHAT]
# waits up to 20 s for it to show REGEX, wait_gone REGEX [WHAT] for REGEX
# to leave it, else each fails with WHAT and the screen.  A check made
# once, right after another line showed, can read half a frame: tmux
# parses a redraw wider than the pty's buffer in several reads.
screen() { $T capture-pane -p -t ui; }
wait_for() {
	i=0
	while [ $i -lt 200 ]; do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail "${2:-screen never showed /$1/}:
$(screen)"
	return 1
}
# screen_settled: the pane once two captures 0.2 s apart agree (up to 20
# s), for a static view read whole.
screen_settled() {
	i=0
	last=$(screen)
	while [ $i -lt 100 ]; do
		sleep 0.2
		now=$(screen)
		[ "$now" = "$last" ] && break
		last=$now
		i=$((i + 1))
	done
	printf '%s\n' "$last"
}
wait_gone() {
	i=0
	while [ $i -lt 200 ]; do
		screen | grep -Eq -- "$1" || return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail "${2:-screen kept /$1/}:
$(screen)"
	return 1
}

# ui_session TMUX-OPTION... COMMAND: a new tmux session "ui" running
# COMMAND (sets T), the last one's server killed first.  Each on a
# socket of its own: a server whose last session was just killed may
# still hold its socket and refuse the next ("server exited
# unexpectedly").
ui_session() {
	[ -n "${T_SOCK:-}" ] && tmux -S "$T_SOCK" kill-server 2>/dev/null
	UI_N=$((${UI_N:-0} + 1))
	T_SOCK="$TMP/tmux-ui$UI_N.sock"
	T="tmux -S $T_SOCK"
	$T new-session -d -s ui "$@"
}

# replay_ui FILE COLUMNS LINES [DIR]: shimtop -i FILE in the tmux pane
# "ui" of that size (sets T), working in DIR (where s writes), once the
# recording has been read to its end; quit_ui ends it.
replay_ui() {
	ui_session -x "$2" -y "$3" -c "${4:-$PWD}" \
		"env LANG=C.UTF-8 SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' -i '$1' 2>'$TMP/err'; sleep 30"
	wait_for "end of recording"
}
quit_ui() {
	$T send-keys -t ui q
	sleep 0.3
	$T kill-server 2>/dev/null
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}

# perf_start PID PERIOD [SECONDS]: perf record -e cpu-clock on PID (and
# the children it forks from now on) into $TMP/perf.data, in the
# background: for SECONDS (started beside a shimtop --duration SECONDS,
# the two windows match; a target's phases differ over time), else until
# perf_overlap stops it.
perf_start() {
	command -v perf >/dev/null || skip "perf (Debian linux-perf) is not installed"
	# A case that failed before must not leave its perf.data to the next.
	rm -f "$TMP/perf.data" "$TMP/perf.txt"
	if [ -n "${3:-}" ]; then
		perf record -q -e cpu-clock -c "$2" -p "$1" -o "$TMP/perf.data" \
			-- sleep "$3" >/dev/null 2>"$TMP/perf.err" &
	else
		perf record -q -e cpu-clock -c "$2" -p "$1" -o "$TMP/perf.data" \
			>/dev/null 2>"$TMP/perf.err" &
	fi
	perf_pid=$!
}

# perf_attached: waits (up to 20 s) until perf_start's perf has its events
# open (perf_event descriptors), so what follows is sampled by it too.
perf_attached() {
	i=0
	while [ $i -lt 200 ]; do
		ls -l "/proc/$perf_pid/fd" 2>/dev/null | grep -q 'perf_event' && return 0
		kill -0 "$perf_pid" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	fail "perf record did not open its events: $(cat "$TMP/perf.err" 2>/dev/null)"
	return 1
}

# child_of PID [NAME]: prints PID's first child (named NAME if given) once
# it exists, waiting up to 20 s; fails (status 1) if none appears.
child_of() {
	i=0
	while [ $i -lt 200 ]; do
		c=$(pgrep -P "$1" ${2:+-x "$2"} | head -1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# gone PID: true once PID has exited (up to 5 s; a loaded machine reaps late).
gone() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		[ $i -lt 50 ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 0
}

# wait_file FILE [SECONDS]: true once FILE is not empty (default 20 s).
wait_file() {
	i=0
	while [ $i -lt $((${2:-20} * 10)) ]; do
		[ -s "$1" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# perf_overlap LABEL [MIN]: stops perf_start's perf and requires the
# overlap of shimtop's per-symbol profile ($TMP/shimtop.json) with perf's
# (Inoue and Nakatani, OOPSLA 2009, §7.2, tests/overlap.py) to be >= MIN
# (default 90) percent, or, where two perfect samplers with these sample
# counts would not reach MIN (a flat profile), within 3 points of what
# they would reach (overlap.py's floor).
perf_overlap() {
	kill -INT "$perf_pid" 2>/dev/null	# a timed perf may be done already
	wait "$perf_pid"
	[ -s "$TMP/perf.data" ] || skip "perf record failed here: $(cat "$TMP/perf.err")"
	perf script -i "$TMP/perf.data" -F ip,sym >"$TMP/perf.txt" 2>/dev/null
	set -- "$1" "${2:-90}" $(python3 "$TESTS_DIR/overlap.py" "$TMP/shimtop.json" \
		"$TMP/perf.txt" 2>"$TMP/overlap.err")
	need=$(python3 -c "import sys; print('%.1f' % min(float(sys.argv[1]), float(sys.argv[2]) - 3))" \
		"$2" "${4:-100}")
	echo "overlap with perf on $1: ${3:-none}% (two independent samplers: ${4:-?}%; required $need%)"
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" \
		"${3:-0}" "$need" ||
		fail "overlap ${3:-none}% with perf on $1 is under $need%; largest differences:
$(cat "$TMP/overlap.err")"
}

# compare_with_perf PID LABEL [SECONDS [PERIOD]]: samples PID with shimtop
# (-p, batch JSON) and perf record at the same time and period (default
# 3 s at 250 us) and requires an overlap >= 90%.
compare_with_perf() {
	perf_start "$1" "${4:-250000}" "${3:-3}"
	"$SHIMTOP" --batch --duration "${3:-3}" --period "${4:-250000}" --format json \
		-p "$1" >"$TMP/shimtop.json" 2>"$TMP/err" ||
		fail "shimtop failed: $(cat "$TMP/err")"
	perf_overlap "$2"
}

# max_rss_kb OUT CMD...: runs CMD (stdout and stderr to OUT.out and
# OUT.err) and writes its exit status and its peak resident set in KiB
# to OUT ("STATUS KIB").
max_rss_kb() {
	out=$1
	shift
	python3 - "$out" "$@" <<'PY'
import resource, subprocess, sys
out = sys.argv[1]
with open(out + ".out", "w") as o, open(out + ".err", "w") as e:
    rc = subprocess.run(sys.argv[2:], stdout=o, stderr=e, stdin=subprocess.DEVNULL).returncode
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(out, "w").write(f"{rc} {kib}\n")
PY
}
