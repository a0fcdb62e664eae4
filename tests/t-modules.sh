#!/bin/sh
# t-modules.sh - the per-module table (--modules, "per_module", the UI's
# O) against perf report --sort dso over one perf.data of Debian's
# python3 compressing (libz), hashing (libcrypto) and sorting
# (libpython): each module's share within 0.05 points of perf's, the
# same modules, and the text table the JSON's.
. "${TESTS_DIR:?run through make check}/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
perf record -q -F 2000 -o "$TMP/mod.data" -- python3 -c '
import zlib, hashlib, time
t = time.time(); d = bytes(range(256)) * 4000
while time.time() - t < 1.0:
    zlib.compress(d, 6); hashlib.sha256(d).digest(); sorted(str(i) for i in range(2000))
' >/dev/null 2>"$TMP/err" || skip "perf record cannot sample here: $(tail -1 "$TMP/err")"
perf report -i "$TMP/mod.data" --sort dso --stdio -q 2>/dev/null |
	awk 'NF == 2 { sub(/%/, "", $1); print $2, $1 }' >"$TMP/perf.txt"
[ "$(wc -l <"$TMP/perf.txt")" -ge 4 ] || fail "perf report named $(wc -l <"$TMP/perf.txt") modules"
"$SHIMTOP" -i "$TMP/mod.data" --batch --format json >"$TMP/mod.json" 2>"$TMP/err" ||
	fail "shimtop -i failed: $(cat "$TMP/err")"
"$SHIMTOP" -i "$TMP/mod.data" --batch --modules >"$TMP/mod.txt" 2>"$TMP/err" ||
	fail "shimtop -i --modules failed: $(cat "$TMP/err")"
python3 - "$TMP/mod.json" "$TMP/perf.txt" "$TMP/mod.txt" <<'PY' || fail "the module table differs"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["per_module"]
ours = {("[kernel.kallsyms]" if r["module"] == "[kernel]" else r["module"]): r for r in rows}
perf = {}
for line in open(sys.argv[2]):
    name, share = line.split()
    perf[name] = float(share)
bad = []
if set(ours) != set(perf):
    bad.append("modules: shimtop only %s, perf only %s"
               % (sorted(set(ours) - set(perf)), sorted(set(perf) - set(ours))))
for name, share in perf.items():
    if name in ours and abs(ours[name]["self"] - share) > 0.05:
        bad.append("%s: shimtop %.2f%%, perf %.2f%%" % (name, ours[name]["self"], share))
if sum(r["samples"] for r in rows) != d["samples"]:
    bad.append("the modules hold %d samples of %d" % (sum(r["samples"] for r in rows), d["samples"]))
syms = {}	# the symbol table's rows may be split by process
for m, _ in {(r["module"], r["symbol"]) for r in d["rows"]}:
    syms[m] = syms.get(m, 0) + 1
for r in rows:
    if r["symbols"] != syms.get(r["module"]):
        bad.append("%s: %d symbols, the symbol table has %s" % (r["module"], r["symbols"], syms.get(r["module"])))
    if not r["named_by"] or r["unnamed"] > r["symbols"]:
        bad.append("%s: named_by %r, %d unnamed of %d" % (r["module"], r["named_by"], r["unnamed"], r["symbols"]))
# The text table: the same rows in the same order.
text = open(sys.argv[3]).read().split("\n")
at = text.index(next(l for l in text if l.split()[:2] == ["SELF%", "SAMPLES"] and "SYMBOLS" in l))
for r, line in zip(rows, text[at + 1:]):
    f = line.split()
    if f[-1] != r["module"] or int(f[1]) != r["samples"] or f[0] != "%.2f%%" % r["self"]:
        bad.append("text %r, JSON %s" % (line, r))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
finish
