#!/bin/sh
# t-call-tree.sh - the calling context tree on the demo, as folded
# stacks: main calls run_phases, which calls the phases; the recursive
# phase nests recurse_tree nine levels under
# phase_recursive, every sample is on one path (a recording replayed as
# JSON and as folded stacks agree), and perf's --call-graph spellings
# are taken or refused in one line.  The tree view (F5) on a recording:
# main > run_phases > the phases, recurse_tree nine levels deep, closed
# and opened again with - and +.
. "$TESTS_DIR/lib.sh"

# User space only (:u, as perf's): the kernel's share (page faults, more
# on a loaded machine) would move the demo's rows about the tree view.
"$SHIMTOP" --batch -e cpu-clock:u --record "$TMP/rec" -- "$SHIMTOP_DEMO" --seconds 1.5 \
	>/dev/null 2>"$TMP/err" || fail "recording the demo failed: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/rec" --batch --format folded >"$TMP/folded" 2>"$TMP/err" ||
	fail "--format folded failed: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/rec" --batch --format json >"$TMP/json" 2>"$TMP/err" ||
	fail "--format json failed: $(cat "$TMP/err")"
k=$(json_get "$TMP/json" "sum(r['samples'] for r in d['rows'] if r['module'] == '[kernel]')")
[ "$k" -eq 0 ] || fail "-e cpu-clock:u recorded $k kernel samples"

# Every line: frames joined by ';', a space, a count.
bad=$(grep -Evc '^[^ ;][^;]*(;[^;]+)* [0-9]+$' "$TMP/folded")
[ "$bad" -eq 0 ] || fail "$bad lines are not folded stacks: $(grep -Ev '^[^ ;][^;]*(;[^;]+)* [0-9]+$' "$TMP/folded" | head -3)"
sum=$(awk '{ s += $NF } END { print s }' "$TMP/folded")
samples=$(json_get "$TMP/json" "d['samples']")
[ "$sum" = "$samples" ] || fail "the folded stacks hold $sum samples of $samples"
# The JSON carries the same tree: every sample's path ends in one node,
# each node's total is its self and its children's totals, and the
# folded stacks are its paths.
python3 - "$TMP/json" "$TMP/folded" <<'PY' || fail "the JSON tree does not match the folded stacks"
import json, sys
d = json.load(open(sys.argv[1]))
t = d['tree']
nodes = {n['id']: n for n in t['nodes']}
assert sum(n['self'] for n in nodes.values()) == t['samples'] == d['samples'], 'self sums'
kids = {}
for n in nodes.values():
    assert n['parent'] == 0 or n['parent'] in nodes, 'parent'
    kids.setdefault(n['parent'], []).append(n)
for n in nodes.values():
    assert n['total'] == n['self'] + sum(k['total'] for k in kids.get(n['id'], [])), 'total'
def path(n):
    p = []
    while n:
        p.append(n['name']); n = nodes.get(n['parent'])
    return ';'.join(reversed(p))
folded = {}
for line in open(sys.argv[2]):
    stack, count = line.rsplit(' ', 1)
    folded[stack] = folded.get(stack, 0) + int(count)
mine = {}
for n in nodes.values():
    if n['self']:
        k = path(n).replace(';;', '?')
        mine[k] = mine.get(k, 0) + n['self']
assert sum(mine.values()) == sum(folded.values()), 'sums'
assert len(mine) == len(folded), (len(mine), len(folded))
PY
# main calls run_phases, which calls each phase.
for p in phase_compute phase_pointer_chase phase_branchy; do
	grep -q ";main;run_phases;$p " "$TMP/folded" || fail "no main;run_phases;$p path: $(head -20 "$TMP/folded")"
done
# recurse_tree(8) down to recurse_tree(0): nine levels.
deepest=$(grep ";run_phases;phase_recursive;" "$TMP/folded" |
	awk '{ n = gsub(/recurse_tree/, "&"); if (n > m) m = n } END { print m + 0 }')
[ "$deepest" -eq 9 ] || fail "recurse_tree nests $deepest levels, not 9: $(grep recurse_tree "$TMP/folded" | head -3)"
# A target with a known call tree (tests/call_paths.c): leaf_work reached
# by five paths, at depths 3, 4 and 8, two of them twins with equal
# frames; each path an equal part of the work.  Every path is there as
# written, with a fifth of the samples (10-30%), and nothing else holds
# more than 2%.
if [ -x "$TESTS_BIN/call_paths" ]; then
	"$SHIMTOP" --batch --format folded -- "$TESTS_BIN/call_paths" --seconds 2 \
		>"$TMP/paths" 2>"$TMP/err" || fail "call_paths under shimtop: $(cat "$TMP/err")"
	python3 "$TESTS_DIR/check_paths.py" "$TMP/paths" ||
		fail "call_paths' tree: $(sort -t' ' -k2 -n "$TMP/paths" | tail -8)"
	# Recursion 10,000 deep: the kernel gives perf_event_max_stack frames
	# and says nothing; the tree puts such chains under [truncated chain]
	# and the gauge says how many.
	"$SHIMTOP" --batch --format json -- "$TESTS_BIN/call_paths" --deep 10000 \
		>"$TMP/deep.json" 2>"$TMP/err" || fail "call_paths --deep under shimtop: $(cat "$TMP/err")"
	python3 - "$TMP/deep.json" <<'PY' || fail "10,000 deep: $(json_get "$TMP/deep.json" "[g for g in d['gauges'] if g['name'] == 'call tree']")"
import json, sys
d = json.load(open(sys.argv[1]))
t = d['tree']
assert t['truncated'] > 0.5 * t['samples'], (t['truncated'], t['samples'])
top = [n for n in t['nodes'] if n['parent'] == 0 and n['name'] == '[truncated chain]']
assert top and top[0]['total'] == t['truncated'], top
g = [g for g in d['gauges'] if g['name'] == 'call tree'][0]
assert g['bad'] and 'on a cut chain' in g['meaning'], g
PY
fi
"$SHIMTOP" -i "$TMP/rec" --batch -g --format folded >"$TMP/g" 2>"$TMP/err" || fail "-g: $(cat "$TMP/err")"
cmp -s "$TMP/g" "$TMP/folded" || fail "-g (fp, the default) changed the tree"
expect_run 2 "--call-graph takes fp, dwarf\[,SIZE\], auto\[,SIZE\], callerchain\[,SIZE\] or none, not 'frames'" -- \
	"$SHIMTOP" --demo --call-graph frames
# A time range cuts the tree as it cuts the tables: the range's samples,
# each on the path it had in the whole session's tree.
"$SHIMTOP" -i "$TMP/rec" --batch --format folded --range 0.5:1 >"$TMP/rfolded" 2>"$TMP/err" ||
	fail "--format folded --range: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/rec" --batch --format json --range 0.5:1 >"$TMP/rjson" 2>"$TMP/err" ||
	fail "--format json --range: $(cat "$TMP/err")"
python3 - "$TMP/rfolded" "$TMP/rjson" "$TMP/folded" <<'PY' || fail "the range's tree: $(head -5 "$TMP/rfolded")"
import json, sys
def load(p):
    out = {}
    for line in open(p):
        stack, n = line.rsplit(' ', 1)
        out[stack] = out.get(stack, 0) + int(n)
    return out
part, whole = load(sys.argv[1]), load(sys.argv[3])
d = json.load(open(sys.argv[2]))
assert sum(part.values()) == d['samples'] == d['tree']['samples'], (sum(part.values()), d['samples'])
assert 0 < sum(part.values()) < sum(whole.values()), 'a range is a part'
for k, n in part.items():
    assert k in whole and n <= whole[k], (k, n, whole.get(k))
PY
expect_run 2 "--call-graph callerchain rebuilds the whole session's tree: --range does not cut it" -- \
	"$SHIMTOP" -i "$TMP/rec" --call-graph callerchain --range 0:1
expect_run 2 "unknown format 'flame' \(text, json or folded\)" -- "$SHIMTOP" -i "$TMP/rec" --format flame

command -v tmux >/dev/null || { finish; exit; }
replay_ui "$TMP/rec" 120 40
$T send-keys -t ui F5
wait_for "^ TOTAL% +SELF% +CALL TREE"
wait_for "^ *[0-9.]+% +[0-9.]+% +- main\$"
wait_for "^ +[0-9.]+% +[0-9.]+% +- run_phases\$"
for p in phase_compute phase_pointer_chase phase_branchy phase_recursive; do
	wait_for "^ +[0-9.]+% +[0-9.]+% +[-+ ] $p\$" "no row for $p under run_phases"
done
# The recursion is hot: open to its leaves, a level an indent.  Rows of
# 1% or more: a sample in recurse_tree's prologue, before it saved its
# frame pointer, misses its caller and makes a stray 0.01% node.
hot_rows() { screen | awk -v name=" $1" '$1 + 0 >= 1 && substr($0, length($0) - length(name) + 1) == name' | wc -l; }
# Opened with * (a phase under a tenth of the samples stays closed by
# itself, as the recursion can be in an ASan build of the demo).
$T send-keys -t ui / phase_recursive Enter '*'
wait_for "^ +[0-9.]+% +[0-9.]+% +- recurse_tree\$"
screen_settled >/dev/null	# the whole redraw (tmux reads a wide one in parts)
n=$(hot_rows recurse_tree)
[ "$n" -eq 9 ] || fail "recurse_tree shows $n levels, not 9: $(screen)"
# Search to the first recurse_tree; - closes it (and so its eight below).
$T send-keys -t ui / recurse_tree Enter
$T send-keys -t ui -
wait_for "^ +[0-9.]+% +[0-9.]+% +\+ recurse_tree\$"
n=$(hot_rows recurse_tree)
[ "$n" -eq 1 ] || fail "closed, recurse_tree still shows $n rows: $(screen)"
$T send-keys -t ui +
wait_for "^ +[0-9.]+% +[0-9.]+% +- recurse_tree\$"
n=$(hot_rows recurse_tree)
[ "$n" -eq 9 ] || fail "opened again, recurse_tree shows $n levels: $(screen)"
# b: bottom-up.  recurse_tree at the top (samples end in it), its eight
# recursive callers under it, then phase_recursive and run_phases.
$T send-keys -t ui b
wait_for "^ TOTAL% +CALLERS, BOTTOM-UP"
$T send-keys -t ui / recurse_tree Enter '*'
wait_for " phase_recursive\$"
screen_settled >/dev/null	# * opens rows over more than one frame
n=$(screen | grep -c " recurse_tree\$")
[ "$n" -eq 9 ] || fail "bottom-up, recurse_tree and its callers show $n rows, not 9: $(screen)"
screen | grep -A1 " phase_recursive\$" | grep -q " run_phases\$" ||
	fail "bottom-up, phase_recursive's caller is not run_phases: $(screen)"
# Top-down again, the Firefox Profiler's transforms: r collapses the
# recursion to one recurse_tree, f focuses on phase_recursive (it is the
# root, 100%), m merges run_phases away (main calls the phases), u undoes.
$T send-keys -t ui b
wait_for "^ TOTAL% +SELF% +CALL TREE"
$T send-keys -t ui r
wait_for "\[recursion collapsed; u undoes\]"
$T send-keys -t ui / phase_recursive Enter '*'
wait_for " - phase_recursive\$"
screen_settled >/dev/null
n=$(hot_rows recurse_tree)
[ "$n" -eq 1 ] || fail "recursion collapsed, recurse_tree still shows $n rows: $(screen)"
$T send-keys -t ui u / phase_recursive Enter f
wait_for "\[focus on phase_recursive; u undoes\]"
# Its own samples (its loop reads the clock) may be a few: the total is what counts.
wait_for "^100\.00% +[0-9.]+%  - phase_recursive\$"
# Home: the search scrolled run_phases to the top row, and the merge
# leaves its first child there, main above the screen.
$T send-keys -t ui u / run_phases Enter m Home
wait_for "\[merged 1; u undoes\]"
wait_for "^ *[0-9.]+% +[0-9.]+% +- main\$"
screen | grep -q " run_phases\$" && fail "run_phases merged away is still shown: $(screen)"
# Right under main, wherever main is (under _start, chains unwound whole).
ind=$(screen | sed -n 's/^ *[0-9.]*% *[0-9.]*%\( *\)- main$/\1/p' | head -1)
wait_for "^ +[0-9.]+% +[0-9.]+%$ind  [-+ ] phase_(compute|branchy|pointer_chase)\$" "merged, the phases are not right under main"
# The drill-down's callers and callees: recurse_tree is called by itself
# and by phase_recursive, and calls itself and leaf work.
$T send-keys -t ui 1 / recurse_tree Enter Enter
wait_for "^callers  (recurse_tree|phase_recursive) [0-9.]+%, (recurse_tree|phase_recursive) [0-9.]+%"
wait_for "^callees  recurse_tree [0-9.]+%"
$T send-keys -t ui Escape 6
wait_for "^ TOTAL% +SELF% +CALL TREE"
# %: cold paths hidden, the title says how many; again and again, back.
$T send-keys -t ui u %
wait_for "\[[0-9]+ under 0\.5% hidden; % shows more\]"
$T send-keys -t ui % % %
wait_for "^ TOTAL% +SELF% +CALL TREE  \("
# i: the icicle, on the selected node; Up goes to its caller.
$T send-keys -t ui / phase_recursive Enter '*'
wait_for " - phase_recursive\$"
$T send-keys -t ui / recurse_tree Enter i
wait_for "^ICICLE  recurse_tree: total [0-9.]+%"
wait_for "^main( |\$)" "the icicle has no bar of main across the screen"
$T send-keys -t ui Up
wait_for "^ICICLE  phase_recursive: total"
$T send-keys -t ui i
wait_for "^ TOTAL% +SELF% +CALL TREE  \("
quit_ui

# IPC per node, from samples that carry cycles and instructions (a
# constructed recording: no PMU here): main > a > b at 3.00, main > a at
# 1.00, so main and a 2.50; bottom-up b 3.00 and a 1.00 at the top.
"$TESTS_BIN/gen_records" chains "$TMP/chains.rec" || fail "gen_records chains"
replay_ui "$TMP/chains.rec" 120 30
$T send-keys -t ui F5
wait_for "^ TOTAL% +SELF% +IPC  CALL TREE"
wait_for "^100\.00% +0\.00% +2\.50  - gen_fn_main\$"
wait_for "^100\.00% +25\.00% +2\.50    - gen_fn_a\$"
wait_for "^ 75\.00% +75\.00% +3\.00        gen_fn_b\$"
$T send-keys -t ui b
wait_for "^ TOTAL% +IPC  CALLERS, BOTTOM-UP"
wait_for "^ 75\.00% +3\.00  [-+] gen_fn_b\$"
wait_for "^ 25\.00% +1\.00  [-+] gen_fn_a\$"
quit_ui
finish
