#!/bin/sh
# t-observer-threads.sh - the observer on a target whose threads all
# publish (the demo with two more threads): live, recorded and replayed,
# the tags are the demo's phases and nothing else, every thread's work is
# counted, and the run keeps to its duration and to bounded memory.
. "$TESTS_DIR/lib.sh"

start_demo --threads 2 --thread-delay 0 --seconds 30
max_rss_kb "$TMP/live" "$SHIMTOP" -p "$DEMO_PID" --observe --batch --duration 3 \
	--format json --record "$TMP/rec"
read -r st kib <"$TMP/live"
[ "$st" -eq 0 ] || fail "observing a 3-thread target exited $st: $(cat "$TMP/live.err")"
elapsed=$(json_get "$TMP/live.out" "d['elapsed']")
echo "live: sampled ${elapsed} s, peak RSS ${kib} KiB"
# It stops at its duration (its own clock: the host's load only stretches
# start-up and the drain) and keeps to bounded memory; the defect this
# guards against ran 10.8 s and took 2.5 GB.
python3 -c "import sys; sys.exit(not float(sys.argv[1]) < 3.5)" "$elapsed" ||
	fail "--duration 3 sampled for $elapsed s"
[ "$kib" -lt 300000 ] || fail "peak RSS $kib KiB (over 300 MB)"
"$SHIMTOP" --replay "$TMP/rec" --batch --format json >"$TMP/replay.out" 2>"$TMP/err" ||
	fail "replay failed: $(cat "$TMP/err")"

for run in live replay; do
	python3 - "$TMP/$run.out" "$run" <<'PY' || fail "$run: see above"
import json, sys
d = json.load(open(sys.argv[1]))
o = d['observer']
tags = {t['tag']: t for t in o['tags']}
bad = sorted(set(tags) - {0, 1, 2, 3, 4})
print(f"{sys.argv[2]}: {len(tags)} tags {sorted(tags)[:10]}, "
      f"{o['taken']} samples, {o['batches_missing']} batches missing")
if bad:
    sys.exit(f"{sys.argv[2]}: tags that are no phase: {bad[:10]}")
phases = [t for t in o['tags'] if t['tag'] in (1, 2, 3, 4)]
if len(phases) != 4:
    sys.exit(f"{sys.argv[2]}: {len(phases)} phases seen, not 4")
# Three threads run the phases: each phase's thread-samples outnumber
# the samples taken (one thread alone gives at most one per sample).
total = sum(t['samples'] for t in o['tags'])
if total < 2.5 * o['taken']:
    sys.exit(f"{sys.argv[2]}: {total} thread-samples for {o['taken']} samples: "
             "not every thread was read")
for t in phases:
    if t['rates'][0]['delta'] <= 0:
        sys.exit(f"{sys.argv[2]}: phase {t['tag']} counted no work")
PY
done
# The replay holds what the live session took.  A live session that could
# not drain its ring within the stop's 500 ms (a slow machine: ASan)
# records the rest unread and counts it as dropped: then the replay has
# those batches too, and more samples, never fewer.
python3 - "$TMP/live.out" "$TMP/replay.out" <<'PY' || fail "replay differs from live"
import json, sys
live, replay = (json.load(open(p))['observer'] for p in sys.argv[1:3])
a = {t['tag']: (t['samples'], t['rates'][0]['delta']) for t in live['tags']}
b = {t['tag']: (t['samples'], t['rates'][0]['delta']) for t in replay['tags']}
if live['ring_dropped'] == 0:
    assert a == b, f"nothing dropped live, yet live {a} and replay {b}"
else:
    print(f"live dropped {live['ring_dropped']} observer batches at its stop")
    assert set(a) == set(b), (a, b)
    for tag in a:
        assert b[tag][0] >= a[tag][0] and b[tag][1] >= a[tag][1], (tag, a[tag], b[tag])
PY
finish
