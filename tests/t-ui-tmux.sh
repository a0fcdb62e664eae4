#!/bin/sh
# t-ui-tmux.sh - the terminal UI driven through tmux on the live demo:
# header and table, help (checked against the key table), the detail
# view of a real function (its source and disassembly) and back, resize
# down to 40x10 and below, colours and NO_COLOR, a clean quit that also
# ends the launched demo, `z` on a replay that holds no sample, and
# --duration ending the UI by itself, x zeroing a detail's disassembly.
# Sorting, searching, filtering and the other tables: t-screens.sh.
. "$TESTS_DIR/lib.sh"

command -v tmux >/dev/null || skip "tmux is not installed"


ui_session -x 100 -y 30 \
	"env SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' --demo; echo \"EXIT=\$?\" >'$TMP/exit'; sleep 30"
wait_for "phase_compute"
wait_for "^shimtop 0\.1\.0 +target +pid [0-9]+ \(shimtop-demo\)"
wait_for "^perf (cpu-clock|cycles)" "no source line"
wait_for "samples [0-9.k]+ +rate [0-9]+/s +lost [0-9.k]+ " "no samples line"
wait_for "SELF%v" "not sorted by SELF% at start"
# The demo the header names: another test's demo may run beside this one.
shown_demo() {
	screen | sed -nE 's/^shimtop .* pid ([0-9]+) \(shimtop-demo\).*/\1/p' | head -1
}
demo=$(shown_demo)
kill -0 "$demo" 2>/dev/null || fail "the demo is not running under the UI"

# Help, and back.  The help on screen is the key table: every line
# test_ui generates from it is shown, so the screen, the README (checked
# by test_ui) and the keys the UI acts on cannot drift apart.
$T send-keys -t ui F1
wait_for "^shimtop keys"
screen_settled >"$TMP/page"
cp "$TMP/page" "$TMP/help"
# Taller than the pane: it scrolls a page at a time to its end.
while ! grep -q -- "-- end: Up, PgUp" "$TMP/page"; do
	if ! grep -q -- "-- more: Down, PgDn" "$TMP/page"; then
		fail "the help neither ends nor scrolls: $(cat "$TMP/page")"
		break
	fi
	$T send-keys -t ui NPage
	i=0
	while [ "$(screen)" = "$(cat "$TMP/page")" ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	screen_settled >"$TMP/page"
	cat "$TMP/page" >>"$TMP/help"
	if [ "$(wc -l <"$TMP/help")" -ge 1000 ]; then
		fail "the help never reaches its end"
		break
	fi
done
# Read as one text: a long description wraps under itself, maybe onto the next page.
grep -v -- "^-- \(more\|end\): " "$TMP/help" | tr '\n' ' ' | tr -s ' ' >"$TMP/help.flat"
"$TESTS_BIN/test_ui" --markdown | sed -n 's/^| \(.*\) | \(.*\) |$/\2/p' | grep -vx does |
while IFS= read -r does; do
	grep -qF -- "$(printf '%s' "$does" | tr -s ' ')" "$TMP/help.flat" || echo "$does"
done >"$TMP/missing"
[ ! -s "$TMP/missing" ] || fail "help lacks key-table lines: $(cat "$TMP/missing")"
$T send-keys -t ui x
wait_for "SELF%v"

# Enter opens the selected row's detail (a pushed view); Esc pops it.
$T send-keys -t ui '/' 'p' 'h' 'a' 's' 'e' '_' 'c' 'o' 'm' Enter
$T send-keys -t ui Enter
# Under 30 lines the code takes the view, one line naming it; a brings
# the summary above it.
wait_for "^phase_compute  shimtop-demo  self [0-9.]+%  [0-9]+ samples  \(a: the summary\)" \
	"the detail's code is not alone under 30 lines"
wait_for "aSummary" "the detail's footer does not name a"
$T send-keys -t ui a
wait_for "^SYMBOL DETAIL"
wait_for "^symbol +phase_compute" "detail of the wrong row"
wait_for "^module +shimtop-demo" "detail has no module"
wait_for "EscBack" "detail footer lacks Esc"
# The drill-down: phase_compute's hottest source lines, from the demo's
# own source, and its disassembly opened at the instructions that took
# its samples, each with its share.
wait_for "^disassembly: [0-9]+ instructions at 0x[0-9a-f]+, [0-9]+ of [0-9]+ samples on them"
wait_for "^ +[0-9.]+% +shimtop-demo\.c:[0-9]+ +[^ ]" "no hot source line with its text"
wait_for "^ +[0-9.]+% +[0-9]+ +[0-9a-f]+: +[a-z]+" "no instruction with samples"
wait_for "^ +shimtop-demo\.c:[0-9]+ " "no source line in the code"
wait_for "^time +[^ ].* [0-9.]+-[0-9.]+ s, peak [0-9]+%\$" "no time row"
$T send-keys -t ui Escape
wait_for "SELF%v"
# Colours by default; none with NO_COLOR (checked below).
$T capture-pane -e -p -t ui | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m\|$(printf '\033')\[[0-9;]*4[0-7]m" ||
	fail "default theme shows no colour"

# Resize: 40x10 still shows header and rows; smaller says so.
$T resize-window -t ui -x 40 -y 10
wait_for "phase_|recurse_tree"
wait_for "^shimtop" "40x10: no header"
$T resize-window -t ui -x 30 -y 8
wait_for "terminal too small"
$T resize-window -t ui -x 100 -y 30
wait_for "SELF%v"
$T send-keys -t ui C-l
wait_for "SELF%v"

$T send-keys -t ui q
i=0
while [ ! -s "$TMP/exit" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "$TMP/exit" 2>/dev/null)" = "EXIT=0" ] || fail "quit: $(cat "$TMP/exit" 2>/dev/null)"
if [ -n "$demo" ] && ! gone "$demo"; then
	fail "the launched demo outlived the UI"
fi

# The target exits during the session: a status line, and the table stays.
ui_session -x 100 -y 30 \
	"'$SHIMTOP' -- '$SHIMTOP_DEMO' --seconds 1; echo \"EXIT=\$?\" >'$TMP/exit2'; sleep 30"
wait_for "target [0-9]+ exited after [0-9.]+ s; table kept, q quits"
wait_for "phase_compute" "the table was not kept after the target exited"
$T send-keys -t ui q
i=0
while [ ! -s "$TMP/exit2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "$TMP/exit2" 2>/dev/null)" = "EXIT=0" ] || fail "quit after exit: $(cat "$TMP/exit2" 2>/dev/null)"

# Ctrl-C and SIGTERM stop as q does: exit 130 and 0, the terminal back,
# the launched demo ended, the recording complete (it replays to its end).
for how in C-c TERM; do
	rm -f "$TMP/exit5" "$TMP/sig.rec"
	ui_session -x 100 -y 30 \
		"'$SHIMTOP' --demo --record '$TMP/sig.rec'; echo \"EXIT=\$?\" >'$TMP/exit5'; sleep 30"
	wait_for "phase_compute"
	wait_for "^shimtop 0\.1\.0 +target +pid [0-9]+ \(shimtop-demo\)"
	demo=$(shown_demo)
	if [ "$how" = C-c ]; then
		$T send-keys -t ui C-c
		want=130
	else
		kill -TERM "$(pgrep -f "^$SHIMTOP --demo --record $TMP/sig.rec" | head -1)"
		want=0
	fi
	i=0
	while [ ! -s "$TMP/exit5" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(cat "$TMP/exit5" 2>/dev/null)" = "EXIT=$want" ] ||
		fail "$how: $(cat "$TMP/exit5" 2>/dev/null), expected EXIT=$want"
	wait_gone "SELF%" "$how: the terminal was not restored"
	[ -n "$demo" ] && ! gone "$demo" && fail "$how: the launched demo outlived the UI"
	"$SHIMTOP" --replay "$TMP/sig.rec" --batch --format json >"$TMP/sig.json" 2>"$TMP/err" ||
		fail "$how: the recording does not replay: $(cat "$TMP/err")"
	case "$(json_get "$TMP/sig.json" "d['status']")" in
	"end of recording"*) ;;
	*) fail "$how: recording incomplete: $(json_get "$TMP/sig.json" "d['status']")" ;;
	esac
	done

# `z` before the first sample (a recording with no records): nothing to
# zero, no crash (it was a memset of NULL, fatal under UBSan).
"$TESTS_BIN/gen_records" empty "$TMP/empty.rec" || fail "cannot make an empty recording"
ui_session -x 100 -y 30 \
	"'$SHIMTOP' --replay '$TMP/empty.rec' 2>'$TMP/z.err'; echo \"EXIT=\$?\" >'$TMP/exit3'; sleep 30"
wait_for "end of recording"
$T send-keys -t ui z
sleep 0.3
$T send-keys -t ui q
i=0
while [ ! -s "$TMP/exit3" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "$TMP/exit3" 2>/dev/null)" = "EXIT=0" ] ||
	fail "z before any sample: $(cat "$TMP/exit3" 2>/dev/null) $(cat "$TMP/z.err")"

# The target truncates its signal segment under the observer: the header
# says so, the table stays, and quitting prints it and exits 1.
start_demo --seconds 30
ui_session -x 160 -y 30 \
	"'$SHIMTOP' -p $DEMO_PID --observe 2>'$TMP/t.err'; echo \"EXIT=\$?\" >'$TMP/exit4'; sleep 30"
wait_for "DTE accepted"
wait_for "phase_compute"
# The demo dies of SIGBUS in its own truncated segment and cannot remove it.
LEFT_FILES="$LEFT_FILES /dev/shm/shimtop-$DEMO_PID"
truncate -s 0 "/dev/shm/shimtop-$DEMO_PID"
wait_for "process $DEMO_PID truncated its signal segment"
wait_for "phase_compute" "the table was not kept after the truncation"
$T send-keys -t ui q
i=0
while [ ! -s "$TMP/exit4" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "$TMP/exit4" 2>/dev/null)" = "EXIT=1" ] ||
	fail "quit after truncation: $(cat "$TMP/exit4" 2>/dev/null)"
grep -q "truncated its signal segment" "$TMP/t.err" || fail "no error line: $(cat "$TMP/t.err")"

# NO_COLOR: attributes only.
ui_session -x 100 -y 30 "env NO_COLOR=1 '$SHIMTOP' --demo; sleep 30"
wait_for "phase_compute"
if $T capture-pane -e -p -t ui | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m"; then
	fail "NO_COLOR still shows colour"
fi
$T send-keys -t ui q
sleep 0.3
$T kill-server 2>/dev/null

# x zeroes the detail's disassembly counts with its sample count: what the
# detail shows after it is counted from then on.
"$TESTS_BIN/gen_records" chains "$TMP/chains.rec" >/dev/null || fail "gen_records chains"
ui_session -x 80 -y 24 "env LANG=C.UTF-8 '$SHIMTOP' -i '$TMP/chains.rec'; sleep 30"
wait_for "end of recording"
$T send-keys -t ui / && $T send-keys -t ui -l fn_a && $T send-keys -t ui Enter Enter a
wait_for "100 of 100 samples on them" "gen_fn_a's detail has no disassembly counts"
$T send-keys -t ui x
wait_for "^samples  0 " "x did not zero the detail's samples"
wait_for " 0 of 0 samples on them" "x left the disassembly's counts: $(screen | grep 'samples on')"
quit_ui

# --duration stops the UI as it stops batch mode and the server: the
# demo sampled 1.5 s, the UI ended by itself with status 0, and its
# snapshot on exit holds those 1.5 s.
t0=$(date +%s)
ui_session -x 100 -y 30 "env LANG=C.UTF-8 '$SHIMTOP' --demo --duration 1.5 \
	--snapshot-on-exit '$TMP/dur.snap' 2>'$TMP/dur.err'; echo \$? >'$TMP/dur.rc'; sleep 30"
i=0
while [ ! -s "$TMP/dur.rc" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$TMP/dur.rc" ] || fail "--duration 1.5: the UI still ran after $(($(date +%s) - t0)) s"
[ "$(cat "$TMP/dur.rc" 2>/dev/null)" = 0 ] ||
	fail "--duration: exit status $(cat "$TMP/dur.rc" 2>/dev/null): $(cat "$TMP/dur.err")"
"$SHIMTOP" -i "$TMP/dur.snap" -b --format json >"$TMP/dur.json" 2>"$TMP/err" ||
	fail "--duration's snapshot: $(cat "$TMP/err")"
python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["elapsed"]; print(f"--duration 1.5 in the UI: {e:.2f} s sampled"); sys.exit(not 1.4 <= e <= 3)' \
	"$TMP/dur.json" || fail "--duration 1.5: the snapshot covers $(json_get "$TMP/dur.json" "d['elapsed']") s"
$T kill-server 2>/dev/null
# An idle attach turns the loop for draws and refreshes, not every 10 ms:
# its turns (SHIMTOP_UI_STATS' iterations) stay near the ten draws a
# second, where the old tick made a hundred.
sleep 60 &
idle=$!
ui_session -x 100 -y 30 "env LANG=C.UTF-8 SHIMTOP_UI_STATS='$TMP/idle.stats' '$SHIMTOP' -p $idle \
	--duration 3 2>'$TMP/idle.err'; echo \$? >'$TMP/idle.rc'; sleep 30"
i=0
while [ ! -s "$TMP/idle.rc" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill "$idle" 2>/dev/null
[ "$(cat "$TMP/idle.rc" 2>/dev/null)" = 0 ] || fail "the idle attach: $(cat "$TMP/idle.err")"
turns=$(sed -n 's/^iterations //p' "$TMP/idle.stats")
echo "an idle attach of 3 s in the UI: ${turns:-no} turns of the loop"
[ -n "$turns" ] && [ "$turns" -le 60 ] || fail "the UI turned ${turns:-?} times in 3 s of an idle attach"
$T kill-server 2>/dev/null
finish
