#!/bin/sh
# ab_compile.sh - two shimtop builds attached to the same clang++ compile
# at once, at 10 kHz, each its task-clock and page faults (perf stat): a
# paired comparison, since this VM's figures for one build move 20%
# between rounds; each build starts first in every other round.
# A=path B=path (absolute), ROUNDS (default 6), SECONDS_EACH (default 6).
# Prints each round's B/A and their median.  One build as both A and B
# (6 rounds of 3 s): median 1.033, rounds 0.963-1.049: differences
# under 5% are not told apart.
set -eu
: "${A:?}" "${B:?}"
ROUNDS=${ROUNDS:-6}
SECONDS_EACH=${SECONDS_EACH:-6}
dir=$(mktemp -d)
cxx=
trap 'kill $cxx 2>/dev/null; rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc"
: >"$dir/ratios"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	clang++ -std=c++17 -O2 -c "$dir/heavy.cc" -o "$dir/heavy.o" &
	cxx=$!
	sleep 0.5
	pids=
	# Each started first in every other round: the second to start came
	# out about 5% cheaper whichever build it was.
	order="a b"
	[ $((round % 2)) -eq 0 ] && order="b a"
	for x in $order; do
		[ "$x" = a ] && bin=$A || bin=$B
		perf stat -x, -e task-clock,page-faults -o "$dir/$x.stat" -- "$bin" --batch \
			--duration "$SECONDS_EACH" -c 100000 -p "$cxx" >"$dir/$x.txt" 2>/dev/null &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
	kill "$cxx" 2>/dev/null || true
	wait "$cxx" 2>/dev/null || true
	python3 - "$dir" "$round" >>"$dir/ratios" <<'PY'
import re, sys
d, rnd = sys.argv[1], sys.argv[2]
def stat(x, what):
    return next(float(l.split(",")[0]) for l in open(f"{d}/{x}.stat") if what in l)
def dropped(x):
    m = re.search(r"\bdropped (\d+)", open(f"{d}/{x}.txt").read())
    return int(m.group(1)) if m else -1
a, b = stat("a", "task-clock"), stat("b", "task-clock")
print(f"{b / a:.3f} round {rnd}: A {a:.0f} ms, {stat('a', 'page-faults'):.0f} faults, "
      f"{dropped('a')} dropped; B {b:.0f} ms, {stat('b', 'page-faults'):.0f} faults, "
      f"{dropped('b')} dropped")
PY
	tail -1 "$dir/ratios" | cut -d' ' -f2- | sed "s/\$/: B\/A $(tail -1 "$dir/ratios" | cut -d' ' -f1)/"
	round=$((round + 1))
done
python3 -c 'import statistics, sys; r = [float(l.split()[0]) for l in open(sys.argv[1])]; print(f"B/A task-clock, median of {len(r)} rounds: {statistics.median(r):.3f} (from {min(r):.3f} to {max(r):.3f})")' "$dir/ratios"
