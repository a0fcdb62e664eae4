#!/usr/bin/env python3
"""overlap.py SHIMTOP_JSON PERF_SCRIPT_TXT - the overlap of two profiles
(Inoue and Nakatani, OOPSLA 2009, section 7.2): the sum over symbols of
the smaller of the two shares.  100% means identical.  Prints the overlap
and the largest differences."""
import json
import re
import sys


def shimtop_shares(path):
    d = json.load(open(path))
    shares = {}
    for r in d["rows"]:
        shares[r["symbol"]] = shares.get(r["symbol"], 0.0) + r["self"]
    return shares


def perf_shares(path):
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
        counts[name] = counts.get(name, 0) + 1
        total += 1
    return {k: 100.0 * v / total for k, v in counts.items()} if total else {}


def main():
    a, b = shimtop_shares(sys.argv[1]), perf_shares(sys.argv[2])
    if not a or not b:
        print("overlap: an empty profile (shimtop %d rows, perf %d rows)"
              % (len(a), len(b)))
        print("0.0")
        return
    overlap = sum(min(a.get(k, 0.0), b.get(k, 0.0)) for k in set(a) | set(b))
    diffs = sorted(set(a) | set(b),
                   key=lambda k: -abs(a.get(k, 0.0) - b.get(k, 0.0)))[:5]
    for k in diffs:
        sys.stderr.write("%-40s shimtop %6.2f%%  perf %6.2f%%\n"
                         % (k[:40], a.get(k, 0.0), b.get(k, 0.0)))
    print("%.1f" % overlap)


main()
