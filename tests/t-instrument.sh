#!/bin/sh
# t-instrument.sh - function-level tags without source changes: the demo
# built with -finstrument-functions, libshimtop-instrument.so preloaded,
# observed by shimtop.  The tags are function addresses shown as names;
# the four phases each take a clear share of the phases' time; the depth that
# comes with each tag is the instrumented call depth (main -> run_phases
# -> phase_compute is 3; recurse_tree runs at 4 to 12, mostly at the
# leaves).  Depth and tag are two stores, so a read between them can pair
# a tag with its neighbour's depth: the test uses the mean depth, which
# shimtop takes from DTE-accepted samples (an observer preempted between
# its reads paired recurse_tree with work_done's 13 beside stress-ng).
. "$TESTS_DIR/lib.sh"

BUILD=$(dirname "$SHIMTOP")
LIB=$BUILD/libshimtop-instrument.so
DEMO_I=$BUILD/shimtop-demo-instrumented
[ -f "$LIB" ] && [ -x "$DEMO_I" ] || skip "instrumented demo not built"

"$SHIMTOP" --batch --observe --format json -- env LD_PRELOAD="$LIB" "$DEMO_I" \
	--seconds 3 --no-signals >"$TMP/out.json" 2>"$TMP/err" ||
	fail "instrumented run failed: $(cat "$TMP/err")"
python3 - "$TMP/out.json" <<'PY' || fail "function tags: see above; shimtop said: $(cat "$TMP/err")"
import json, sys
o = json.load(open(sys.argv[1]))['observer']
if not o:
    sys.exit("no observer section: the preloaded library made no segment")
tags = {t['name']: t for t in o['tags']}
ok = True
# Shares of the phases' time: the set-up before them (build_chase, slow
# when instrumented) takes what the machine makes it take.
phases = ('phase_compute', 'phase_pointer_chase', 'phase_branchy', 'recurse_tree')
total = sum(tags[fn]['share'] for fn in phases if fn in tags)
for fn in phases:
    t = tags.get(fn)
    if not t or not total or t['share'] / total < 0.15:
        ok = print(f"{fn}: share {t and t['share']} of the phases' {total}, expected over 15%")
    else:
        print(f"{fn}: {t['share']:.1f}% of the time, mean depth "
              f"{t['mean_depth']:.3f}, max {t['max_depth']}")
if round(tags.get('phase_compute', {}).get('mean_depth', 0)) != 3:
    ok = print("phase_compute should run at depth 3 (main, run_phases, phase_compute)")
if not 11 <= tags.get('recurse_tree', {}).get('mean_depth', 0) <= 12:
    ok = print("recurse_tree should run mostly at its leaves, depth 12")
sys.exit(0 if ok else 1)
PY

# Without shimtop the hooks only store: the program runs normally.
LD_PRELOAD="$LIB" "$DEMO_I" --seconds 1 --no-signals --report-work 2>"$TMP/err" ||
	fail "instrumented demo failed on its own: $(cat "$TMP/err")"
grep -q "work_items=" "$TMP/err" || fail "instrumented demo did no work"
finish
