#!/bin/sh
# target_slowdown.sh - what profiling costs the program profiled: a
# clang++ -O2 compile (bench/heavy_cc.py's file, about 15 s here) run to
# its end alone, under perf record -g and under shimtop with its
# defaults, at RATE samples a second (default 1000; 10000 too by
# RATES="1000 10000"), ROUNDS times each (default 2), interleaved.  The
# compile's own time is measured by /usr/bin/time inside each profiler
# (its wall time and its CPU, user + system: the kernel's stack copies
# are made in the compile's context and count there).  Prints each
# round, then the medians and each profiler's slowdown over the compile
# alone.
set -eu
: "${SHIMTOP:?}"
ROUNDS=${ROUNDS:-2}
RATES=${RATES:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/heavy_cc.py" "$dir/heavy.cc"
compile() {
	/usr/bin/time -f "%e %U %S" -o "$dir/time" clang++ -std=c++17 -O2 -c "$dir/heavy.cc" \
		-o "$dir/heavy.o"
}
: >"$dir/rounds"
for rate in $RATES; do
	period=$((1000000000 / rate))
	round=1
	while [ "$round" -le "$ROUNDS" ]; do
		for how in alone perf shimtop; do
			case $how in
			alone)	compile ;;
			perf)	perf record -q -e cpu-clock -g -c "$period" -o "$dir/perf.data" -- \
					/usr/bin/time -f "%e %U %S" -o "$dir/time" clang++ -std=c++17 -O2 \
					-c "$dir/heavy.cc" -o "$dir/heavy.o" >/dev/null 2>&1 ;;
			shimtop) "$SHIMTOP" --batch -c "$period" -- /usr/bin/time -f "%e %U %S" \
					-o "$dir/time" clang++ -std=c++17 -O2 -c "$dir/heavy.cc" \
					-o "$dir/heavy.o" >"$dir/shimtop.txt" 2>&1 ;;
			esac
			read -r wall user sys <"$dir/time"
			echo "$rate $how $round $wall $user $sys" | tee -a "$dir/rounds"
		done
		round=$((round + 1))
	done
done
python3 - "$dir/rounds" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    rate, how, _, wall, user, sys_ = line.split()
    rows[rate, how].append((float(wall), float(user) + float(sys_)))
for rate in sorted({r for r, _ in rows}, key=int):
    med = {how: (statistics.median(w for w, _ in rows[rate, how]),
                 statistics.median(c for _, c in rows[rate, how]))
           for how in ("alone", "perf", "shimtop")}
    a = med["alone"]
    for how in ("perf", "shimtop"):
        w, c = med[how]
        print(f"{rate:>5} Hz {how:>8}: wall {w:.2f} s (+{100 * (w / a[0] - 1):.1f}%), "
              f"CPU {c:.2f} s (+{100 * (c / a[1] - 1):.1f}%); alone {a[0]:.2f} s, {a[1]:.2f} s CPU")
PY
