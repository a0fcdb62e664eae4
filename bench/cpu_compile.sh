#!/bin/sh
# cpu_compile.sh - shimtop's CPU while attached to a C++ compile (clang++
# -O2: hot code in libLLVM and libclang-cpp, tens of thousands of symbols,
# new addresses all the time), beside perf record attached to the same
# compile at the same rate, in the same run.  CPU is each tool's
# task-clock (perf stat) over its wall time; perf record writes to a file
# and resolves nothing, shimtop symbolizes every sample as it arrives.
# CALL_GRAPH=auto (or dwarf): shimtop --call-graph CALL_GRAPH beside perf
# record -g, the call chains a user asks perf for, with the CPU of the
# perf script that reads them added to perf's.  (perf record --call-graph
# dwarf is no comparison here: its perf script spent 300 s of CPU on 6 s
# of this compile at 1 kHz.)
set -eu
: "${SHIMTOP:?}"
SECONDS_EACH=${SECONDS_EACH:-8}
CALL_GRAPH=${CALL_GRAPH:-}
if [ -n "$CALL_GRAPH" ]; then
	shimtop_cg="--call-graph $CALL_GRAPH"
	perf_cg="-g"
else
	shimtop_cg=""
	perf_cg=""
fi
dir=$(mktemp -d)
trap 'kill $cxx 2>/dev/null; rm -rf "$dir"' EXIT
python3 - "$dir/heavy.cc" <<'PY'
import sys
out = ["#include <%s>\n" % h for h in ("map", "vector", "string", "algorithm",
       "sstream", "functional", "unordered_map")]
for i in range(40):
    out.append("""struct S%d { int a; std::string b; bool operator<(const S%d &o) const { return a < o.a; } };
int f%d(int n) { std::vector<S%d> v; std::map<std::string, S%d> m; std::unordered_map<int, S%d> u;
  for (int k = 0; k < n; k++) { v.push_back({k, std::to_string(k)}); m[v.back().b] = v.back(); u[k] = v.back(); }
  std::sort(v.begin(), v.end()); std::ostringstream os; for (auto &e : m) os << e.first;
  std::function<int(int)> g = [&](int x) { return x + (int)u.size(); }; return (int)os.str().size() + g(n); }
""" % ((i,) * 6))
open(sys.argv[1], "w").write("".join(out))
PY
for hz in 1000 10000; do
	period=$((1000000000 / hz))
	clang++ -std=c++17 -O2 -c "$dir/heavy.cc" -o "$dir/heavy.o" &
	cxx=$!
	sleep 0.5
	# shellcheck disable=SC2086
	perf stat -x, -e task-clock -o "$dir/perf.stat" -- perf record -q -e cpu-clock $perf_cg \
		-c "$period" -p "$cxx" -o "$dir/perf.data" -- sleep "$SECONDS_EACH" \
		>/dev/null 2>&1 &
	p=$!
	# shellcheck disable=SC2086
	perf stat -x, -e task-clock -o "$dir/shimtop.stat" -- "$SHIMTOP" --batch $shimtop_cg \
		--duration "$SECONDS_EACH" -c "$period" -p "$cxx" --format json \
		>"$dir/shimtop.json"
	wait "$p"
	: >"$dir/post.stat"
	[ -n "$perf_cg" ] && perf stat -x, -e task-clock -o "$dir/post.stat" -- \
		perf script -i "$dir/perf.data" -F ip,sym >/dev/null 2>&1
	kill "$cxx" 2>/dev/null || true
	wait "$cxx" 2>/dev/null || true
	python3 - "$dir" "$hz" "$SECONDS_EACH" <<'PY'
import json, sys
d, hz, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
def task_ms(f):
    return next((float(l.split(",")[0]) for l in open(f) if "task-clock" in l), 0.0)
s, p = task_ms(d + "/shimtop.stat"), task_ms(d + "/perf.stat") + task_ms(d + "/post.stat")
j = json.load(open(d + "/shimtop.json"))
print("%5s Hz, %.0f s: shimtop %.2f%% of a core (%.0f ms; %d samples, %d dropped, "
      "%.1f%% unknown), perf record %.2f%% (%.0f ms): ratio %.2f"
      % (hz, secs, 100 * s / 1000 / secs, s, j["samples"], j["dropped"],
         100.0 * j["unknown"] / max(j["samples"], 1), 100 * p / 1000 / secs, p, s / p))
PY
done
