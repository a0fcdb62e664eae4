#!/bin/sh
# t-tree-perf.sh - the call tree agrees with perf's on a real program
# nobody here wrote (Debian's python3 running json and re): shimtop and
# perf record sample it at once, at one period, and the calling contexts
# (each sample's innermost 5 frames, tests/path_overlap.py) overlap by at
# least 90%: frame-pointer chains against perf record -g, and stacks
# unwound with the CFI (--call-graph dwarf) against perf's own dwarf mode.
. "$TESTS_DIR/lib.sh"

command -v perf >/dev/null || skip "perf (Debian linux-perf) is not installed"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "Debian's python3 is not installed"

# compare MODE PERF_ARGS...: both tools over the same 2.5 s of python3.
compare() {
	mode=$1
	shift
	"$PY" "$TESTS_DIR/py_work.py" &
	pid=$!
	BG_PIDS="$BG_PIDS $pid"
	sleep 0.5
	rm -f "$TMP/perf.data"
	perf record -q -e cpu-clock -c 250000 "$@" -p "$pid" -o "$TMP/perf.data" \
		-- sleep 2.5 >/dev/null 2>"$TMP/perf.err" &
	perf_pid=$!
	"$SHIMTOP" --batch --duration 2.5 --period 250000 --call-graph "$mode" \
		--format folded -p "$pid" >"$TMP/$mode.folded" 2>"$TMP/err" ||
		fail "shimtop --call-graph $mode on python3: $(cat "$TMP/err")"
	wait "$perf_pid"
	kill "$pid" 2>/dev/null
	[ -s "$TMP/perf.data" ] || skip "perf record failed here: $(cat "$TMP/perf.err")"
	perf script -i "$TMP/perf.data" -F ip,sym >"$TMP/$mode.perf" 2>/dev/null
	overlap=$(python3 "$TESTS_DIR/path_overlap.py" "$TMP/$mode.folded" "$TMP/$mode.perf" 5 \
		2>"$TMP/overlap.err")
	echo "call tree overlap with perf ($mode, 5 frames): $overlap%"
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 90 else 1)" "$overlap" ||
		fail "$mode: overlap $overlap% with perf is under 90%; largest differences:
$(cat "$TMP/overlap.err")"
}

compare fp -g
compare dwarf --call-graph dwarf
finish
