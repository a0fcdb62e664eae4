#!/bin/sh
# t-diff.sh - -i A --diff B on two demo snapshots taken with
# --no-signals, B running the recursive phase four times as long: in the
# JSON diff recurse_tree gains share, the pointer chase and the branchy
# phase lose it, rows are sorted by the size of the change, and the path
# that changed most ends in recurse_tree.  Against a recording of another
# program, each side's own symbols are marked absent on the other (null,
# "only in A/B"); a recording against itself changes nothing.  The UI
# opens on the comparison; p shows paths, Esc A's table, D the
# comparison again.  Bad input: --diff without -i, a file that is not
# there, --diff with --export.
. "$TESTS_DIR/lib.sh"

# A and B are snapshots (--snapshot-on-exit); the third side a recording.
# Whole rounds of phases timed in CPU time (--rounds): each phase's share
# is its weight's however busy the machine (wall-clock slices under
# load moved a phase's share by points).
"$SHIMTOP" --batch --snapshot-on-exit "$TMP/a.rec" -- "$SHIMTOP_DEMO" --rounds 3 --no-signals \
	>/dev/null 2>"$TMP/err" || fail "snapshot A: $(cat "$TMP/err")"
"$SHIMTOP" --batch --snapshot-on-exit "$TMP/b.rec" -- "$SHIMTOP_DEMO" --rounds 2 --no-signals \
	--weights 1,1,1,4 >/dev/null 2>"$TMP/err" || fail "snapshot B: $(cat "$TMP/err")"
"$SHIMTOP" --batch --record "$TMP/c.rec" -- "$TESTS_BIN/call_paths" --seconds 0.5 \
	>/dev/null 2>"$TMP/err" || fail "recording call_paths: $(cat "$TMP/err")"

"$SHIMTOP" -b -i "$TMP/a.rec" --diff "$TMP/b.rec" --format json >"$TMP/ab.json" 2>"$TMP/err" ||
	fail "--diff: $(cat "$TMP/err")"
python3 - "$TMP/ab.json" <<'PY' || fail "the diff of the phase weights: $(head -c 1500 "$TMP/ab.json")"
import json, sys
d = json.load(open(sys.argv[1]))['diff']
rows = {r['symbol']: r for r in d['rows']}
# Phases: 3 rounds of 1,1,1,1 against 2 of 1,1,1,4 (the set-up is the same).
assert rows['recurse_tree']['change'] > 10, rows['recurse_tree']
for p in ('phase_pointer_chase', 'phase_branchy'):
    assert rows[p]['change'] < -4, rows[p]
    assert rows[p]['a'] is not None and rows[p]['b'] is not None
    assert abs(rows[p]['change'] - (rows[p]['b'] - rows[p]['a'])) < 1e-9, rows[p]
changes = [abs(r['change']) for r in d['rows']]
assert changes == sorted(changes, reverse=True), 'not sorted by the change'
assert d['rows'][0]['symbol'] == 'recurse_tree', d['rows'][0]
assert d['paths'][0]['path'].endswith(';recurse_tree') and d['paths'][0]['change'] > 10, d['paths'][0]
assert d['a_samples'] > 1000 and d['b_samples'] > 1000
PY

# Another program: each side's functions only on its side.
"$SHIMTOP" -b -i "$TMP/a.rec" --diff "$TMP/c.rec" --format json >"$TMP/ac.json" 2>"$TMP/err" ||
	fail "--diff of two programs: $(cat "$TMP/err")"
python3 - "$TMP/ac.json" <<'PY' || fail "symbols of one side only"
import json, sys
rows = {r['symbol']: r for r in json.load(open(sys.argv[1]))['diff']['rows']}
assert rows['recurse_tree']['b'] is None and rows['recurse_tree']['a'] > 0, rows['recurse_tree']
assert rows['leaf_work']['a'] is None and rows['leaf_work']['b'] > 0, rows['leaf_work']
assert abs(rows['leaf_work']['change'] - rows['leaf_work']['b']) < 1e-9
PY
"$SHIMTOP" -b -i "$TMP/a.rec" --diff "$TMP/c.rec" >"$TMP/ac.txt" 2>"$TMP/err" ||
	fail "--diff text: $(cat "$TMP/err")"
grep -Eq "^ +- +[0-9.]+% +\+[0-9.]+ .* leaf_work  \(only in B\)$" "$TMP/ac.txt" ||
	fail "the text does not mark leaf_work as B's only: $(head -12 "$TMP/ac.txt")"
grep -Eq "^ +[0-9.]+% +- +-[0-9.]+ .* recurse_tree  \(only in A\)$" "$TMP/ac.txt" ||
	fail "the text does not mark recurse_tree as A's only: $(head -12 "$TMP/ac.txt")"

# A recording against itself.
"$SHIMTOP" -b -i "$TMP/a.rec" --diff "$TMP/a.rec" --format json >"$TMP/aa.json" 2>"$TMP/err" ||
	fail "--diff with itself: $(cat "$TMP/err")"
[ "$(json_get "$TMP/aa.json" "max(abs(r['change']) for r in d['diff']['rows'] + d['diff']['paths'])")" = "0.0" ] ||
	fail "a recording against itself changes"

expect_run 2 "--diff compares two recordings: give -i A --diff B" -- \
	"$SHIMTOP" -b --diff "$TMP/b.rec" -- "$TESTS_BIN/call_paths" --seconds 0.1
expect_run 1 "cannot open record file '$TMP/none.rec': No such file or directory" -- \
	"$SHIMTOP" -b -i "$TMP/a.rec" --diff "$TMP/none.rec"
expect_run 2 "--diff and --export: export each recording on its own" -- \
	"$SHIMTOP" -i "$TMP/a.rec" --diff "$TMP/b.rec" --export csv

command -v tmux >/dev/null || { finish; exit; }
ui_session -x 140 -y 30 \
	"env LANG=C.UTF-8 SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' -i '$TMP/a.rec' --diff '$TMP/b.rec' 2>'$TMP/err'; sleep 30"
# IPC columns only where a side counted cycles and instructions (a PMU).
wait_for "^ +A% +B% +CHANGE +(IPC A +(IPC B +)?)?MODULE +SYMBOL, B - A"
wait_for "^ +[0-9.]+% +[0-9.]+% +\+[0-9.]+ .* recurse_tree\$"
$T send-keys -t ui p
wait_for "^ +A% +B% +CHANGE  CALLING CONTEXT, B - A"
# A path wider than the screen keeps its end, where paths differ.
wait_for "^ +[0-9.]+% +[0-9.]+% +\+[0-9.]+  (\.\.|__libc_start_call_main;).*;recurse_tree\$"
$T send-keys -t ui Escape
wait_for "^ SELF%.* +SAMPLES +IPC +(NAMED BY +)?MODULE +SYMBOL"
$T send-keys -t ui D
wait_for "^ +A% +B% +CHANGE"
quit_ui

# Refreshes every millisecond, each (a diff made again while A loads)
# slower than that: A still loads, the pumping's time counted from each
# refresh's end (counted from its start, no time was left to pump).
a_samples=$(json_get "$TMP/ab.json" "d['diff']['a_samples']")
ui_session -x 140 -y 30 \
	"env LANG=C.UTF-8 SHIMTOP_THEMES='$SHIMTOP_THEMES' '$SHIMTOP' -d 0.001 -i '$TMP/a.rec' --diff '$TMP/b.rec' 2>'$TMP/err'; sleep 30"
wait_for "^samples $a_samples " "refreshing every ms, A never loaded its $a_samples samples"
quit_ui
finish
