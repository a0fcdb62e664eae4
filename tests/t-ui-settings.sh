#!/bin/sh
# t-ui-settings.sh - htop's keys through tmux: F6's sort menu, F2's setup
# written to $XDG_CONFIG_HOME/shimtop/shimtoprc and read by the next
# start, a mouse click on a column title, a bad settings line reported
# without stopping the UI, the per-process table (P), all on a replayed
# fixture; live, on the demo (where the effect on sampling is the
# point): e switching the event whose shares show with -e a,b (perf
# report's Tab), [ and ] halving and doubling the sampling period with
# the rate following, R turning randomization off, Z pausing the tables
# while sampling goes on.
. "$TESTS_DIR/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"
CFG=$TMP/config
RC=$CFG/shimtop/shimtoprc
"$TESTS_BIN/gen_records" chains "$TMP/chains.rec" >/dev/null || fail "gen_records chains failed"

# start ARGS: shimtop with the settings in $CFG, once its table shows.
start() {
	ui_session -x 110 -y 30 \
		"env XDG_CONFIG_HOME='$CFG' SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' $* 2>'$TMP/err'; sleep 30"
	wait_for "^ +SELF%"
}
# replay: the chains fixture, read to its end.
replay() {
	start -i "$TMP/chains.rec"
	wait_for "end of recording|elapsed 0\.4 s"	# the brief header has no status line
}
title() { screen | grep -E "^ +SELF%" | head -1; }

replay
wait_for "gen_fn_a"
# F6: the menu lists the columns, the current one selected; Enter sorts.
$T send-keys -t ui F6
wait_for "^Sort by"
screen | grep -q "^PID COMMAND" && fail "F6 offers PID COMMAND for one process"
$T send-keys -t ui Down Down Down Enter
wait_for "SYMBOLv"
# A click on the IPC title sorts by it (X10 mouse report: button 1 press, release).
x=$(title | awk '{ print index($0, "IPC") }')
y=$(screen | grep -nE "^ +SELF%" | head -1 | cut -d: -f1)
printf '\033[M %b%b\033[M#%b%b' "\\0$(printf %o $((x + 32)))" "\\0$(printf %o $((y + 32)))" \
	"\\0$(printf %o $((x + 32)))" "\\0$(printf %o $((y + 32)))" >"$TMP/click"
$T send-keys -t ui -l "$(cat "$TMP/click")"
wait_for "IPCv"
# Back to SYMBOL with the menu (it opens on IPC now), then F2: hide
# MODULE, brief header, save.
$T send-keys -t ui F6
wait_for "^Sort by"
$T send-keys -t ui Down Down Enter
wait_for "SYMBOLv"
$T send-keys -t ui F2
wait_for "^Setup"
$T send-keys -t ui Down Down Down Down Down Down Enter
wait_for "Column MODULE \\(symbols\\) +hidden"
$T send-keys -t ui Down Enter
wait_for "Header +brief"
$T send-keys -t ui Escape
wait_for "settings saved to $RC"
title | grep -q MODULE && fail "MODULE still shown after F2 hid it: $(title)"
[ -f "$RC" ] || fail "F2 wrote no $RC"
grep -qx "module = false" "$RC" || fail "shimtoprc lacks module = false: $(cat "$RC")"
grep -qx "sort = symbol" "$RC" || fail "shimtoprc lacks sort = symbol: $(cat "$RC")"
grep -qx "header = brief" "$RC" || fail "shimtoprc lacks header = brief: $(cat "$RC")"
$T send-keys -t ui q
sleep 0.5

# The next start reads it: sorted by symbol, no MODULE, two header lines.
replay
wait_for "SYMBOLv"
title | grep -q MODULE && fail "restart shows MODULE: $(title)"
screen | grep -q "^samples" && fail "restart shows the full header: $(screen | head -4)"
$T send-keys -t ui q
sleep 0.5

# A line shimtop does not know: one warning, the rest still read.
printf '[display]\nsort = ipc\ncolour = pink\n' >"$RC"
replay
wait_for "IPCv"
grep -q "colour = pink is not a setting shimtop knows" "$TMP/err" ||
	fail "no warning for the bad line: $(cat "$TMP/err")"
# P: the per-process table; H switches to threads, Esc returns.
$T send-keys -t ui P
wait_for "^ +PID COMMAND +THREADS"
wait_for "^ +1 \\? +1 +400 "
$T send-keys -t ui H
wait_for "^ +TID +PID COMMAND"
# F2 hides a column of any declared table: the threads' IPC, found by search.
$T send-keys -t ui F2
wait_for "^Setup"
screen | grep -Eq "Column COMMAND \\(processes\\) +shown" ||
	fail "F2 offers no process table columns: $(screen)"
$T send-keys -t ui / && $T send-keys -t ui -l "IPC (threads" && $T send-keys -t ui Enter Enter
wait_for "Column IPC \\(threads\\) +hidden"
$T send-keys -t ui Escape
wait_for "^ +TID +PID COMMAND +SAMPLES +SHARE +STATE"
grep -qx "threads.ipc = false" "$RC" || fail "shimtoprc lacks threads.ipc = false: $(cat "$RC")"
grep -qx "processes.ipc = true" "$RC" || fail "shimtoprc lacks processes.ipc = true: $(cat "$RC")"
$T send-keys -t ui Escape
wait_for "IPCv"
$T send-keys -t ui q
sleep 0.5
# The next start hides it; a column no table has is named, the rest still read.
printf '[display]\nsort = ipc\n[columns]\nthreads.ipc = false\nthreads.colour = false\n' >"$RC"
replay
wait_for "IPCv"
grep -q "threads.colour = false is not a setting shimtop knows" "$TMP/err" ||
	fail "no warning for threads.colour: $(cat "$TMP/err")"
$T send-keys -t ui H
wait_for "^ +TID +PID COMMAND +SAMPLES +SHARE +STATE"
$T send-keys -t ui Escape
wait_for "IPCv"
$T send-keys -t ui q
sleep 0.5

# [ and ]: the header says the new period at once, and the samples (each
# carries its period) follow within a second; the demo keeps one CPU busy.
rm -f "$RC"
start --demo
wait_for "phase_compute"
sleep 2
# The effect, checked in the samples (the header compares their periods
# with the one asked for), not by rates, which a busy machine bends.
applied() {
	sleep 1.5	# past the header's second of grace
	screen | grep -q "NOT APPLIED" && fail "$1: $(screen | grep 'NOT APPLIED')"
}
$T send-keys -t ui '['
wait_for "period 125000 ns \\+/-3% \\(was 250000 ns \\+/-3%\\)"
wait_for "^perf cpu-clock  period 125000 ns \\+/-3% \\(8000/s a busy thread\\)"
applied "["
$T send-keys -t ui ']' ']'
wait_for "^perf cpu-clock  period 500000 ns \\+/-3% \\(2000/s a busy thread\\)"
applied "] ]"
$T send-keys -t ui R
wait_for "period randomization off"
wait_for "^perf cpu-clock  period 500000 ns \\(2000/s a busy thread\\) *$"
# Z: the table holds still while the header's count moves on; Z resumes.
body() { screen | sed -n '/SELF%/,$p' | sed -n 2,4p; }
count() { screen | sed -n 's/^samples \([0-9.]*[kM]*\) .*/\1/p'; }
$T send-keys -t ui Z
wait_for "PAUSED: the tables hold still"
b1=$(body) c1=$(count)
sleep 2.5
b2=$(body) c2=$(count)
[ "$b1" = "$b2" ] || fail "Z did not freeze the table: $b1 / $b2"
[ "$c1" != "$c2" ] || fail "sampling stopped while paused: samples $c1, then $c2"
$T send-keys -t ui Z
wait_for "resumed: the tables catch up"
sleep 1.5
[ "$(body)" != "$b2" ] || fail "the table did not move after Z resumed"
$T send-keys -t ui q
sleep 0.5

# -e a,b: SELF% of the first event, a column for the other; e swaps them.
rm -f "$RC"
start --demo -e cpu-clock,task-clock
wait_for "SELF% of +cpu-clock \\(e\\)"
title | grep -Eq "SELF%v? +task-clock " || fail "no task-clock column: $(title)"
$T send-keys -t ui e
wait_for "SELF% of +task-clock \\(e\\)"
title | grep -Eq "SELF%v? +cpu-clock " || fail "e left the columns: $(title)"
$T send-keys -t ui q
sleep 0.3
$T kill-server 2>/dev/null
finish
