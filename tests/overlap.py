#!/usr/bin/env python3
"""overlap.py SHIMTOP_JSON PERF_SCRIPT_TXT - the overlap of two profiles
(Inoue and Nakatani, OOPSLA 2009, section 7.2): the sum over symbols of
the smaller of the two shares.  100% means identical.  Prints the overlap
and its sampling floor, and the largest differences on stderr.

The floor is the overlap two perfect, independent samplers would reach
with these sample counts: the mean over draws from the two profiles'
pooled shares.  A flat profile (make's compilers spend theirs in
1,500 kernel and cc1 functions) is under 90% by chance alone, so the
tests hold shimtop to the floor where it is lower."""
import json
import random
import re
import sys

# shimtop names a function no symbol names by its .eh_frame bounds
# (MODULE+0xSTART); perf calls every such address [unknown].  Compared at
# perf's resolution.
UNNAMED = re.compile(r"[^ ;]+\+0x[0-9a-f]+")
# perf 6.1 names some glibc functions by an old version's alias at the
# same address (README: names that differ from perf): one name here.
COMPAT = {"cfree@GLIBC_2.2.5": "free"}

DRAWS = 20


def shimtop_profile(path):
    d = json.load(open(path))
    shares = {}
    for r in d["rows"]:
        name = "[unknown]" if UNNAMED.fullmatch(r["symbol"]) else r["symbol"]
        shares[name] = shares.get(name, 0.0) + r["self"]
    return shares, int(d.get("samples", 0))


def perf_profile(path):
    # perf script -F ip,sym lines, one per sample: "    7fec1e20f33c name"
    # (counted here: perf report rounds each of thousands of rows up to
    # 0.01% and its column then sums to more than 100%).
    counts = {}
    total = 0
    for line in open(path):
        parts = line.strip().split(None, 1)
        if not parts:
            continue
        name = parts[1] if len(parts) > 1 else "[unknown]"
        name = COMPAT.get(name, name)
        counts[name] = counts.get(name, 0) + 1
        total += 1
    return ({k: 100.0 * v / total for k, v in counts.items()} if total else {}), total


def overlap(a, b):
    return sum(min(a.get(k, 0.0), b.get(k, 0.0)) for k in set(a) | set(b))


def drawn(names, weights, n, rng):
    counts = {}
    for k in rng.choices(names, weights, k=n):
        counts[k] = counts.get(k, 0) + 1
    return {k: 100.0 * v / n for k, v in counts.items()}


def floor(a, na, b, nb):
    """The mean overlap of DRAWS pairs of samples of na and nb from the
    pooled shares (fixed seed: the same profiles give the same floor)."""
    if na <= 0 or nb <= 0:
        return 100.0
    names = sorted(set(a) | set(b))
    weights = [a.get(k, 0.0) + b.get(k, 0.0) for k in names]
    rng = random.Random(1)
    return sum(overlap(drawn(names, weights, na, rng), drawn(names, weights, nb, rng))
               for _ in range(DRAWS)) / DRAWS


def main():
    (a, na), (b, nb) = shimtop_profile(sys.argv[1]), perf_profile(sys.argv[2])
    if not a or not b:
        sys.stderr.write("an empty profile (shimtop %d rows, perf %d rows)\n"
                         % (len(a), len(b)))
        print("0.0 100.0")
        return
    diffs = sorted(set(a) | set(b),
                   key=lambda k: -abs(a.get(k, 0.0) - b.get(k, 0.0)))[:5]
    for k in diffs:
        sys.stderr.write("%-40s shimtop %6.2f%%  perf %6.2f%%\n"
                         % (k[:40], a.get(k, 0.0), b.get(k, 0.0)))
    print("%.1f %.1f" % (overlap(a, b), floor(a, na, b, nb)))


main()
