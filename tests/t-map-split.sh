#!/bin/sh
# t-map-split.sh - a mapping over part of another takes that part only, as
# the kernel splits a vma and perf splits its maps: map_over maps a page
# over libm's code once shimtop and perf record are attached (an MMAP2
# record, live), then spins in cos.  shimtop names cos as perf does, live
# and reading perf's file of the same run; before, libm's whole map went
# and 90% of the samples read [anon].
. "$TESTS_DIR/lib.sh"
command -v perf >/dev/null || skip "perf (Debian linux-perf) is not installed"

# events_open PID: waits (up to 20 s) until PID has perf_event descriptors.
events_open() {
	i=0
	while [ $i -lt 200 ]; do
		ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'perf_event' && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# share JSON MODULE_PART SYMBOL_PART: the percent of samples in rows whose
# module and symbol hold those strings ("" matches any).
share() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("%.1f" % sum(r["self"] for r in d["rows"]
                   if sys.argv[2] in r["module"] and sys.argv[3] in r["symbol"]))
PY
}

"$TESTS_BIN/map_over" --seconds 2 >"$TMP/mo.out" 2>&1 &
mo=$!
wait_file "$TMP/mo.out" || fail "map_over did not start: $(cat "$TMP/mo.out")"
perf_start "$mo" 250000
perf_attached
"$SHIMTOP" --batch --format json --period 250000 -p "$mo" >"$TMP/shimtop.json" 2>"$TMP/err" &
st=$!
events_open "$st" || fail "shimtop did not attach: $(cat "$TMP/err")"
kill -USR1 "$mo"
wait "$st" || fail "shimtop -p map_over: $(cat "$TMP/err")"
grep -q "^mapped " "$TMP/mo.out" || fail "map_over did not map its page: $(cat "$TMP/mo.out")"
perf_overlap "a page mapped over libm's code, live" 90
cos=$(share "$TMP/shimtop.json" libm cos)
anon=$(share "$TMP/shimtop.json" "[anon]" "")
perf_cos=$(awk '$2 ~ /cos/ { n++ } END { printf "%.1f", NR ? 100 * n / NR : 0 }' "$TMP/perf.txt")
echo "live: cos in libm $cos% (perf $perf_cos%), [anon] $anon%"
python3 -c "import sys; a, b, c = map(float, sys.argv[1:]); sys.exit(0 if b >= 50 and abs(a - b) < 5 and c < 5 else 1)" \
	"$cos" "$perf_cos" "$anon" || fail "live: cos in libm $cos%, perf $perf_cos%; [anon] $anon%"

# perf's file of the same run: its MMAP2 of the page comes after the maps
# perf read at attach.
"$SHIMTOP" -i "$TMP/perf.data" -b --format json >"$TMP/shimtop.json" 2>"$TMP/err" ||
	fail "-i perf.data: $(cat "$TMP/err")"
set -- $(python3 "$TESTS_DIR/overlap.py" "$TMP/shimtop.json" "$TMP/perf.txt" 2>"$TMP/overlap.err")
echo "perf.data: overlap with perf script on the same file ${1:-none}%"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 99 else 1)" "${1:-0}" ||
	fail "perf.data: overlap ${1:-none}% with perf script; largest differences: $(cat "$TMP/overlap.err")"
cos=$(share "$TMP/shimtop.json" libm cos)
echo "perf.data: cos in libm $cos% (perf script $perf_cos%)"
python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) < 1 else 1)" "$cos" "$perf_cos" ||
	fail "perf.data: cos in libm $cos%, perf script $perf_cos%"
finish
