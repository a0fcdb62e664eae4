#!/bin/sh
# snapshot_long.sh - a snapshot of a long session: 10 minutes at 10 kHz
# (6,000,000 samples with call chains and counters, gen_records steady;
# the history keeps what its 600 s and 256 MiB allow).  Timed, RUNS
# times (default 3; medians, this VM is noisy): writing the snapshot at
# the end of a replay of the recording (shimtop's own figure, on its
# line), and opening the snapshot for a report, with its largest
# resident size.  Targets: write and reopen under 1 s each.
set -eu
: "${SHIMTOP:?}" "${GEN_RECORDS:?}"
MINUTES=${MINUTES:-10}
HZ=${HZ:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$GEN_RECORDS" steady "$tmp/long.rec" $((MINUTES * 60)) "$HZ"
timed() {
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	cat "$tmp/time"
}
write="" reopen=""
for i in $(seq 1 "${RUNS:-3}"); do
	"$SHIMTOP" -b -i "$tmp/long.rec" --snapshot-on-exit "$tmp/long.snap" >/dev/null 2>"$tmp/err"
	write="$write $(sed -n 's/^shimtop: snapshot .* in \([0-9.]*\) s).*/\1/p' "$tmp/err")"
	reopen="$reopen $(timed "$SHIMTOP" -b -i "$tmp/long.snap" | tr ' ' :)"
done
samples=$("$SHIMTOP" -b -i "$tmp/long.snap" --format json |
	python3 -c "import json, sys; print(json.load(sys.stdin)['samples'])")
python3 - "$samples" "$(wc -c <"$tmp/long.rec")" "$(wc -c <"$tmp/long.snap")" \
	"$write" "$reopen" <<'PY'
import statistics, sys
samples, rec, snap = (int(x) for x in sys.argv[1:4])
wt = statistics.median(float(w) for w in sys.argv[4].split())
runs = [tuple(map(float, r.split(':'))) for r in sys.argv[5].split()]
ot, om = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
print(f"samples: {samples}; recording {rec} bytes, snapshot {snap} bytes "
      f"({snap / samples:.2f} bytes a sample, {snap / rec:.3f} of the recording)")
print(f"medians of {len(runs)} runs")
print(f"write the snapshot: {wt:.2f} s")
print(f"open the snapshot and report: {ot:.2f} s, {om / 1024:.0f} MB resident")
PY
