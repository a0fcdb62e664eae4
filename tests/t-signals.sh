#!/bin/sh
# t-signals.sh - how shimtop ends.  SIGHUP (a closed terminal or ssh
# session) is a stop like SIGTERM: in batch the report is printed and the
# snapshot written, exit 0; in the UI a killed terminal still leaves the
# snapshot.  A launched command never outlives shimtop, even killed by
# SIGKILL at any moment (before or after the command's exec); what the
# command started (its process group) goes with it on every ending but
# SIGKILL: HUP, TERM, INT, --duration, and the command's own exit.
. "$TESTS_DIR/lib.sh"

# gone PID: true once PID is no longer a live process (10 s).
gone() {
	i=0
	while [ $i -lt 100 ]; do
		state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
		case $state in "" | Z | X) return 0 ;; esac
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# Batch: SIGHUP once samples flow; the report and the snapshot follow.
"$SHIMTOP" --batch --snapshot-on-exit "$TMP/hup.snap" -- "$TESTS_BIN/call_paths" --seconds 60 \
	>"$TMP/report" 2>"$TMP/err" &
st_pid=$!
BG_PIDS="$BG_PIDS $st_pid"
child=$(child_of "$st_pid") || fail "shimtop launched nothing"
sleep 1
kill -HUP "$st_pid"
wait "$st_pid"
st=$?
[ "$st" -eq 0 ] || fail "batch after SIGHUP exited $st, expected 0: $(cat "$TMP/err")"
grep -q "^samples [1-9]" "$TMP/report" || fail "no report after SIGHUP: $(head -3 "$TMP/report")"
[ -s "$TMP/hup.snap" ] || fail "no snapshot after SIGHUP: $(cat "$TMP/err")"
[ -z "${child:-}" ] || gone "$child" || fail "the launched command outlived a SIGHUP'd shimtop"

# A command that starts others (sleep &): its process group ends with
# shimtop however shimtop ends, and when the command ends first.  The
# sleeps are this test's by their length (the other suite's t-signals
# may run beside it).
S=987$$
left() { pgrep -f "^sleep ${S}[0-9]$" >/dev/null; }
for how in HUP TERM INT duration exit; do
	case $how in
	duration) args="--duration 1" cmd="sleep ${S}1 & sleep ${S}2 & wait" ;;
	exit) args="--duration 30" cmd="sleep ${S}3 & sleep ${S}4 & sleep 0.5" ;;
	*) args="" cmd="sleep ${S}5 & sleep ${S}6 & wait" ;;
	esac
	# shellcheck disable=SC2086
	"$SHIMTOP" --batch $args -- sh -c "$cmd" >/dev/null 2>"$TMP/err" &
	st_pid=$!
	i=0
	until [ "$(pgrep -fc "^sleep ${S}[0-9]$")" -ge 2 ] || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	case $how in duration | exit) ;; *) kill -"$how" "$st_pid" ;; esac
	wait "$st_pid"
	st=$?
	[ "$st" -eq 0 ] || fail "shimtop ended by $how exited $st: $(cat "$TMP/err")"
	if left; then
		fail "the command's children outlived shimtop ended by $how: $(pgrep -fa "^sleep ${S}[0-9]$")"
		pkill -f "^sleep ${S}[0-9]$"
	fi
done
# SIGKILL: the command goes (the kernel's parent-death signal); what it
# started is left in its own process group, which kill -- -PGID ends.
"$SHIMTOP" --batch -- sh -c "sleep ${S}7 & sleep ${S}8 & wait" >/dev/null 2>&1 &
st_pid=$!
child=$(child_of "$st_pid")
i=0
until [ "$(pgrep -fc "^sleep ${S}[0-9]$")" -ge 2 ] || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -KILL "$st_pid"
wait "$st_pid" 2>/dev/null
[ -z "$child" ] || gone "$child" || fail "the launched command outlived a SIGKILL'd shimtop"
for p in $(pgrep -f "^sleep ${S}[0-9]$"); do
	[ "$(ps -o pgid= -p "$p" | tr -d ' ')" = "$child" ] ||
		fail "a child of the command is not in its process group $child"
done
[ -n "$child" ] && kill -- "-$child" 2>/dev/null
sleep 0.2
left && fail "kill -- -PGID left the command's children: $(pgrep -fa "^sleep ${S}[0-9]$")"
pkill -f "^sleep ${S}[0-9]$"

# The UI: its terminal killed (tmux sends SIGHUP); the snapshot is written.
command -v tmux >/dev/null || skip "tmux is not installed"
ui_session -x 100 -y 30 "env LANG=C.UTF-8 SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' \
--snapshot-on-exit '$TMP/ui.snap' -- '$TESTS_BIN/call_paths' --seconds 60 2>'$TMP/ui.err'"
wait_for "samples [1-9]" "the UI never showed samples"
ui_pid=$(pgrep -f "snapshot-on-exit $TMP/ui.snap" | head -1)
$T kill-server
i=0
while [ ! -s "$TMP/ui.snap" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$TMP/ui.snap" ] || fail "no snapshot after the UI's terminal closed: $(cat "$TMP/ui.err")"
[ -z "$ui_pid" ] || gone "$ui_pid" || fail "shimtop kept running after its terminal closed"

# SIGKILL at moments before and after the launched command's exec.
for delay in 0 0.01 0.05 0.2 0.5 1; do
	"$SHIMTOP" --batch -- sleep 600 >/dev/null 2>&1 &
	st_pid=$!
	child=$(child_of "$st_pid")
	sleep "$delay"
	kill -KILL "$st_pid"
	wait "$st_pid" 2>/dev/null
	if [ -n "$child" ] && ! gone "$child"; then
		fail "the launched command $child outlived shimtop killed after $delay s"
		kill -KILL "$child" 2>/dev/null
	fi
done

finish
