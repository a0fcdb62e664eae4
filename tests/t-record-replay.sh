#!/bin/sh
# t-record-replay.sh - a recording replays to the same table, at full
# speed or in real time; a damaged recording replays up to the damage and
# says where it is.
. "$TESTS_DIR/lib.sh"

"$SHIMTOP" --demo --batch --duration 2 --format json --record "$TMP/rec" \
	>"$TMP/live" 2>"$TMP/err" || fail "record failed: $(cat "$TMP/err")"
"$SHIMTOP" --batch --format json --replay "$TMP/rec" >"$TMP/replay" 2>"$TMP/err" ||
	fail "replay failed: $(cat "$TMP/err")"
# The replay symbolizes from the recorded module map: same rows, same counts.
live=$(json_get "$TMP/live" "sorted((r['symbol'], r['samples']) for r in d['rows'])")
again=$(json_get "$TMP/replay" "sorted((r['symbol'], r['samples']) for r in d['rows'])")
[ "$live" = "$again" ] || fail "replay differs from the live table:
live:   $live
replay: $again"
grep -q phase_compute "$TMP/replay" || fail "replay lost symbols"
# The source is described in numbers: the period and its unit survive
# the file; the kind says which is the replay.
src=$(json_get "$TMP/live" "d['source']['kind'], d['source']['period']")
[ "$src" = "perf {'value': 250000, 'unit': 'ns', 'randomized': True}" ] ||
	fail "live source: $src"
src=$(json_get "$TMP/replay" "d['source']['kind'], d['source']['period']")
[ "$src" = "replay {'value': 250000, 'unit': 'ns', 'randomized': True}" ] ||
	fail "replayed source: $src"
status=$(json_get "$TMP/replay" "d['status']")
case "$status" in "end of recording"*) ;; *) fail "replay status: $status" ;; esac

# Real time: a 2 s recording takes about 2 s to replay, full speed much less.
start=$(date +%s%N)
"$SHIMTOP" --batch --replay "$TMP/rec" --realtime >/dev/null 2>&1
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -ge 1500 ] || fail "--realtime replay of 2 s took only $ms ms"

# A truncated recording: the records before the damage still count.
size=$(stat -c %s "$TMP/rec")
head -c $((size - 100)) "$TMP/rec" >"$TMP/cut"
"$SHIMTOP" --batch --format json --replay "$TMP/cut" >"$TMP/out" 2>"$TMP/err"
st=$?
[ "$st" -eq 1 ] || fail "truncated replay exited $st, expected 1"
grep -q "record file '$TMP/cut' is truncated at byte" "$TMP/err" ||
	fail "truncated replay message: $(cat "$TMP/err")"
n=$(json_get "$TMP/out" "d['samples']")
all=$(json_get "$TMP/live" "d['samples']")
[ "$n" -gt $((all * 9 / 10)) ] || fail "truncated replay kept $n of $all samples"

# Observer samples are recorded too, and replay gives the same analysis.
"$SHIMTOP" --demo --batch --observe --duration 1.5 --format json --record "$TMP/obs.rec" \
	>"$TMP/obs-live" 2>"$TMP/err" || fail "observer recording failed: $(cat "$TMP/err")"
"$SHIMTOP" --replay "$TMP/obs.rec" --batch --format json >"$TMP/obs-replay" 2>"$TMP/err" ||
	fail "observer replay failed: $(cat "$TMP/err")"
for k in taken accepted rejected_cpc "counters'][0]['delta"; do
	a=$(json_get "$TMP/obs-live" "d['observer']['$k']")
	b=$(json_get "$TMP/obs-replay" "d['observer'] and d['observer']['$k']")
	[ "$a" = "$b" ] && [ "$a" != 0 ] || fail "observer $k: live $a, replay $b"
done
a=$(json_get "$TMP/obs-live" "[(t['name'], t['samples']) for t in d['observer']['tags']]")
b=$(json_get "$TMP/obs-replay" "[(t['name'], t['samples']) for t in d['observer']['tags']]")
[ "$a" = "$b" ] || fail "observer tags differ: live $a, replay $b"
finish
