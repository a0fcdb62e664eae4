#!/bin/sh
# t-perf-agreement.sh - on the demo, shimtop's per-symbol shares agree
# with perf record + perf report over the same run: overlap >= 90%.
. "$TESTS_DIR/lib.sh"

command -v perf >/dev/null || skip "perf (Debian linux-perf) is not installed"
start_demo
perf record -q -e cpu-clock -c 250000 -p "$DEMO_PID" -o "$TMP/perf.data" \
	>/dev/null 2>"$TMP/perf.err" &
PERF_PID=$!
"$SHIMTOP" --batch --duration 3 --format json -p "$DEMO_PID" >"$TMP/shimtop.json" \
	2>"$TMP/err" || fail "shimtop failed: $(cat "$TMP/err")"
kill -INT "$PERF_PID"
wait "$PERF_PID"
[ -s "$TMP/perf.data" ] || skip "perf record failed here: $(cat "$TMP/perf.err")"
perf report -i "$TMP/perf.data" --stdio -q --no-children --sort symbol \
	--percent-limit 0 >"$TMP/perf.txt" 2>/dev/null
overlap=$(python3 "$TESTS_DIR/overlap.py" "$TMP/shimtop.json" "$TMP/perf.txt")
echo "overlap with perf on the demo: $overlap%"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 90 else 1)" "$overlap" ||
	fail "overlap $overlap% is under 90%"
finish
