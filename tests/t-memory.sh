#!/bin/sh
# t-memory.sh - --memory holds.  A replay of 120 s at 10 kHz (1,200,000
# samples with call chains: about 60 MB of history) with --memory 48:
# the peak of shimtop's own resident memory (not the files it maps) stays
# under 48 MB (not checked under ASan, whose shadow memory and quarantine
# are not shimtop's), the report says how
# many samples went and from when ranges reach, and the tables still
# count every sample.  Without the cap nothing is dropped or said.
. "$TESTS_DIR/lib.sh"

"$TESTS_BIN/gen_records" steady "$TMP/steady.rec" 120 10000 || fail "gen_records steady"
# The run's own resident memory at its most (RssAnon, read every 20 ms):
# --memory bounds what shimtop holds, not the pages of the files it maps.
"$SHIMTOP" -b -i "$TMP/steady.rec" --memory 48 >"$TMP/capped" 2>"$TMP/err" &
pid=$!
# Its huge pages at their most too (a 2 MiB step of the bound each).
python3 - "$pid" "$TMP/huge" >"$TMP/peak" <<'PY'
import os, re, sys, time
pid, most, huge = sys.argv[1], 0, 0
while True:
    try:
        s = open(f"/proc/{pid}/status").read()
        h = re.search(r"AnonHugePages:\s+(\d+)", open(f"/proc/{pid}/smaps_rollup").read())
    except OSError:
        break
    m = re.search(r"RssAnon:\s+(\d+)", s)
    if not m or "State:\tZ" in s:
        break
    most = max(most, int(m.group(1)))
    huge = max(huge, int(h.group(1)) if h else 0)
    time.sleep(0.02)
print(most)
open(sys.argv[2], "w").write("%d\n" % huge)
PY
wait "$pid" || fail "--memory 48: $(cat "$TMP/err")"
grep -Eq "^history: [0-9]+ oldest samples dropped to stay within --memory 48 MB; ranges reach back to [0-9.]+ s" \
	"$TMP/capped" || fail "the report does not say what the cap dropped: $(head -5 "$TMP/capped")"
grep -q "^samples 1200000 " "$TMP/capped" || fail "the table lost samples: $(sed -n 2p "$TMP/capped")"
if ldd "$SHIMTOP" 2>/dev/null | grep -q libasan; then
	echo "ASan build: the peak ($(cat "$TMP/peak") kB) is not shimtop's own"
else
	peak=$(cat "$TMP/peak")
	echo "peak own resident memory with --memory 48: $peak kB"
	[ "$peak" -le $((48 * 1024)) ] || fail "--memory 48 peaked at $peak kB"
fi
# Huge pages only where asked for (the kernel's default, madvise): under
# a --memory below 128 MB shimtop asks for none.
if grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	[ "$(cat "$TMP/huge")" = 0 ] ||
		fail "--memory 48 held $(cat "$TMP/huge") kB in huge pages (2 MiB steps of the bound)"
fi
"$SHIMTOP" -b -i "$TMP/steady.rec" >"$TMP/free" 2>"$TMP/err" || fail "no cap: $(cat "$TMP/err")"
grep -q "^history:" "$TMP/free" && fail "history dropped without a cap: $(grep '^history' "$TMP/free")"
# A range before what is kept says why it is empty; one across the edge says it is partial.
expect_run 1 "--range 1:2 is older than the history keeps: it reaches back to [0-9.]+ s" -- \
	"$SHIMTOP" -b -i "$TMP/steady.rec" --memory 48 --range 1:2
# Across the edge where it is (an ASan build's own memory leaves the
# history less; from run to run it moves by a second or two, as the
# replay outpaces the model): from half way to it, to 10 s past it.
edge=$(grep -o "reaches back to [0-9.]*" "$TMP/err" | awk '{ print $4 }')
span=120	# gen_records steady's seconds, above
range=$(python3 -c "import sys; e, s = float(sys.argv[1]), float(sys.argv[2]); print('%.3f:%.3f' % (e / 2, e + min(10, (s - e) / 2)))" \
	"${edge:-0}" "${span:-0}")
"$SHIMTOP" -b -i "$TMP/steady.rec" --memory 48 --range "$range" >"$TMP/edge" 2>&1 ||
	fail "--range $range (history back to ${edge:-?} s of ${span:-?} s) with --memory 48: $(cat "$TMP/edge")"
grep -q "its start is older than the history keeps" "$TMP/edge" ||
	fail "a range across the kept history's edge is not said: $(head -6 "$TMP/edge")"

expect_run 2 "--memory needs 32 to 1048576 MB" -- "$SHIMTOP" --memory 8 -b -i "$TMP/steady.rec"
expect_run 2 "--memory needs 32 to 1048576 MB" -- "$SHIMTOP" --memory lots -b -i "$TMP/steady.rec"

finish
