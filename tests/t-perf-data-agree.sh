#!/bin/sh
# t-perf-data-agree.sh - shimtop -i on perf.data that perf record wrote
# of programs nobody here wrote (Debian's python3 and sqlite3, -g, and
# the demo's threads -a style with a group read) gives perf report's
# profile of the same file: symbol shares overlap >= 98% (overlap.py),
# calling contexts (5 frames, path_overlap.py) >= 95%.  Both tools read
# the same samples, so what differs is only how each names them.
. "$TESTS_DIR/lib.sh"

command -v perf >/dev/null || skip "perf (Debian linux-perf) is not installed"
command -v sqlite3 >/dev/null || skip "Debian's sqlite3 is not installed"
[ -x /usr/bin/python3 ] || skip "Debian's python3 is not installed"

# agree LABEL FILE: shimtop's table and folded stacks of FILE against perf script's.
agree() {
	"$SHIMTOP" -i "$2" -b --format json >"$TMP/$1.json" 2>"$TMP/err" ||
		fail "$1: shimtop -i: $(cat "$TMP/err")"
	"$SHIMTOP" -i "$2" -b --format folded >"$TMP/$1.folded" 2>"$TMP/err" ||
		fail "$1: shimtop -i --format folded: $(cat "$TMP/err")"
	perf script -i "$2" -F ip,sym >"$TMP/$1.perf" 2>/dev/null
	perf script -i "$2" -F ip,sym --hide-call-graph >"$TMP/$1.flat" 2>/dev/null
	set -- "$1" $(python3 "$TESTS_DIR/overlap.py" "$TMP/$1.json" "$TMP/$1.flat" 2>"$TMP/overlap.err")
	echo "$1: symbol overlap with perf report of the same file: ${2:-none}%"
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 98 else 1)" "${2:-0}" ||
		fail "$1: symbol overlap ${2:-none}% is under 98%; largest differences:
$(cat "$TMP/overlap.err")"
	paths=$(python3 "$TESTS_DIR/path_overlap.py" "$TMP/$1.folded" "$TMP/$1.perf" 5 \
		2>"$TMP/overlap.err")
	echo "$1: calling contexts (5 frames) overlap: $paths%"
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 95 else 1)" "$paths" ||
		fail "$1: path overlap $paths% is under 95%; largest differences:
$(cat "$TMP/overlap.err")"
}

perf record -q -g -o "$TMP/py.data" -- /usr/bin/python3 "$TESTS_DIR/py_work.py" 1.5 >/dev/null 2>"$TMP/perf.err" ||
	skip "perf record cannot sample here: $(tail -1 "$TMP/perf.err")"
agree python3 "$TMP/py.data"

echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT sum(x * x % 7) FROM c;" \
	>"$TMP/q.sql"
perf record -q -g -o "$TMP/sq.data" -- sqlite3 :memory: ".read $TMP/q.sql" >/dev/null 2>&1 ||
	fail "perf record of sqlite3 failed"
agree sqlite3 "$TMP/sq.data"

# The demo's threads, their samples reading a group ({a,b}:S).
perf record -q -g -e '{cpu-clock,task-clock}:S' -o "$TMP/demo.data" -- \
	"$SHIMTOP_DEMO" --seconds 1 >/dev/null 2>&1 || fail "perf record of a group failed"
agree demo-group "$TMP/demo.data"
finish
