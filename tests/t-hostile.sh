#!/bin/sh
# t-hostile.sh - what a target controls cannot crash, bloat or fool
# shimtop: a signal segment truncated under the observer; a target that
# forks 50 short-lived children a second; a recording that names a FIFO
# as a mapped file, or a library whose debuglink names one; a recording of
# 100,000 processes.
. "$TESTS_DIR/lib.sh"

# A segment truncated during --observe: one line naming it, status 1, and
# what was collected before it is still reported.
start_demo --seconds 20
seg=/dev/shm/shimtop-$DEMO_PID
# The demo dies of SIGBUS in its own truncated segment and cannot remove it.
LEFT_FILES="$LEFT_FILES $seg"
"$SHIMTOP" -p "$DEMO_PID" --observe --batch --duration 4 --format json \
	>"$TMP/trunc.json" 2>"$TMP/trunc.err" &
sp=$!
# Truncated once shimtop has the segment mapped and has read it a while.
i=0
while ! grep -q "shimtop-$DEMO_PID" "/proc/$sp/maps" 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1
truncate -s 0 "$seg"
wait "$sp"
st=$?
[ "$st" -eq 1 ] || fail "truncated segment: exit $st, expected 1: $(cat "$TMP/trunc.err")"
grep -q "process $DEMO_PID truncated its signal segment /dev/shm/shimtop-$DEMO_PID" \
	"$TMP/trunc.err" || fail "truncated segment: message: $(cat "$TMP/trunc.err")"
[ "$(grep -c . "$TMP/trunc.err")" -eq 1 ] || fail "more than one line: $(cat "$TMP/trunc.err")"
taken=$(json_get "$TMP/trunc.json" "d['observer']['taken']")
rows=$(json_get "$TMP/trunc.json" "len(d['rows'])")
echo "truncated: $taken observer samples and $rows rows kept"
[ "${taken:-0}" -gt 1000 ] || fail "observer samples before the truncation lost ($taken)"
[ "${rows:-0}" -gt 0 ] || fail "perf table lost"
kill "$DEMO_PID" 2>/dev/null

# A forking target: shimtop's descriptors and memory stay flat, the
# session is not ended early, and the children's samples resolve.
"$TESTS_BIN/forker" --rate 50 --seconds 14 &
fk=$!
BG_PIDS="$BG_PIDS $fk"
sleep 0.3
"$SHIMTOP" -p "$fk" --batch --duration 10 --format json >"$TMP/fork.json" 2>"$TMP/fork.err" &
sp=$!
sleep 3
fd3=$(ls "/proc/$sp/fd" | wc -l)
rss3=$(awk '/^VmRSS/ {print $2}' "/proc/$sp/status")
sleep 6
fd9=$(ls "/proc/$sp/fd" | wc -l)
rss9=$(awk '/^VmRSS/ {print $2}' "/proc/$sp/status")
wait "$sp"
st=$?
echo "forking target: fds $fd3 -> $fd9, RSS $rss3 -> $rss9 KiB between 3 s and 9 s"
[ "$st" -eq 0 ] || fail "forking target: exit $st: $(cat "$TMP/fork.err")"
[ $((fd9 - fd3)) -le 8 ] || fail "descriptors grew from $fd3 to $fd9 (300 children)"
[ $((rss9 - rss3)) -lt 30000 ] || fail "RSS grew from $rss3 to $rss9 KiB (300 children)"
python3 - "$TMP/fork.json" <<'PY' || fail "forking target: see above"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r['symbol']: r['samples'] for r in d['rows']}
# A child sampled before its FORK record was read had no map: [anon].
anon = 100 * sum(r['samples'] for r in d['rows'] if r['module'] == '[anon]') / d['samples']
unknown = 100 * d['unknown'] / d['samples']
print(f"forking target: {d['samples']} samples, child_work {rows.get('child_work', 0)}, "
      f"[anon] {anon:.2f}%, unknown {unknown:.2f}%, status: {d['status']}")
if 'exited' in d['status']:
    sys.exit("the session ended early: " + d['status'])
if rows.get('child_work', 0) < 100:
    sys.exit("the children's samples do not resolve to child_work")
if anon > 0.1:
    sys.exit(f"{anon:.2f}% of samples in [anon] (children sampled before their FORK record): "
             f"{[(r['symbol'], r.get('pid'), r['samples']) for r in d['rows'] if r['module'] == '[anon]'][:10]}")
PY
kill "$fk" 2>/dev/null

# A recording that names a FIFO as a mapped file: replay neither blocks
# on it nor reads it; the sample stays, [unknown] of that module.
mkfifo "$TMP/fifo"
"$TESTS_BIN/gen_records" path "$TMP/fifo.rec" "$TMP/fifo" || fail "gen_records path"
timeout -k 5 20 "$SHIMTOP" --replay "$TMP/fifo.rec" --batch --format json \
	>"$TMP/fifo.json" 2>"$TMP/err"
st=$?
[ "$st" -eq 0 ] || fail "replay naming a FIFO: exit $st (124: it blocked): $(cat "$TMP/err")"
r=$(json_get "$TMP/fifo.json" "[(x['module'], x['symbol'], x['samples']) for x in d['rows']]")
[ "$r" = "[('fifo', '[unknown]', 1)]" ] || fail "replay naming a FIFO: rows $r"

# A stripped library whose debuglink names a FIFO beside it: the search
# for its debug file must not open (and block on) the FIFO.
mkdir -p "$TMP/lib"
printf 'int one(int x) { return x + 1; }\n' >"$TMP/lib/one.c"
if cc -shared -fPIC -O1 -o "$TMP/lib/libone.so" "$TMP/lib/one.c" &&
	: >"$TMP/lib/libone.debug" &&
	objcopy --strip-unneeded --add-gnu-debuglink="$TMP/lib/libone.debug" \
		"$TMP/lib/libone.so"; then
	rm "$TMP/lib/libone.debug"
	mkfifo "$TMP/lib/libone.debug"
	"$TESTS_BIN/gen_records" path "$TMP/link.rec" "$TMP/lib/libone.so" ||
		fail "gen_records path"
	timeout -k 5 20 "$SHIMTOP" --replay "$TMP/link.rec" --batch --format json \
		>"$TMP/link.json" 2>"$TMP/err"
	st=$?
	[ "$st" -eq 0 ] || fail "debuglink naming a FIFO: exit $st (124: it blocked): $(cat "$TMP/err")"
else
	fail "cannot build the debuglink fixture"
fi

# 100,000 processes, one sample each (4.8 MB): small per-process state.
"$TESTS_BIN/gen_records" pids "$TMP/pids.rec" 100000 || fail "gen_records pids"
max_rss_kb "$TMP/pids" timeout -k 5 120 "$SHIMTOP" --replay "$TMP/pids.rec" --batch --format json
read -r st kib <"$TMP/pids"
echo "100,000 processes: replay peak RSS $kib KiB"
[ "$st" -eq 0 ] || fail "replay of 100,000 processes: exit $st: $(cat "$TMP/pids.err")"
n=$(json_get "$TMP/pids.out" "d['samples']")
[ "$n" = 100000 ] || fail "replay of 100,000 processes counted $n samples"
# 114 MB in a plain build (2026-11-23), about 1.1 KiB a process with its
# thread, symbol row and history entry; ASan's redzones and size classes
# take it to about 205 MB.  A leak of per-process state passes 250 MB.
# On the VMs of 2026-11-28 the same code peaked at 142 MB plain and
# 258 MB under ASan (stop 62's build as this one's): the sanitized
# build is held to 300 MB, which a leak of 0.5 KiB a process still passes.
bound=250000
[ "${SHIMTOP_SANITIZED:-no}" = yes ] && bound=300000
[ "$kib" -lt "$bound" ] || fail "replay of 100,000 processes peaked at $kib KiB (over $bound)"
finish
