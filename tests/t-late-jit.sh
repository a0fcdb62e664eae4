#!/bin/sh
# t-late-jit.sh - a JIT's perf map written late names the samples taken
# before it, as perf report names them from the map present at report
# time: tests/late_jit runs jit_alpha three times as long as jit_beta in
# anonymous code and writes /tmp/perf-PID.map at its exit or halfway.
# Named in the table, the tree and a snapshot; a recording read back is
# named from the map there is then; without a map they stay [unknown].
. "$TESTS_DIR/lib.sh"

JIT="$TESTS_BIN/late_jit"
maps=""
cleanup_maps() {
	for p in $maps; do rm -f "/tmp/perf-$p.map"; done
}
trap cleanup_maps EXIT

# late MODE NAME: a 1.5 s run of late_jit, its JSON report in $TMP/NAME.json.
late() {
	"$SHIMTOP" -b --format json --duration 20 --snapshot-on-exit "$TMP/$2.snap" -- "$JIT" \
		--seconds 1.5 --map-at "$1" >"$TMP/$2.json" 2>"$TMP/err" || fail "late_jit --map-at $1: $(cat "$TMP/err")"
	maps="$maps $(json_get "$TMP/$2.json" "d['pid']")"
}

# named FILE WHAT: the JIT's two functions named, in their proportion, few unknown.
named() {
	python3 - "$1" "$2" <<'PY' || fail "$2: see above"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r['symbol']: r['samples'] for r in d['rows']}
a, b = rows.get('jit_alpha', 0), rows.get('jit_beta', 0)
if d['samples'] < 1000:
    sys.exit(f"{sys.argv[2]}: only {d['samples']} samples")
if d['unknown'] > 0.05 * d['samples']:
    sys.exit(f"{sys.argv[2]}: {d['unknown']} of {d['samples']} samples unknown: {list(rows.items())[:4]}")
if not (a > 2 * b > 0):
    sys.exit(f"{sys.argv[2]}: jit_alpha {a}, jit_beta {b}: expected about three to one")
PY
}

late exit exit
named "$TMP/exit.json" "map written at exit"
# The tree's leaves are named too, and the snapshot holds the names.
"$SHIMTOP" -i "$TMP/exit.snap" -b --format folded >"$TMP/exit.folded" 2>"$TMP/err" ||
	fail "the snapshot: $(cat "$TMP/err")"
grep -Eq ";jit_alpha [0-9]{3,}$" "$TMP/exit.folded" ||
	fail "no path ends in jit_alpha in the snapshot's tree: $(sort -t' ' -k2 -n "$TMP/exit.folded" | tail -3)"
"$SHIMTOP" -i "$TMP/exit.snap" -b --format json >"$TMP/snap.json" 2>"$TMP/err" ||
	fail "the snapshot, JSON: $(cat "$TMP/err")"
named "$TMP/snap.json" "the snapshot"

late half half
named "$TMP/half.json" "map written halfway"

# Never written: unknown, as before (what the two above would be without the late look).
late never never
[ "$(json_get "$TMP/never.json" "d['unknown'] > 0.9 * d['samples']")" = True ] ||
	fail "without a map the JIT's samples are named: $(json_get "$TMP/never.json" "d['rows'][:2]")"

# A recording read back is named from the map there is then, as perf report does.
"$SHIMTOP" -b --duration 20 -o "$TMP/rec" --format json -- "$JIT" --seconds 1.5 --map-at exit \
	>"$TMP/rec.json" 2>"$TMP/err" || fail "recording late_jit: $(cat "$TMP/err")"
pid=$(json_get "$TMP/rec.json" "d['pid']")
maps="$maps $pid"
"$SHIMTOP" -i "$TMP/rec" -b --format json >"$TMP/back.json" 2>"$TMP/err" || fail "-i: $(cat "$TMP/err")"
named "$TMP/back.json" "the recording read back"
rm -f "/tmp/perf-$pid.map"
"$SHIMTOP" -i "$TMP/rec" -b --format json >"$TMP/gone.json" 2>"$TMP/err" || fail "-i: $(cat "$TMP/err")"
[ "$(json_get "$TMP/gone.json" "d['unknown'] > 0.9 * d['samples']")" = True ] ||
	fail "the recording read back without its map still names the JIT"
finish
