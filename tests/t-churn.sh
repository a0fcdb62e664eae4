#!/bin/sh
# t-churn.sh - processes coming and going while every view is visited:
# a shell loop starting short processes (ls, python3) and a forker
# reaping hundreds of children a second; shimtop -p of the loop and
# shimtop system-wide, each in a tmux pane, cycle through the table,
# H, P, the tree, the timeline with a range, the detail and its callers,
# the gauges, the tags and distributions, z, x and snapshots, for 60 s
# under the sanitizers (20 s otherwise); then the snapshots are compared
# (-i A --diff B: D, p, Enter).  No crash, no sanitizer report, exit 0.
# A table drawn between requeries once read threads freed after their
# exit: H crashed in seconds on such a host.
. "$TESTS_DIR/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
"$SHIMTOP" -b --duration 0.1 -p $$ >/dev/null 2>&1 ||
	skip "perf_event_open is refused here: $("$SHIMTOP" -b --duration 0.1 -p $$ 2>&1 >/dev/null)"

SECONDS_EACH=20
[ "${SHIMTOP_SANITIZED:-no}" = yes ] && SECONDS_EACH=60
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}abort_on_error=0"

# The churn, what a busy host does, all under one shell for -p: the
# forker's 200 processes a second (its parent asleep between them, not
# spinning), and real programs starting, five or so a second (back to
# back, with the forker spinning, the churn held two CPUs the whole
# test: 100 s of the sanitized suite's CPU).  The forker ends with the
# loop, not minutes into the tests after this one.
sh -c "'$TESTS_BIN/forker' --rate 200 --nap 1 --seconds $((SECONDS_EACH * 3)) >/dev/null &
	trap 'kill \$!; exit' TERM
	while :; do sh -c 'ls -R /usr/share/locale >/dev/null; python3 -c pass'; sleep 0.1; done" &
LOOP=$!
BG_PIDS="$BG_PIDS $LOOP"

T_SOCK="$TMP/tmux.sock"
T="tmux -S $T_SOCK"
pane() { $T capture-pane -p -t "$1"; }

# start NAME ARGS...: shimtop ARGS in tmux session NAME, 100x30, working in $TMP/NAME.
start() {
	name=$1
	shift
	mkdir -p "$TMP/$name"
	$T new-session -d -s "$name" -x 100 -y 30 -c "$TMP/$name" \
		"'$SHIMTOP' $* 2>'$TMP/$name.err'; echo \"EXIT=\$?\" >'$TMP/$name.exit'; sleep 600"
}

# alive NAME: false, with what the pane and stderr said, once shimtop has ended.
alive() {
	[ -e "$TMP/$1.exit" ] || return 0
	fail "shimtop $1 ended under churn ($(cat "$TMP/$1.exit")): $(head -c 3000 "$TMP/$1.err")
$(pane "$1")"
	return 1
}

# keys NAME KEY...: each key, a beat apart, so views draw between them.
keys() {
	k_name=$1
	shift
	for k in "$@"; do
		$T send-keys -t "$k_name" "$k"
		sleep 0.1
	done
}

# shows NAME REGEX: in the first round, waits for the pane to show
# REGEX (the keys reached the view they meant), else fails.
shows() {
	[ "$round" -gt 1 ] && return 0
	i=0
	until pane "$1" | grep -Eq -- "$2"; do
		i=$((i + 1))
		[ $i -lt 100 ] || { fail "$1 never showed /$2/: $(pane "$1")"; return 1; }
		alive "$1" || return 1
		sleep 0.1
	done
}

# After Enter on a diff's row: its detail, left with Esc, or the word
# that it is only in B (not a row's "(only in B)": the Enter may not
# have been read yet).
detail_or_back() {
	shows diff "^SYMBOL DETAIL|\\(a: the summary\\)\$|only in B \\("
	if pane diff | grep -Eq "^SYMBOL DETAIL|\\(a: the summary\\)\$"; then
		keys diff Escape
		shows diff "B%[v^]? +CHANGE|CALLING CONTEXT, B - A"
	fi
}

# One round of every view.  Each ends where it began: the symbol table.
visit() {
	keys "$1" 1 Down Down Down Enter
	shows "$1" "^SYMBOL DETAIL|\\(a: the summary\\)\$"
	keys "$1" c
	shows "$1" "SHARE +SAMPLES +FUNCTION"
	keys "$1" Escape Escape H
	shows "$1" "TID +PID COMMAND"
	keys "$1" Down Down '>' '>' I End Escape P
	shows "$1" "PID COMMAND +THREADS"
	keys "$1" Down '<' I Escape H P H Escape 6
	shows "$1" "CALL TREE"
	keys "$1" '*' End b Home b '%' c c c f u Escape 2
	shows "$1" "^timeline"
	keys "$1" Left Left Left '(' Left Left Left Left ')' H Escape 1 Enter Escape 2 Escape 3
	shows "$1" "gauge"
	keys "$1" 4
	shows "$1" "per-tag figures come from the observer"
	keys "$1" 5
	shows "$1" "distributions come from the observer"
	keys "$1" Down Up 1 z H Escape z x
	keys "$1" '/' p y t Enter n Escape '\' l s Enter Escape '\' Escape
}

sessions="pid"
start pid -p "$LOOP"
if "$SHIMTOP" -b --duration 0.1 -a >/dev/null 2>&1; then
	start all -a
	sessions="pid all"
else
	echo "system-wide sampling is refused here: only -p of the loop"
fi
for s in $sessions; do
	i=0
	until pane "$s" | grep -Eq "^ +[0-9.]+% +([0-9.]+% +)?[0-9]+ "; do
		i=$((i + 1))
		[ $i -lt 300 ] || { fail "$s never showed a row: $(pane "$s")"; break; }
		alive "$s" || break
		sleep 0.1
	done
done

# At least SECONDS_EACH and two rounds (the snapshots for the diff): a
# loaded host takes longer over a round, up to four times as long in all.
end=$(($(date +%s) + SECONDS_EACH))
cap=$(($(date +%s) + 4 * SECONDS_EACH))
round=1
while { [ "$(date +%s)" -lt "$end" ] || [ $round -le 2 ]; } && [ "$(date +%s)" -lt "$cap" ]; do
	for s in $sessions; do
		alive "$s" || break 2
		visit "$s"
		# Two snapshots of the loop's session, a round apart, for the diff.
		[ "$s" = pid ] && [ $round -le 2 ] && keys pid s
	done
	round=$((round + 1))
done
round=$((round - 1))
echo "$round rounds of every view in $(($(date +%s) - end + SECONDS_EACH)) s: $sessions"
[ $round -ge 2 ] || fail "only $round rounds in $((4 * SECONDS_EACH)) s"
for s in $sessions; do
	alive "$s" || continue
	keys "$s" q
	wait_exists "$TMP/$s.exit" 60 || fail "shimtop $s did not quit: $(pane "$s")"
	grep -q "^EXIT=0$" "$TMP/$s.exit" ||
		fail "shimtop $s quit with $(cat "$TMP/$s.exit"): $(head -c 3000 "$TMP/$s.err")"
	! grep -q "Sanitizer\|runtime error" "$TMP/$s.err" ||
		fail "shimtop $s: $(head -c 3000 "$TMP/$s.err")"
done

# The churn has done its work: the diff reads files, not the machine.
kill "$LOOP" 2>/dev/null

# The snapshots of the churning session, compared: every view of the diff.
set -- "$TMP"/pid/shimtop-*.snap
if [ $# -ne 2 ]; then
	fail "two snapshots expected in $TMP/pid, found: $*"
else
	start diff -i "$1" --diff "$2"
	round=1
	shows diff "A% +B% +CHANGE"
	# A row only in B has no detail (Enter says so): Esc would leave the diff.
	keys diff Down Down '>' Enter
	detail_or_back
	keys diff p
	shows diff "CALLING CONTEXT, B - A"
	keys diff Down Enter
	detail_or_back
	keys diff p Escape
	visit diff
	keys diff D
	shows diff "A% +B% +CHANGE"
	keys diff q
	wait_exists "$TMP/diff.exit" 60 || fail "the diff did not quit: $(pane diff)"
	grep -q "^EXIT=0$" "$TMP/diff.exit" ||
		fail "the diff quit with $(cat "$TMP/diff.exit"): $(head -c 3000 "$TMP/diff.err")"
	! grep -q "Sanitizer\|runtime error" "$TMP/diff.err" ||
		fail "the diff: $(head -c 3000 "$TMP/diff.err")"
fi
finish
