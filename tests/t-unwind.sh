#!/bin/sh
# t-unwind.sh - --call-graph dwarf and callerchain on tests/call_paths.
# Built without frame pointers, the default (auto) gives the known tree;
# with --call-graph fp the kernel's chains lose every caller while the
# stack copies unwound with the CFI give the known tree; the
# same copies feed CallerChaining, whose agreement with the unwound
# chains is at least 90% one level up and 80% three levels up where it
# is unambiguous; in callerchain mode the tree rebuilt from depths holds
# the known paths and the twins' equal frames are flagged ambiguous.
# Code without any CFI gives cut chains, counted, and no crash; samples
# in PLT stubs unwind through them; bad
# --call-graph values are refused in one line.  Chains that stop before
# main (frame pointers missing) are said, with what unwinds them; those
# ending in a stripped libc's start code are whole.
. "$TESTS_DIR/lib.sh"

NOFP="$TESTS_BIN/call_paths_nofp"
[ -x "$NOFP" ] || skip "call_paths_nofp is not built"

# By default (--call-graph auto) code without frame pointers has its
# callers: the known tree, and the report says the chains were unwound.
"$SHIMTOP" --batch --format folded -- "$NOFP" --seconds 1.5 >"$TMP/default" 2>"$TMP/err" ||
	fail "the default on call_paths_nofp: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/default" ||
	fail "the default's tree without frame pointers: $(sort -t' ' -k2 -n "$TMP/default" | tail -8)"
"$SHIMTOP" --batch -- "$NOFP" --seconds 1 >"$TMP/default.txt" 2>"$TMP/err" ||
	fail "the default on call_paths_nofp, text: $(cat "$TMP/err")"
grep -Eq "^chains: (9[0-9]|100)% of call chains unwound by DWARF where frame pointers stop early" \
	"$TMP/default.txt" || fail "the default's unwound share not said: $(head -5 "$TMP/default.txt")"
# The copies passed on are cut to what the walks read (the bytes above
# _start's frame: the environment), and the walks still reach _start.
# Every sample's copy, walked here: not in the kernel (t-kernel-walk.sh).
SHIMTOP_KERNEL_WALK=0 "$SHIMTOP" --batch --format json -- "$NOFP" --seconds 1 \
	>"$TMP/default.json" 2>"$TMP/err" ||
	fail "the default on call_paths_nofp, JSON: $(cat "$TMP/err")"
python3 - "$TMP/default.json" <<'PY' || fail "stack copies not cut: see above"
import json, sys
d = json.load(open(sys.argv[1]))
s, t = d['source'], d['tree']
print(f"stack copies: {s['stack_bytes_kept']} of {s['stack_bytes_copied']} bytes passed on")
assert s['stack_bytes_copied'] > 0 and s['stack_bytes_kept'] < 0.5 * s['stack_bytes_copied'], s
assert t['unwind_cut'] + t['unwind_lost'] <= 0.02 * t['unwound'], t
# Why the walks stopped: at _start, each counted once.
w = t['unwind_stops']
assert sum(w.values()) == t['unwound'] and w['outermost'] >= 0.98 * t['unwound'], w
PY

# --call-graph fp, frame pointers omitted: the kernel's walk finds no caller of leaf_work.
"$SHIMTOP" --batch --call-graph fp --format folded -- "$NOFP" --seconds 1.5 >"$TMP/fp" 2>"$TMP/err" ||
	fail "fp on call_paths_nofp: $(cat "$TMP/err")"
if python3 "$TESTS_DIR/check_paths.py" "$TMP/fp" 2>/dev/null; then
	fail "frame-pointer chains found call_paths_nofp's tree: the test binary has frame pointers"
fi

# ... and says so, with what unwinds it: in the text report, and in the
# gauges (JSON).  With frame pointers, or with dwarf, nothing is said.
"$SHIMTOP" --batch -g -- "$NOFP" --seconds 1 >"$TMP/fp.txt" 2>"$TMP/err" ||
	fail "fp on call_paths_nofp, text: $(cat "$TMP/err")"
grep -Eq "^chains: (9[0-9]|100)% of call chains stop before main or a thread's start: code without frame pointers \(as Debian builds\); --call-graph auto \(the UI's U\) unwinds it" \
	"$TMP/fp.txt" || fail "broken chains not said: $(head -5 "$TMP/fp.txt")"
# Scripts reading folded stacks or JSON hear it on stderr; whole chains, nothing.
"$SHIMTOP" --batch -g --format folded -- "$NOFP" --seconds 0.5 >"$TMP/fp.folded" 2>"$TMP/err" ||
	fail "fp on call_paths_nofp, folded: $(cat "$TMP/err")"
grep -Eq "^shimtop: warning: chains: (9[0-9]|100)% of call chains stop before main" "$TMP/err" ||
	fail "--format folded says nothing of broken chains on stderr: $(cat "$TMP/err")"
# The gauge says it whole (its meaning was cut at 160 bytes: "the UI's U) unw").
"$SHIMTOP" --batch -g --format json -- "$NOFP" --seconds 0.5 >"$TMP/fp.json" 2>/dev/null ||
	fail "fp on call_paths_nofp, json"
[ "$(json_get "$TMP/fp.json" "[g['meaning'] for g in d['gauges'] if g['name'] == 'whole chains'][0].endswith('--call-graph auto (the UI\'s U) unwinds it')")" = True ] ||
	fail "the whole chains gauge is cut: $(json_get "$TMP/fp.json" "[g for g in d['gauges'] if g['name'] == 'whole chains']")"
"$SHIMTOP" --batch -g --format json -- "$TESTS_BIN/call_paths" --seconds 0.5 >"$TMP/withfp.json" \
	2>"$TMP/err" || fail "fp on call_paths, json: $(cat "$TMP/err")"
grep -q "chains:" "$TMP/err" && fail "whole chains said to be broken on stderr: $(cat "$TMP/err")"
"$SHIMTOP" --batch -g -- "$TESTS_BIN/call_paths" --seconds 1 >"$TMP/withfp.txt" 2>"$TMP/err" ||
	fail "fp on call_paths: $(cat "$TMP/err")"
grep -q "^chains:" "$TMP/withfp.txt" && fail "whole chains said to be broken: $(grep '^chains' "$TMP/withfp.txt")"
# A stripped libc (Debian's without libc6-dbg) leaves its start code
# unnamed: chains ending there are whole, as on a fresh machine's demo.
strip -o "$TMP/libc.so.6" "$TESTS_BIN/gen_records" &&
	"$TESTS_BIN/gen_records" stripped-start "$TMP/ss.rec" "$TMP/libc.so.6" ||
	fail "no stripped-libc recording"
"$SHIMTOP" --batch -i "$TMP/ss.rec" >"$TMP/ss.txt" 2>"$TMP/err" || fail "-i ss.rec: $(cat "$TMP/err")"
grep -q "^chains:" "$TMP/ss.txt" &&
	fail "chains ending in a stripped libc's start said to be broken: $(grep '^chains' "$TMP/ss.txt")"
# The real case: this machine's libc stripped, its build-id changed so no
# debug file (libc6-dbg) names it; its start code then has only bounds from
# .eh_frame (libc.so.6+0x271d0), and chains ending there are whole.
libc=$(ldd "$TESTS_BIN/call_paths" | awk '$1 ~ /^libc\.so\./ { print $3 }')
mkdir "$TMP/lib" && strip -o "$TMP/lib/$(basename "$libc")" "$libc" || fail "no stripped copy of $libc"
python3 - "$TMP/lib/$(basename "$libc")" <<'PY' || fail "the libc copy's build-id not changed"
import subprocess, sys
notes = subprocess.run(['readelf', '-n', sys.argv[1]], capture_output=True, text=True).stdout
bid = bytes.fromhex(notes.split('Build ID: ')[1].split()[0])
b = bytearray(open(sys.argv[1], 'rb').read())
at = b.find(bid)
b[at] ^= 0xff
open(sys.argv[1], 'wb').write(b)
PY
env -u DEBUGINFOD_URLS "$SHIMTOP" --batch -g --format folded -- env LD_LIBRARY_PATH="$TMP/lib" \
	"$TESTS_BIN/call_paths" --seconds 1 >"$TMP/sl.folded" 2>"$TMP/err" || fail "stripped libc, folded: $(cat "$TMP/err")"
grep -Eq '^libc\.so\.[0-9]+\+0x[0-9a-f]+;main;' "$TMP/sl.folded" ||
	fail "the libc copy's start code is not named by .eh_frame only: $(sort -t' ' -k2 -rn "$TMP/sl.folded" | head -3)"
env -u DEBUGINFOD_URLS "$SHIMTOP" --batch -g -- env LD_LIBRARY_PATH="$TMP/lib" \
	"$TESTS_BIN/call_paths" --seconds 1 >"$TMP/sl.txt" 2>"$TMP/err" || fail "stripped libc, text: $(cat "$TMP/err")"
grep -q "^chains:" "$TMP/sl.txt" &&
	fail "chains ending in the stripped libc's .eh_frame start said to be broken: $(grep '^chains' "$TMP/sl.txt")"
"$SHIMTOP" --batch --call-graph dwarf -- "$NOFP" --seconds 1 >"$TMP/dw.txt" 2>"$TMP/err" ||
	fail "dwarf on call_paths_nofp, text: $(cat "$TMP/err")"
grep -q "^chains:" "$TMP/dw.txt" && fail "unwound chains said to be broken: $(grep '^chains' "$TMP/dw.txt")"

# --call-graph auto: the tree as written without frame pointers (DWARF
# for every chain, which stops early), and with them the kernel's chains
# (no sample unwound), each said in the report and the gauges: walked
# from copies here (SHIMTOP_KERNEL_WALK=0); by default the kernel walks
# them, and the gauges say that (t-kernel-walk.sh).
"$SHIMTOP" --batch --call-graph auto --format folded -- "$NOFP" --seconds 2 >"$TMP/auto" \
	2>"$TMP/err" || fail "--call-graph auto: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/auto" ||
	fail "auto's tree without frame pointers: $(sort -t' ' -k2 -n "$TMP/auto" | tail -8)"
"$SHIMTOP" --batch --call-graph auto -- "$NOFP" --seconds 1 >"$TMP/auto.txt" 2>"$TMP/err" ||
	fail "--call-graph auto, text: $(cat "$TMP/err")"
grep -Eq "^chains: (9[0-9]|100)% of call chains unwound by DWARF where frame pointers stop early" \
	"$TMP/auto.txt" || fail "auto's unwound share not said: $(head -5 "$TMP/auto.txt")"
SHIMTOP_KERNEL_WALK=0 "$SHIMTOP" --batch --call-graph auto --format json -- "$TESTS_BIN/call_paths" \
	--seconds 2 >"$TMP/autofp.json" 2>"$TMP/err" || fail "--call-graph auto on call_paths: $(cat "$TMP/err")"
python3 - "$TMP/autofp.json" <<'PY' || fail "auto with frame pointers: $(json_get "$TMP/autofp.json" "[g for g in d['gauges'] if g['name'] == 'whole chains']")"
import json, sys
d = json.load(open(sys.argv[1]))
g = [g for g in d['gauges'] if g['name'] == 'whole chains'][0]
# A sample in a prologue, before its frame pointer is saved, stops early: a few.
assert not g['bad'] and float(g['value'].split('%')[0]) >= 95, g
assert g['value'].endswith('% by frame pointers') and 'unwound by DWARF' in g['meaning'], g
PY
"$SHIMTOP" --batch --call-graph auto --format folded -- "$TESTS_BIN/call_paths" --seconds 2 \
	>"$TMP/autofp" 2>"$TMP/err" || fail "--call-graph auto on call_paths, folded: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/autofp" ||
	fail "auto's tree with frame pointers: $(sort -t' ' -k2 -n "$TMP/autofp" | tail -8)"

# dwarf: the tree as written.
"$SHIMTOP" --batch --call-graph dwarf --format json -- "$NOFP" --seconds 2 >"$TMP/dwarf.json" \
	2>"$TMP/err" || fail "--call-graph dwarf: $(cat "$TMP/err")"
"$SHIMTOP" --batch --call-graph dwarf,4096 --format folded -- "$NOFP" --seconds 2 \
	>"$TMP/dwarf" 2>"$TMP/err" || fail "--call-graph dwarf,4096: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/dwarf" ||
	fail "dwarf's tree: $(sort -t' ' -k2 -n "$TMP/dwarf" | tail -8)"
python3 - "$TMP/dwarf.json" <<'PY' || fail "dwarf's figures: $(json_get "$TMP/dwarf.json" "d['callerchain']")"
import json, sys
d = json.load(open(sys.argv[1]))
t, c = d['tree'], d['callerchain']
assert t['unwound'] == t['samples'] > 1000, t
# Walks end at _start, not in the copy: a few cut at process start at most.
assert t['unwind_cut'] + t['unwind_lost'] <= 0.02 * t['unwound'], t
assert c['samples'] >= 0.95 * t['samples'] and c['checked'] == c['samples'], c
a = {x['level']: x for x in c['agreement']}
assert a[1]['unambiguous_agreed_pct'] >= 90 and a[3]['unambiguous_agreed_pct'] >= 80, a
assert a[1]['unambiguous_compared'] >= 0.5 * c['samples'], a
PY

# callerchain: the tree rebuilt from depths, measured against the kernel's
# frame-pointer chains (call_paths keeps frame pointers).
FP="$TESTS_BIN/call_paths"
"$SHIMTOP" --batch --call-graph callerchain --format json -- "$FP" --seconds 2 >"$TMP/cc.json" \
	2>"$TMP/err" || fail "--call-graph callerchain: $(cat "$TMP/err")"
python3 - "$TMP/cc.json" <<'PY' || fail "callerchain's figures: $(json_get "$TMP/cc.json" "d['callerchain']")"
import json, sys
d = json.load(open(sys.argv[1]))
c = d['callerchain']
assert c['rebuilt_tree_shown'] and c['window'] == 2048 and c['reference'].startswith('frame-pointer chains'), c
# Whole chains are the reference; the copy unwound only where one stops early (the loader's start).
r = c['reference_samples']
assert r['frame_pointer'] >= 0.95 * (r['frame_pointer'] + r['dwarf']), r
a = {x['level']: x for x in c['agreement']}
assert a[1]['agreed_pct'] >= 90 and a[3]['agreed_pct'] >= 80, a
# leaf_work under via_one, twin_left and twin_right: one depth, three callers.
assert c['ambiguous_nodes'] >= 2 and c['nodes'] > 10, c
assert c['unique_pct']['1'] >= 90, c
PY
"$SHIMTOP" --batch --call-graph callerchain --format folded -- "$FP" --seconds 2 >"$TMP/cc" \
	2>"$TMP/err" || fail "--call-graph callerchain folded: $(cat "$TMP/err")"
python3 "$TESTS_DIR/check_paths.py" "$TMP/cc" ||
	fail "the rebuilt tree: $(sort -t' ' -k2 -n "$TMP/cc" | tail -8)"

# Without frame pointers (as Debian builds) the kernel's chains stop at
# the leaf: the rebuilt tree is measured against the copy unwound by its
# CFI instead (it read 0.0% against the broken chains), in the text
# report too; the tree keeps every sample, rooted at main or a start.
"$SHIMTOP" --batch --call-graph callerchain --format json -o "$TMP/ccn.rec" -- "$NOFP" \
	--seconds 2 >"$TMP/ccn.json" 2>"$TMP/err" || fail "callerchain without fp: $(cat "$TMP/err")"
python3 - "$TMP/ccn.json" <<'PY' || fail "callerchain without fp: $(json_get "$TMP/ccn.json" "d['callerchain']")"
import json, sys
d = json.load(open(sys.argv[1]))
c = d['callerchain']
assert c['reference'].startswith('DWARF-unwound chains'), c
a = {x['level']: x for x in c['agreement']}
assert a[1]['compared'] >= 0.9 * c['samples'] and a[1]['agreed_pct'] >= 90, a
# Its paths reach a start: the report says so, as its folded stacks show below.
assert c['reach_start_pct'] >= 95, c['reach_start_pct']
PY
"$SHIMTOP" -i "$TMP/ccn.rec" --batch --call-graph callerchain >"$TMP/ccn.txt" 2>"$TMP/err" ||
	fail "callerchain text: $(cat "$TMP/err")"
grep -Eq "^callerchain: the tree rebuilt from stack depth \(2048-byte window\): its callers agree with DWARF-unwound chains( \([^)]*\))? one level up in (9[0-9]|100)\.[0-9]% " \
	"$TMP/ccn.txt" || fail "no callerchain line in the text report: $(sed -n 1,6p "$TMP/ccn.txt")"
# The tree shown is CallerChaining's: no word that frame-pointer chains broke.
grep -q "stop before main" "$TMP/ccn.txt" &&
	fail "callerchain mode warns of the frame-pointer chains it does not show: $(grep "stop before" "$TMP/ccn.txt")"
"$SHIMTOP" -i "$TMP/ccn.rec" --batch --call-graph callerchain --format folded >"$TMP/ccn" \
	2>"$TMP/err" || fail "callerchain folded without fp: $(cat "$TMP/err")"
python3 - "$TMP/ccn" "$(json_get "$TMP/ccn.json" "d['callerchain']['samples']")" <<'PY' ||
import sys
total, rooted = 0, 0
for line in open(sys.argv[1]):
    path, n = line.rsplit(" ", 1)
    total += int(n)
    # A start as its symbol table names it (__libc_start_main@@GLIBC_2.34);
    # the marker of callers not seen is not one.
    rooted += int(n) if path.split(";")[0].split("@")[0] in ("main", "_start", "__libc_start_main") else 0
fed = int(sys.argv[2])
if total < 0.98 * fed:
    sys.exit(f"the rebuilt tree holds {total} of {fed} samples")
if rooted < 0.95 * total:
    sys.exit(f"{total - rooted} of {total} samples rooted elsewhere than main or a start")
PY
	fail "the rebuilt tree without fp: $(sort -t' ' -k2 -n "$TMP/ccn" | tail -5)"

# Kernel samples in the rebuilt tree: dd copying /dev/zero to /dev/null
# runs mostly in the kernel; each such sample counts at its user context
# (the user registers at entry), not left out while the line says every
# sample's callers were seen.
if command -v dd >/dev/null; then
	"$SHIMTOP" --batch --call-graph callerchain --format json -- \
		dd if=/dev/zero of=/dev/null bs=64k count=200000 >"$TMP/dd.json" 2>"$TMP/err" ||
		fail "callerchain of dd: $(cat "$TMP/err")"
	[ "$(json_get "$TMP/dd.json" "sum(r['samples'] for r in d['rows'] if r['module'] == '[kernel]') >= 0.5 * d['samples'] and d['callerchain']['samples'] + d['callerchain']['no_depth'] >= 0.95 * d['samples']")" = True ] ||
		fail "callerchain leaves kernel samples out of the rebuilt tree: $(json_get "$TMP/dd.json" "(d['samples'], d['callerchain'])" | cut -c1-300)"
fi

# No CFI at all (.eh_frame and .debug_frame removed) and no frame
# pointers: nothing unwinds; every chain is counted as cut, none invented.
if command -v objcopy >/dev/null; then
	objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr \
		--remove-section .debug_frame "$TESTS_BIN/call_paths_noeh" "$TMP/noeh"
	"$SHIMTOP" --batch --call-graph dwarf --format json -- "$TMP/noeh" --seconds 1 \
		>"$TMP/noeh.json" 2>"$TMP/err" || fail "dwarf without CFI: $(cat "$TMP/err")"
	python3 - "$TMP/noeh.json" <<'PY' || fail "without CFI: $(json_get "$TMP/noeh.json" "d['tree']['truncated']")"
import json, sys
d = json.load(open(sys.argv[1]))
t = d['tree']
assert t['samples'] > 500 and t['truncated'] >= 0.9 * t['samples'], t
assert t['unwind_cut'] + t['unwind_lost'] >= 0.9 * t['unwound'], t
names = {n['name'] for n in t['nodes']}
assert 'main' not in names or t['truncated'] >= 0.9 * t['samples'], names
g = [g for g in d['gauges'] if g['name'] == 'call tree'][0]
assert g['bad'] and 'on a cut chain' in g['meaning'], g
PY
fi

# The tree view's c: both trees side by side, then the tree CallerChaining
# rebuilt alone, from a recording of stack copies; leaf_work's node under
# via_one and the twins (one depth, three callers) is marked ambiguous.
# Side by side the other pane marks ('>') the node on the selected path;
# i draws the tree as an icicle.
if command -v tmux >/dev/null; then
	"$SHIMTOP" --batch --call-graph dwarf --record "$TMP/rec" -- "$NOFP" --seconds 1.5 \
		>/dev/null 2>"$TMP/err" || fail "recording with stacks: $(cat "$TMP/err")"
	replay_ui "$TMP/rec" 150 40
	$T send-keys -t ui F5
	wait_for "^ TOTAL% +SELF% +CALL TREE  \("
	$T send-keys -t ui c
	wait_for "^ TOTAL% +SELF% +CALL TREE  \(.*\| TOTAL% +SELF% +CALL TREE REBUILT BY CALLERCHAINING"
	# twin_left > leaf_work selected on the left: the right marks its own.
	$T send-keys -t ui / twin_left Enter Down
	wait_for "\|>[ 0-9].*\? leaf_work\$"
	screen | awk -F'|' '/\|>/ { print prev } { prev = $2 }' | grep -Eq -- "- twin_left\$" ||
		fail "the rebuilt pane did not follow to twin_left's leaf_work: $(screen)"
	# w: keys act on the right; the left follows to twin_right.
	$T send-keys -t ui w / twin_right Enter
	wait_for "^>[ 0-9].*- twin_right +\|"
	# The icicle of the rebuilt tree, on the selected node; Up to main.
	$T send-keys -t ui i
	wait_for "^ICICLE OF THE REBUILT TREE  twin_right: total"
	screen | awk '/twin_left/ && /twin_right/ && /via_one/ && /via_two/ && /recurse/' | grep -q . ||
		fail "no icicle row of main's callees: $(screen)"
	$T send-keys -t ui Up
	wait_for "^ICICLE OF THE REBUILT TREE  main: total "
	$T send-keys -t ui i c
	wait_for "^ TOTAL% +SELF% +CALL TREE REBUILT BY CALLERCHAINING \(\? ambiguous\)"
	$T send-keys -t ui / main Enter '*'
	wait_for " \? leaf_work\$"
	for f in via_one via_two via_three twin_left twin_right; do
		wait_for " [-+] $f\$" "the rebuilt tree has no $f"
	done
	$T send-keys -t ui c
	wait_for "^ TOTAL% +SELF% +CALL TREE  \("
	screen | grep -q "? leaf_work" && fail "the unwound tree marks nodes ambiguous: $(screen)"
	quit_ui
fi

# U while sampling: frame-pointer chains (-g) of code without
# frame pointers (every chain stops at [unknown]), then --call-graph auto
# from the key on: after x (zero once) the tree is the one as written,
# from _start down, and the header says how its chains were unwound.
if command -v tmux >/dev/null; then
	ui_session -x 160 -y 40 -c "$TMP" \
		"env LANG=C.UTF-8 '$SHIMTOP' -g -- '$NOFP' --seconds 60 2>'$TMP/err'; sleep 30"
	$T send-keys -t ui 6
	wait_for "stop before main or a thread's start: .*--call-graph auto \(the UI's U\) unwinds it"
	wait_for "^ *(99\.[0-9]+|100\.00)% +[0-9.]+% +- \[unknown\]\$"
	# The detail's callers: past a broken chain, one marked row with the
	# hint, not the garbage frames' functions.
	$T send-keys -t ui 1 / leaf_work Enter Enter
	wait_for "^callers  \[callers past a broken chain\] 100\.0%\$" \
		"the detail lists a broken chain's frames as callers"
	wait_for "^ +\(frame pointers broke in code without them: --call-graph auto \(the UI's U\)" \
		"the detail's broken callers come without the hint"
	$T send-keys -t ui Escape 6
	$T send-keys -t ui U
	wait_for "--call-graph auto: a 8192-byte stack copy per sample, unwound by DWARF"
	$T send-keys -t ui x
	sleep 2
	$T send-keys -t ui x
	wait_for "^ *[0-9.]+% of call chains unwound by DWARF where frame pointers stop early"
	wait_for "^ ?(99\.[5-9][0-9]|100\.00)% +0\.00% +- _start\$" "U: the tree does not start at _start"
	for f in main via_one via_two twin_left twin_right recurse; do
		wait_for " - $f\$" "U: the tree has no $f"
	done
	screen | grep -Eq -- "- \[unknown\]\$" && fail "U: [unknown] callers are left: $(screen)"
	$T send-keys -t ui U
	wait_for "call chains are unwound by DWARF where they stop early already"
	quit_ui
	# A recording's chains are what they were.
	"$SHIMTOP" --batch -g --record "$TMP/fprec" -- "$NOFP" --seconds 0.5 >/dev/null 2>"$TMP/err" ||
		fail "recording fp chains: $(cat "$TMP/err")"
	replay_ui "$TMP/fprec" 120 30
	$T send-keys -t ui U
	wait_for "a recording's call chains were fixed when it was made"
	quit_ui
	# System-wide (root): the per-CPU events are opened again with stacks.
	if [ "$(id -u)" = 0 ]; then
		"$NOFP" --seconds 30 &
		nofp=$!
		ui_session -x 160 -y 40 -c "$TMP" \
			"env LANG=C.UTF-8 '$SHIMTOP' -a -g 2>'$TMP/err'; sleep 30"
		wait_for "^samples [1-9]"
		$T send-keys -t ui U
		wait_for "--call-graph auto: a 8192-byte stack copy per sample"
		wait_for "^ *[0-9.]+% of call chains unwound by DWARF where frame pointers stop early"
		quit_ui
		kill "$nofp" 2>/dev/null
		wait "$nofp" 2>/dev/null
	fi
fi

# A sample inside a PLT stub unwinds through it to its caller, as perf
# does: the stub's CFA is an expression of rip (.plt's FDE), so rip must
# be a register of the walk's first frame, not only its pc.  A stub holds
# under 0.1% of the loop's time: a sample each 50 us of its 4 s of CPU
# gives about 45 there (at 4 kHz, 6 to 15: too few to judge, on a loaded host).
# How many samples land in a one-instruction stub is the host's: a timer
# interrupt's skid differs between VMs (1 to 250 in 4 s seen).  Too few:
# the loop runs again twice as long, then the check says it could not judge.
plt_check() {
	python3 - "$TMP/plt" "$1" <<'PY'
import sys
stub = under_main = 0
for line in open(sys.argv[1]):
    path, n = line.rsplit(" ", 1)
    frames = path.split(";")
    # The loop's own clock (main calls clock_gettime between calls) is not through_plt's.
    if frames[-1].endswith("@plt") and frames[-1] not in ("time@plt", "clock_gettime@plt"):
        stub += int(n)
        under_main += int(n) if "through_plt" in frames[:-1] and "main" in frames else 0
if stub < 10:
    print(f"only {stub} samples in PLT stubs in {sys.argv[2]} s: too few to judge")
    sys.exit(2)
print(f"{under_main} of {stub} samples in PLT stubs under main;through_plt")
if under_main < 0.95 * stub:
    sys.exit(1)
PY
}
for seconds in 4 8 16; do
	"$SHIMTOP" --batch -c 50000 --call-graph dwarf --format folded -- "$TESTS_BIN/plt_loop" \
		--seconds "$seconds" >"$TMP/plt" 2>"$TMP/err" || fail "dwarf on plt_loop: $(cat "$TMP/err")"
	plt_check "$seconds" && break
	[ $? -eq 2 ] || { fail "PLT stubs: see above"; break; }
done

expect_run 2 "--call-graph dwarf: the stack copy's size must be 8 to 49152 bytes, not '4'" -- \
	"$SHIMTOP" --demo --call-graph dwarf,4
expect_run 2 "--call-graph callerchain: the stack copy's size must be 8 to 49152 bytes, not '1e9'" -- \
	"$SHIMTOP" --demo --call-graph callerchain,1e9
expect_run 2 "--call-graph fp takes no size" -- "$SHIMTOP" --demo --call-graph fp,64
expect_run 2 "--call-graph lbr needs Intel's last-branch records" -- "$SHIMTOP" --demo --call-graph lbr
finish
