#!/bin/sh
# t-ui-timeline.sh - the timeline view through tmux: live, it is drawn
# and moves, and with the observer its phase band shows the demo's four
# phases by name; the gauges view (3) says how far to trust the numbers;
# the tags view (4) lists the phases and opens one's distribution, and
# the distribution view (5) draws the session's;
# on a recording of the demo, a range selected with the cursor and ( )
# inside one phase makes the symbol table that phase's function alone,
# the header names the range, the drill-down's time row covers it, and
# Esc gives the whole session back.
. "$TESTS_DIR/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"

start() {
	ui_session -x 120 -y 30 \
		"env LANG=C.UTF-8 SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' $* 2>'$TMP/err'; sleep 30"
}
graph() { screen | grep -E "^samples " | head -1; }
title() { screen | grep -E "^timeline " | head -1; }

# Live: Tab shows the timeline; it follows the samples as they come.
start --demo
wait_for "phase_compute"
$T send-keys -t ui Tab
wait_for "^timeline +100 ms a column +following"
wait_for "^samples +[0-9.]+/s"
g1=$(graph)
sleep 1.5
[ "$(graph)" != "$g1" ] || fail "the timeline did not move: $g1"
wait_for "^seconds +\|" "no time axis"
$T send-keys -t ui Tab
wait_for "^perf +gauge +value"
# At most 1% shed: the first second's copies can outrun a sampler the
# host delays for tens of milliseconds; the exact count is checked from
# a recording in t-record-replay.
wait_for "^ +lost +0\.[0-9][0-9]% \([0-9]+ lost, [0-9]+ dropped\) .*no samples shed, or too few" "no lost gauge"
# Tab goes on to the tags and distributions, which without an observer
# say how to get one, the call tree; then round to the table.
$T send-keys -t ui Tab
wait_for "^per-tag figures come from the observer: run with --observe"
$T send-keys -t ui Tab
wait_for "^distributions come from the observer: run with --observe"
$T send-keys -t ui Tab
wait_for "^ TOTAL% +SELF% +CALL TREE"
$T send-keys -t ui Tab
wait_for "^ +SELF%"
$T send-keys -t ui q
sleep 0.5

# The observer's rows: the phase band names the four phases, a letter
# each, and the work counter's rate, down to single samples; its gauges
# say how DTE judged.
start --demo --observe
wait_for "phase_compute"
$T send-keys -t ui 2
wait_for "^phase  "
# Columns half a phase wide, so each phase has a column of its own
# wherever its 100 ms fall.
# Zooming a live view keeps it live: frozen at the keypress, it would hold
# only what the observer had sent by then.
$T send-keys -t ui +
wait_for "^timeline +50 ms a column +following"
# The observer starts after the perf table shows (seconds later under
# ASan): wait, up to 10 s, for its first whole round of four phases.
band_complete() {
	legend=$(screen | sed -n '/^phase /{n;p}')
	band=$(screen | grep "^phase " | cut -c23-)
	for p in compute pointer_chase branchy recursive; do
		echo "$legend" | grep -Eq "[a-e]=$p( |\$)" || return 1
	done
	[ "$(echo "$band" | grep -o "[a-e]" | sort -u | wc -l)" -ge 4 ]
}
i=0
while ! band_complete && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
for p in compute pointer_chase branchy recursive; do
	echo "$legend" | grep -Eq "[a-e]=$p( |\$)" || fail "the band's legend lacks $p: $legend"
done
[ "$(echo "$band" | grep -o "[a-e]" | sort -u | wc -l)" -ge 4 ] || fail "the band shows fewer than 4 phases: $band"
wait_for "^work items +[0-9.e+]+/s" "no work items rate row"
# Zoomed below a millisecond a column (14 halvings: 3 us), following the
# observer's newest sample: its single samples, tag and all.
for i in $(seq 1 14); do $T send-keys -t ui +; done
$T send-keys -t ui End
wait_for "^timeline +[0-9.]+ us a column +following"
wait_for "single samples: [a-e]=(compute|pointer_chase|branchy|recursive)"
$T send-keys -t ui 3
wait_for "^observer +gauge +value"
wait_for "^ +DTE accepted +[0-9.]+%" "no DTE gauge"
# The tags view (4): the four phases with their time share and the work
# counter's rate; Enter on one gives its distribution, Esc returns.
$T send-keys -t ui 4
wait_for "^ +TIME% +SAMPLES +phase +work items"
# Waited for, not read once: a tag's row appears with its first rate.
for p in compute pointer_chase branchy recursive; do
	wait_for "^ +[0-9.]+% +[0-9]+ +$p +[0-9.e+]+/s \("
done
# samples_shown: the distribution's samples, busy and idle.
samples_shown() {
	screen | sed -n 's/^idle: [0-9]* of \([0-9]*\) samples.*/\1/p; s/^n \([0-9]*\) .*/\1/p' | head -1
}
$T send-keys -t ui Enter
wait_for "^distribution of work items per second, phase [a-z_]+"
# The busy intervals' figures, the idle ones (the counter still) apart:
# the median is a rate, not the 0 the idle ones made it.
wait_for "^(busy )?n [0-9]+ +mean [0-9.e+]+ +sd [0-9.e+]+ .*median [1-9]" "no statistics for the tag"
$T send-keys -t ui Escape
wait_for "^ +TIME% +SAMPLES +phase"
# ] in the observer's views doubles the observer's period, not perf's.
$T send-keys -t ui ]
wait_for "observer period 4000 cycles \(was 2000\)"
# The distribution view (5), the whole session's; Down: CPC, about 1.
$T send-keys -t ui 5
wait_for "^distribution of work items per second, the whole session"
$T send-keys -t ui Down
wait_for "^distribution of CPC"
# The median: one preempted sample (a CPC of 24,000) moves the mean past 1.1.
wait_for "^(busy )?n [0-9]+ .* median (0\.9|1\.0)" "CPC's median is not near 1"
# A range of 20 columns of 50 ms, a second back: the tags view gives the
# phases' time shares and rates in it (adding up to 100%), the work
# counter's distribution is cut again for it (fewer samples than the
# session's), CPC's says it is the session's; Esc clears.
$T send-keys -t ui 2
wait_for "^timeline "
# The view opens again at 100 ms a column; + halves it.
$T send-keys -t ui +
wait_for "^timeline +50 ms a column +following"
$T send-keys -t ui End
$T send-keys -t ui -N 30 Left
$T send-keys -t ui '('
wait_for "range starts at"
$T send-keys -t ui -N 20 Right
$T send-keys -t ui ')'
wait_for "range [0-9.]+-[0-9.]+ s: every table shows it alone"
$T send-keys -t ui 4
wait_for "^range [0-9.]+-[0-9.]+ s: time and work items per second in it"
wait_for "^ +[0-9.]+% +[0-9]+ +(compute|pointer_chase|branchy|recursive) +[0-9.e+]+/s"
sum=$(screen | sed -n 's/^ *\([0-9.]*\)% .*/\1/p' | awk '{ s += $1 } END { printf "%.1f", s }')
python3 -c "import sys; sys.exit(0 if 99.0 <= float(sys.argv[1]) <= 101.0 else 1)" "$sum" ||
	fail "the range's tag shares add up to $sum%: $(screen)"
$T send-keys -t ui 5
$T send-keys -t ui Up
wait_for "^distribution of work items per second, the selected range, per (sample|millisecond)"
n_range=$(samples_shown)
$T send-keys -t ui Down
wait_for "^distribution of CPC \(DTE's clock ratio\), the whole session \(a range cuts again only"
$T send-keys -t ui 2
wait_for "^timeline "
$T send-keys -t ui Escape
wait_for "range cleared"
# The range holds fewer samples than the session it was cut from, counted
# after it (the session read before it may have been younger than it).
$T send-keys -t ui 5
$T send-keys -t ui Up
wait_for "^distribution of work items per second, the whole session"
n_session=$(samples_shown)
[ -n "$n_range" ] && [ -n "$n_session" ] && [ "$n_range" -gt 0 ] && [ "$n_range" -lt "$n_session" ] ||
	fail "the range's distribution has $n_range samples, the session's $n_session: $(screen)"
$T send-keys -t ui 4
wait_for "^ +TIME% +SAMPLES +phase +work items"
$T send-keys -t ui q
sleep 0.5

# A recording whose phases the batch --range finds: a 60 ms window where
# one phase function has nearly every sample.  The phases' slices timed in
# the demo's CPU time (--rounds): a loaded machine stretches them, and its
# set-up, in wall time, but never mixes them; the windows tried step over
# the whole recording, however long that made it.
"$SHIMTOP" -b -o "$TMP/rec" -- "$SHIMTOP_DEMO" --rounds 2 >/dev/null 2>"$TMP/err" ||
	fail "recording failed: $(cat "$TMP/err")"
found=$(python3 - "$SHIMTOP" "$TMP/rec" <<'PY'
import json, subprocess, sys
def report(*args):
    out = subprocess.run([sys.argv[1], "-b", "-i", sys.argv[2], "--format", "json", *args],
                         capture_output=True, text=True).stdout
    return json.loads(out) if out else {}
span = report().get("elapsed", 0)
for i in range(0, 100):
    a = i * max(span - 0.06, 0) / 100
    rows = report("--range", f"{a:.3f}:{a + 0.06:.3f}").get("rows", [])
    if rows and rows[0]["symbol"].startswith("phase_") and rows[0]["self"] > 97:
        print(f"{a:.3f} {rows[0]['symbol']}")
        break
PY
)
[ -n "$found" ] || fail "no 60 ms window of one phase in the recording"
set -- $found
at=$1 phase=$2

# The same window in the UI: fit, zoom in twice, cursor onto it, ( ), back to the table.
start -i "$TMP/rec"
wait_for "end of recording"
$T send-keys -t ui 2
wait_for "^timeline "
# Each + waited for until the scale changes: a loaded host may draw the
# first before it reads the second, and the cursor is placed by the last.
step_now() { title | sed -n 's/^timeline *\([0-9.]*\) ms a column.*/\1/p'; }
$T send-keys -t ui f Home
wait_for "^timeline .* cursor 0\.0+ s"
for zoom in 1 2; do
	before=$(step_now)
	$T send-keys -t ui +
	i=0
	until [ "$(step_now)" != "$before" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || { fail "+ did not zoom in: $(title)"; break; }
		sleep 0.1
	done
done
wait_for "^timeline +[0-9.]+ ms a column +scrolled"
step=$(step_now)
cursor=$(title | sed -n 's/.*cursor \([-0-9.]*\) s.*/\1/p')
# The middle 30 ms of the 60 ms window: 15 ms spare on each side (with
# 5 ms before its start, one run in three or four here took in the
# phase before: 83 to 87% at the top).
n1=$(python3 -c "import math,sys; print(math.ceil((float(sys.argv[1]) + 0.015 - float(sys.argv[2])) * 1000 / float(sys.argv[3])))" "$at" "$cursor" "$step")
n2=$(python3 -c "import sys; print(int(30 / float(sys.argv[1])))" "$step")
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || fail "cannot place the cursor: step $step ms, cursor $cursor s, window at $at s"
$T send-keys -t ui -N "$n1" Right
$T send-keys -t ui '('
wait_for "range starts at"
$T send-keys -t ui -N "$n2" Right
$T send-keys -t ui ')'
wait_for "range [0-9.]+-[0-9.]+ s: every table shows it alone"
$T send-keys -t ui 1
wait_for "SELF%"
# The header's caveat names it, first, where 80 columns still show it.
screen | grep -Eq "^range [0-9.]+-[0-9.]+ s in every table \(Esc in the timeline clears it\)" ||
	fail "the header does not name the range: $(screen | head -5)"
top=$(screen | sed -n '/SELF%/{n;p}')
echo "$top" | grep -Eq "^ *(9[0-9]|100)\.[0-9]+% .* $phase\$" ||
	fail "the window at $at s of $phase: the table's top row is: $top
$(screen)"
# Its drill-down over the range: the time row (the symbol's share of each
# column's samples, its peak at full height) peaks at 90% or more and is
# full height wherever the window has samples, but where another function
# took some of a column's (the kernel's interrupts, more of them on a busy
# host: at most a tenth of the columns, and two in any case).
$T send-keys -t ui Home Enter a
wait_for "^SYMBOL DETAIL"
wait_for "^time +.* [0-9.]+-[0-9.]+ s, peak (9[0-9]|100)%\$"
row=$(screen | grep "^time ")
set -- $(python3 -c 'import sys; r = sys.argv[1]; print(r.count("\u2588"), sum(r.count(chr(c)) for c in range(0x2581, 0x2588)))' "$row")
full=$1 part=$2
[ "$full" -ge 10 ] && { [ "$part" -le 2 ] || [ $((part * 10)) -le $((full + part)) ]; } ||
	fail "$phase over its own window: $full full and $part partial columns: $row"
$T send-keys -t ui Escape
wait_for "SELF%"
# Esc in the timeline clears the range: the table has every phase again.
$T send-keys -t ui 2
wait_for "^timeline "
$T send-keys -t ui Escape
wait_for "range cleared"
$T send-keys -t ui 1
wait_for "SELF%"
screen | grep -q "range " && fail "the header still names a range: $(screen | head -2)"
for p in phase_compute phase_branchy phase_pointer_chase; do
	wait_for " $p\$" "$p missing after the range was cleared"
done
$T send-keys -t ui q
sleep 0.3

# The observer effect (SHIM §4.3) from a constructed recording with the
# core's counters and the observer's own, as an Intel SMT pair gives them
# (no PMU here): one scale for three IPC rows, the target's stepping
# between its phases (1.5, 0.5), the observer's flat at the top (2.0),
# the core's between; the gauge gives the observer's share of the core's
# instructions (2/3) and says it competes.
"$TESTS_BIN/gen_records" corewide "$TMP/corewide.rec" || fail "gen_records corewide"
start -i "$TMP/corewide.rec"
wait_for "end of recording"
$T send-keys -t ui 2
wait_for "^timeline "
$T send-keys -t ui f
wait_for "^IPC core +2 "
for r in "IPC target" "IPC self" "IPC core"; do
	wait_for "^$r  *2  " "no $r row scaled to 2"
done
levels() { screen | grep "^$1 " | cut -c23- | grep -o . | sort -u | tr -d '\n'; }
[ "$(levels "IPC self")" = "█" ] || fail "the observer's IPC is not flat at the top: $(levels "IPC self")"
[ "$(levels "IPC target")" = "▂▆" ] || fail "the target's IPC does not step 0.5/1.5: $(levels "IPC target")"
[ "$(levels "IPC core")" = "▅▇" ] || fail "the core's IPC does not step 1.25/1.75: $(levels "IPC core")"
$T send-keys -t ui 3
wait_for "^ +effect +66\.[0-9]% .* IPC target 1\.00, observer 2\.00, core 1\.50;"
$T send-keys -t ui q
sleep 0.3
$T kill-server 2>/dev/null
finish
