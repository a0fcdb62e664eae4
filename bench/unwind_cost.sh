#!/bin/sh
# unwind_cost.sh - what unwinding one sample's stack copy costs, by the
# files' rows (unwind_rows.c) and by libdwfl, on the same samples in the
# same run: perf record --call-graph dwarf of Debian's python3, sqlite3
# and a clang++ -O2 compile, read by shimtop -i with
# SHIMTOP_UNWIND_CHECK=1, which walks each sample both ways and times
# each walk.  The rows' time includes working each new address's row out
# with libdw the first time (a short recording has many such).
set -eu
: "${SHIMTOP:?}"
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/heavy_cc.py" "$tmp/heavy.cc"
cat >"$tmp/work.py" <<'PY'
import json, re
for _ in range(300):
    json.loads(json.dumps([{"a": i, "b": str(i) * 3} for i in range(2000)]))
    r = re.compile(r"(\d+)-(\w+)")
    sum(1 for i in range(5000) if r.match(f"{i}-x{i}"))
PY
echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT sum(x * x % 7) FROM c;" \
	>"$tmp/q.sql"
perf record -q --call-graph dwarf -F 2000 -o "$tmp/python3.data" -- /usr/bin/python3 "$tmp/work.py" \
	>/dev/null 2>&1
perf record -q --call-graph dwarf -F 2000 -o "$tmp/sqlite3.data" -- sqlite3 :memory: \
	".read $tmp/q.sql" >/dev/null 2>&1
perf record -q --call-graph dwarf -F 1000 -o "$tmp/clang.data" -- \
	timeout 6 clang++ -std=c++17 -O2 -c "$tmp/heavy.cc" -o "$tmp/heavy.o" >/dev/null 2>&1 || true
printf '| program | samples walked | rows a sample | libdwfl a sample | ratio | agree |\n'
printf '|---|---|---|---|---|---|\n'
for name in python3 sqlite3 clang; do
	SHIMTOP_UNWIND_CHECK=1 "$SHIMTOP" -i "$tmp/$name.data" -b --format json >"$tmp/$name.json" \
		2>/dev/null
	python3 - "$name" "$tmp/$name.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[2]))["tree"]
n = t["unwind_check_same"] + t["unwind_check_differ"]
rows, dwfl = t["unwind_check_rows_ns"] / n / 1000, t["unwind_check_libdwfl_ns"] / n / 1000
print("| %s | %d | %.2f us | %.2f us | %.2f | %.2f%% |" % (sys.argv[1], n, rows, dwfl, rows / dwfl,
      100.0 * t["unwind_check_same"] / n))
PY
done
