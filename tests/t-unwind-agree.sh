#!/bin/sh
# t-unwind-agree.sh - the unwinder's rows (unwind_rows.c) against
# libdwfl's unwinder, frame by frame, on the same stack copies: perf
# record --call-graph dwarf of tests/call_paths_nofp, tests/plt_loop
# (PLT stubs), Debian's python3 and sqlite3, a clang++ compile and make
# -j2 of small C files (processes forked and exec'd, ld.so's start and
# lazy binding), read with SHIMTOP_UNWIND_CHECK=1 (each sample walked
# both ways).  At least 99.9% of the samples walked by rows agree in
# every frame, the rows walk at least 99% of them (libdwfl only where a
# rule is beyond them), and the disagreements are listed.  (Samples of
# a process caught mid-exec, which libdwfl cannot start on, are counted
# apart.)  With no call-graph option, python3's and sqlite3's chains
# root at their entry (95% or more): sqlite3's stack runs deeper than
# the first 8 KiB copies, which grow by themselves.
. "$TESTS_DIR/lib.sh"

command -v perf >/dev/null || skip "perf is not installed"
command -v sqlite3 >/dev/null || skip "Debian's sqlite3 is not installed"
command -v clang++ >/dev/null || skip "clang++ is not installed"

# agree NAME: $TMP/NAME.data read both ways; prints the counts.
agree() {
	SHIMTOP_UNWIND_CHECK=1 "$SHIMTOP" -i "$TMP/$1.data" -b --format json >"$TMP/$1.json" \
		2>"$TMP/$1.err" || fail "$1: shimtop -i: $(cat "$TMP/$1.err")"
	python3 - "$1" "$TMP/$1.json" <<'PY' || fail "$1: see above; disagreements: $(grep 'unwind check' "$TMP/$1.err")"
import json, sys
name, t = sys.argv[1], json.load(open(sys.argv[2]))["tree"]
same, differ = t["unwind_check_same"], t["unwind_check_differ"]
rows, dwfl = t["unwind_by_rows"], t["unwind_by_libdwfl"]
print(f"{name}: {same} of {same + differ} walks by rows agree with libdwfl "
      f"({100.0 * same / max(1, same + differ):.2f}%; {t['unwind_check_unable']} libdwfl "
      f"could not start); rows walked {rows} of {rows + dwfl}; stops {t['unwind_stops']}")
if same + differ < 200 or same < 0.999 * (same + differ):
    sys.exit(f"{name}: agreement {same} of {same + differ}")
if rows < 0.99 * (rows + dwfl):
    sys.exit(f"{name}: rows walked only {rows} of {rows + dwfl}")
PY
}

record() {
	name=$1
	shift
	perf record -q --call-graph dwarf -F 2000 -o "$TMP/$name.data" -- "$@" >/dev/null 2>"$TMP/perf.err" ||
		skip "perf record cannot sample here: $(tail -1 "$TMP/perf.err")"
}

record nofp "$TESTS_BIN/call_paths_nofp" --seconds 1
agree nofp
record plt "$TESTS_BIN/plt_loop" --seconds 1
agree plt
record python3 /usr/bin/python3 "$TESTS_DIR/py_work.py" 1.5
agree python3
echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT sum(x * x % 7) FROM c;" \
	>"$TMP/q.sql"
record sqlite3 sqlite3 :memory: ".read $TMP/q.sql"
agree sqlite3
python3 "$TESTS_DIR/../bench/heavy_cc.py" "$TMP/heavy.cc"
perf record -q --call-graph dwarf -F 1000 -o "$TMP/clang.data" -- \
	timeout 3 clang++ -std=c++17 -O2 -c "$TMP/heavy.cc" -o "$TMP/heavy.o" >/dev/null 2>&1
agree clang
mkdir "$TMP/proj"
for i in $(seq 1 40); do
	printf '#include <stdio.h>\n#include <string.h>\nint f%d(int n) { char b[64]; int s = 0;\n for (int i = 0; i < n; i++) { snprintf(b, sizeof b, "%%d", i); s += (int)strlen(b); }\n return s; }\n' \
		"$i" >"$TMP/proj/f$i.c"
done
printf 'OBJS = %s\nall: $(OBJS)\n%%.o: %%.c\n\t$(CC) -O2 -c $< -o $@\n' \
	"$(seq -f 'f%g.o' 1 40 | tr '\n' ' ')" >"$TMP/proj/Makefile"
record make make -s -j2 -C "$TMP/proj"
agree make

# By default (no call-graph option) Debian's python3, built without frame
# pointers, has its samples' chains rooted at _start: at least 95%.
"$SHIMTOP" -b --format folded -- /usr/bin/python3 "$TESTS_DIR/py_work.py" 1.5 \
	>"$TMP/py.folded" 2>"$TMP/err" || fail "python3 with the default chains: $(cat "$TMP/err")"
python3 - "$TMP/py.folded" <<'PY' || fail "python3's default tree: see above"
import collections, sys
roots, total = collections.Counter(), 0
for line in open(sys.argv[1]):
    stack, _, n = line.rstrip("\n").rpartition(" ")
    if not stack or not n.isdigit():
        continue            # the target's own output, if any
    roots[stack.split(";")[0]] += int(n)
    total += int(n)
start = roots["_start"] + roots["start_thread"] + roots["clone3"]
print(f"python3, default chains: {start} of {total} samples rooted at _start or a thread's start")
if total < 500 or start < 0.95 * total:
    sys.exit(f"roots: {roots.most_common(5)}")
PY

# sqlite3 (Debian's, stripped: its entry is named sqlite3+0xENTRY) runs
# its recursive query deeper than 8 KiB of stack: the copies grow and
# the chains reach the entry.  The query's answer goes to a file.
entry=$(readelf -h "$(command -v sqlite3)" | sed -n 's/.*Entry point address: *0x\([0-9a-f]*\).*/\1/p')
echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 8000000) SELECT sum(x * x % 7) FROM c;" \
	>"$TMP/q8.sql"
"$SHIMTOP" -b --format folded -- sqlite3 -cmd ".output $TMP/q8.out" :memory: ".read $TMP/q8.sql" \
	>"$TMP/sq.folded" 2>"$TMP/err" || fail "sqlite3 with the default chains: $(cat "$TMP/err")"
# Copies walked here alone start at 8 KiB, and grow (with the kernel's
# walker they start at 16 KiB: only samples it did not walk carry one).
SHIMTOP_KERNEL_WALK=0 "$SHIMTOP" -b -- sqlite3 -cmd ".output $TMP/q8.out" :memory: ".read $TMP/q8.sql" \
	>"$TMP/sq.txt" 2>"$TMP/err" || fail "sqlite3 with the default chains, text: $(cat "$TMP/err")"
grep -Eq "copies grown to (16|24|32) KiB" "$TMP/sq.txt" || fail "sqlite3's copies did not grow: $(grep '^chains' "$TMP/sq.txt")"
python3 - "$TMP/sq.folded" "$entry" <<'PY' || fail "sqlite3's default tree: see above"
import collections, sys
roots, total = collections.Counter(), 0
for line in open(sys.argv[1]):
    stack, _, n = line.rstrip("\n").rpartition(" ")
    if not stack or not n.isdigit():
        continue
    roots[stack.split(";")[0]] += int(n)
    total += int(n)
start = roots["_start"] + roots["sqlite3+0x" + sys.argv[2]]
print(f"sqlite3, default chains: {start} of {total} samples rooted at its entry")
if total < 2000 or start < 0.95 * total:
    sys.exit(f"roots: {roots.most_common(5)}")
PY
finish
