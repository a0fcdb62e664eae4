#!/bin/sh
# snapshot_size.sh - what keeping a profile costs on disk and in time,
# beside perf in the same run: the demo runs SECONDS (default 10) while
# shimtop (-g, cpu-clock every 250 us, --snapshot-on-exit) and perf
# record (-g, cpu-clock every 250 us) sample it at once.  Reported: each
# file's bytes per sample, the time shimtop takes to write the snapshot
# of the session and to open it again (-i, batch), and the pprof export
# against perf's own perf.data.
set -eu
: "${SHIMTOP:?}" "${SHIMTOP_DEMO:?}"
SECONDS_RUN=${SECONDS_RUN:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$SHIMTOP_DEMO" --seconds $((SECONDS_RUN + 2)) >/dev/null 2>&1 &
demo=$!
sleep 0.5
perf record -q -g -e cpu-clock -c 250000 -p "$demo" -o "$tmp/perf.data" -- \
	sleep "$SECONDS_RUN" >/dev/null 2>&1 &
perf_pid=$!
"$SHIMTOP" -b -g -c 250000 -p "$demo" --duration "$SECONDS_RUN" --format json \
	--snapshot-on-exit "$tmp/s.snap" >"$tmp/live.json" 2>"$tmp/err"
wait "$perf_pid" || true
wait "$demo" || true

samples=$(python3 -c "import json; print(json.load(open('$tmp/live.json'))['samples'])")
perf_samples=$(perf script -i "$tmp/perf.data" -F comm 2>/dev/null | grep -c shimtop-demo || true)
snap=$(wc -c <"$tmp/s.snap")
pdata=$(wc -c <"$tmp/perf.data")

# Writing again (from the snapshot) and opening, timed.
t0=$(date +%s.%N)
"$SHIMTOP" -b -i "$tmp/s.snap" --snapshot-on-exit "$tmp/t.snap" >/dev/null 2>&1
t1=$(date +%s.%N)
"$SHIMTOP" -b -i "$tmp/s.snap" >/dev/null 2>&1
t2=$(date +%s.%N)
"$SHIMTOP" -i "$tmp/s.snap" --export pprof -o "$tmp/p.pb.gz" 2>/dev/null
pprof=$(wc -c <"$tmp/p.pb.gz")

python3 - "$samples" "$perf_samples" "$snap" "$pdata" "$t0" "$t1" "$t2" "$pprof" <<'PY'
import sys
s, ps, snap, pdata, t0, t1, t2, pprof = sys.argv[1:]
s, ps, snap, pdata, pprof = int(s), int(ps or 0), int(snap), int(pdata), int(pprof)
t0, t1, t2 = float(t0), float(t1), float(t2)
print(f"shimtop snapshot: {s} samples, {snap} bytes, {snap / s:.1f} bytes a sample")
if ps:
    print(f"perf.data (perf record -g): {ps} samples, {pdata} bytes, {pdata / ps:.1f} bytes a sample")
    print(f"ratio snapshot/perf.data per sample: {(snap / s) / (pdata / ps):.3f}")
print(f"open, replay and save again: {t1 - t0:.2f} s; open and report: {t2 - t1:.2f} s")
print(f"pprof export of the snapshot: {pprof} bytes")
PY
