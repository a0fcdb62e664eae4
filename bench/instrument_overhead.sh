#!/bin/sh
# instrument_overhead.sh - what the -finstrument-functions hooks cost the
# demo: its work items per phase, built normally and built with
# -finstrument-functions with libshimtop-instrument.so preloaded (no
# shimtop attached: the hooks' own cost).  Three runs of each, alternated,
# SECONDS_EACH long; medians.
set -eu
: "${SHIMTOP_DEMO:?}" "${SHIMTOP_DEMO_INSTRUMENTED:?}" "${SHIMTOP_INSTRUMENT:?}"
SECONDS_EACH=${SECONDS_EACH:-4}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for i in 1 2 3; do
	"$SHIMTOP_DEMO" --seconds "$SECONDS_EACH" --no-signals --report-work 2>>"$out"
	LD_PRELOAD="$SHIMTOP_INSTRUMENT" "$SHIMTOP_DEMO_INSTRUMENTED" \
		--seconds "$SECONDS_EACH" --no-signals --report-work 2>>"$out"
done
python3 - "$out" <<'PY'
import statistics, sys
lines = [l for l in open(sys.argv[1]) if "phase_items=" in l]
vals = [list(map(int, l.split("phase_items=")[1].split(","))) for l in lines]
plain, inst = vals[0::2], vals[1::2]
names = ["compute", "pointer_chase", "branchy", "recursive"]
print("instrument hooks: work items per phase, median of 3 runs")
for i, n in enumerate(names):
    a = statistics.median(r[i] for r in plain)
    b = statistics.median(r[i] for r in inst)
    print(f"  {n:14s} plain {a:>10.0f}  instrumented {b:>10.0f}  overhead {100 * (a / b - 1):6.1f}%")
a = statistics.median(sum(r) for r in plain)
b = statistics.median(sum(r) for r in inst)
print(f"  {'all':14s} plain {a:>10.0f}  instrumented {b:>10.0f}  overhead {100 * (a / b - 1):6.1f}%")
PY
