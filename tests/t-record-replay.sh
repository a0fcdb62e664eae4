#!/bin/sh
# t-record-replay.sh - a recording replays to the same table, at full
# speed or in real time; a damaged recording replays up to the damage and
# says where it is; --range prints the tables of a window of it.
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
# Names, not addresses: which of the demo's phases 2 s hold depends on how
# soon a loaded machine ran its set-up.
named=$(json_get "$TMP/replay" "sum(1 for r in d['rows'] if r['module'] == 'shimtop-demo' and not r['symbol'].startswith('shimtop-demo+'))")
[ "${named:-0}" -gt 0 ] || fail "replay lost symbols: $(head -c 600 "$TMP/replay")"
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

# --range: windows that tile the recording add up to it exactly; each is
# said in the report; a window with no samples, or without -i, is refused.
total=$(json_get "$TMP/replay" "d['samples']")
"$SHIMTOP" -i "$TMP/rec" --range 0:0.8 --format json >"$TMP/r1" 2>"$TMP/err" || fail "--range 0:0.8: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/rec" --range 0.8: --format json >"$TMP/r2" 2>"$TMP/err" || fail "--range 0.8:: $(cat "$TMP/err")"
a=$(json_get "$TMP/r1" "d['samples']")
b=$(json_get "$TMP/r2" "d['samples']")
[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ $((a + b)) -eq "$total" ] ||
	fail "--range 0:0.8 ($a) and 0.8: ($b) do not add up to the recording's $total samples"
[ "$(json_get "$TMP/r1" "sum(r['samples'] for r in d['rows'])")" = "$a" ] || fail "--range rows lose samples"
[ "$(json_get "$TMP/r1" "(d['range']['from'], d['range']['to'], d['range']['complete'])")" = "(0.0, 0.8, True)" ] ||
	fail "--range not in the JSON: $(json_get "$TMP/r1" "d.get('range')")"
"$SHIMTOP" -i "$TMP/rec" --range 0.5:1 >"$TMP/text" 2>"$TMP/err" || fail "--range text: $(cat "$TMP/err")"
grep -Eq "^range 0.500-1.000 s of [0-9.]+ s$" "$TMP/text" || fail "--range not said: $(head -5 "$TMP/text")"
expect_run 1 "--range 100:200 holds no samples: the recording's span from its first sample is 0-[0-9.]+ s" -- \
	"$SHIMTOP" -i "$TMP/rec" --range 100:200
expect_run 2 "--range picks a window of a recording: give -i FILE" -- "$SHIMTOP" --demo --range 0:1
expect_run 2 "--range needs START:END" -- "$SHIMTOP" -i "$TMP/rec" --range 2:1
expect_run 2 "--range needs START:END" -- "$SHIMTOP" -i "$TMP/rec" --range 1
expect_run 2 "--history needs a positive number of seconds" -- "$SHIMTOP" -i "$TMP/rec" --history 0

# Gauges: a recording whose kernel lost a third of the samples, throttled
# three times and whose addresses no symbol explains: each gauge says so.
"$TESTS_BIN/gen_records" lossy "$TMP/lossy.rec" || fail "gen_records lossy"
"$SHIMTOP" -b -i "$TMP/lossy.rec" --format json >"$TMP/lossy.json" 2>"$TMP/err" || fail "lossy replay: $(cat "$TMP/err")"
[ "$(json_get "$TMP/lossy.json" "sorted(g['name'] for g in d['gauges'] if g['bad'])")" = "['lost', 'throttled', 'unknown']" ] ||
	fail "bad gauges: $(json_get "$TMP/lossy.json" "[(g['name'], g['value'], g['bad']) for g in d['gauges']]")"
json_get "$TMP/lossy.json" "[g['value'] + ': ' + g['meaning'] for g in d['gauges'] if g['name'] == 'lost'][0]" |
	grep -q "^33.33% (50 lost, 0 dropped): .*lower the rate" || fail "lost gauge: $(json_get "$TMP/lossy.json" "d['gauges'][1]")"
# The demo's recording: nothing bad but what the live session said (a
# loaded machine can make the kernel lose samples while shimtop waits for
# a CPU; the gauge then says the same count the live one did).
python3 - "$TMP/live" "$TMP/replay" <<'PY' || fail "the demo's recording has bad gauges: see above"
import json, sys
live, replay = (json.load(open(f)) for f in sys.argv[1:3])
said = {g['name']: g['value'] for g in live['gauges']}
bad = [g for g in replay['gauges'] if g['bad']]
if any(g['name'] != 'lost' or g['value'] != said.get('lost') for g in bad):
    sys.exit(f"bad: {bad}; the live session said lost {said.get('lost')}")
PY

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
# The demo's set-up is done first (it tags its phases from then on, and
# a slow machine may take seconds to get there): the whole recording
# holds tagged samples.
start_demo --seconds 30
"$SHIMTOP" -p "$DEMO_PID" --batch --observe --duration 2 --format json --record "$TMP/obs.rec" \
	>"$TMP/obs-live" 2>"$TMP/err" || fail "observer recording failed: $(cat "$TMP/err")"
kill "$DEMO_PID" 2>/dev/null
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
# The observer's own core counts beside the target's (a constructed
# recording: no PMU here): the JSON and the effect gauge.
"$TESTS_BIN/gen_records" corewide "$TMP/corewide.rec" || fail "gen_records corewide"
"$SHIMTOP" -i "$TMP/corewide.rec" --batch --format json >"$TMP/cw.json" 2>"$TMP/err" ||
	fail "corewide replay: $(cat "$TMP/err")"
[ "$(json_get "$TMP/cw.json" "(round(d['observer']['hardware']['ipc'], 3), d['observer']['hardware']['self']['ipc'], round(d['observer']['hardware']['core_ipc'], 3))")" = "(1.002, 2.0, 1.501)" ] ||
	fail "observer effect figures: $(json_get "$TMP/cw.json" "d['observer']['hardware']")"
[ "$(json_get "$TMP/cw.json" "[(g['value'], g['bad']) for g in d['gauges'] if g['name'] == 'effect']")" = "[('66.6%', True)]" ] ||
	fail "effect gauge: $(json_get "$TMP/cw.json" "[g for g in d['gauges'] if g['name'] == 'effect']")"
# --range cuts the observer's tags and rate again for the window (the
# rest stays the session's): two windows that tile the recording hold
# every thread sample the session's tags counted, each phase's in the
# one or the other; the recording is tagged throughout, so both hold some.
# halves NAME REC MID WHOLE-JSON: REC's observer tags in 0:MID and MID:
# ($TMP/NAME1, $TMP/NAME2), each some, together the whole session's.
halves() {
	for w in "1 0:$3" "2 $3:"; do
		set -- "$1" "$2" "$3" "$4" ${w}
		"$SHIMTOP" -i "$2" -b --range "$6" --format json >"$TMP/$1$5" 2>"$TMP/err" ||
			fail "$1: observer --range $6: $(cat "$TMP/err")"
	done
	a=$(json_get "$TMP/${1}1" "sum(t['samples'] for t in d['observer']['range']['tags'])")
	b=$(json_get "$TMP/${1}2" "sum(t['samples'] for t in d['observer']['range']['tags'])")
	all=$(json_get "$4" "sum(t['samples'] for t in d['observer']['tags'])")
	[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ $((a + b)) -eq "$all" ] ||
		fail "$1: the observer's tags in 0:$3 ($a) and $3: ($b) do not add up to the session's $all"
}
halves or "$TMP/obs.rec" 1.0 "$TMP/obs-replay"
# The same where the observer started 20 ms before the first perf sample
# (a loaded machine): the window from the start holds its first samples.
"$TESTS_BIN/gen_records" observer-first "$TMP/first.rec" || fail "gen_records observer-first"
"$SHIMTOP" -i "$TMP/first.rec" -b --format json >"$TMP/of0" 2>/dev/null
halves of "$TMP/first.rec" 0.5 "$TMP/of0"
share=$(json_get "$TMP/or1" "round(sum(t['time_share'] for t in d['observer']['range']['tags']), 6)")
[ "$share" = "1.0" ] || fail "the range's tag shares add up to $share"
n=$(json_get "$TMP/or1" "d['observer']['range']['rate']['n']")
[ "$n" -gt 0 ] || fail "no rate distribution in the range: $(json_get "$TMP/or1" "d['observer']['range']")"
# The first 0.4 s window that holds observer samples: on a loaded machine
# the observer's thread may first run after the session's first samples.
win=
for w in 0.2:0.6 0.6:1.0 1.0:1.4 1.4:1.8; do
	"$SHIMTOP" --replay "$TMP/obs.rec" --range "$w" --format json >"$TMP/ow" 2>"$TMP/err" ||
		fail "observer --range $w: $(cat "$TMP/err")"
	[ "$(json_get "$TMP/ow" "sum(t['samples'] for t in d['observer']['range']['tags'])")" -gt 0 ] &&
		win=$w && break
done
[ -n "$win" ] || fail "no 0.4 s window of the recording holds observer samples"
"$SHIMTOP" --replay "$TMP/obs.rec" --range "${win:-0.2:0.6}" >"$TMP/otext" 2>"$TMP/err" ||
	fail "observer --range text: $(cat "$TMP/err")"
from=$(printf '%.3f' "${win%:*}") to=$(printf '%.3f' "${win#*:}")
grep -Eq "^observer in the range $from-$to s \(above: the whole session\)" "$TMP/otext" ||
	fail "the text report does not cut the observer for the range: $(cat "$TMP/otext")"
grep -Eq "^work items/s per (sample|millisecond): n [1-9][0-9]* " "$TMP/otext" ||
	fail "no rate distribution in the range's text: $(cat "$TMP/otext")"
finish
