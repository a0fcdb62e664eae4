#!/usr/bin/env python3
"""overlap.py SHIMTOP_JSON PERF_REPORT_TXT - the overlap of two profiles
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
    # perf report --stdio -q --no-children --sort symbol lines:
    #   "    25.20%  [.] phase_branchy"
    line_re = re.compile(r"^\s*([0-9.]+)%\s+\[(.)\]\s+(.*?)(\s+-)*\s*$")
    shares = {}
    for line in open(path):
        m = line_re.match(line)
        if not m:
            continue
        name = m.group(3)
        # perf names an unresolved address by its value; shimtop by [unknown].
        if re.fullmatch(r"0x[0-9a-f]+", name):
            name = "[unknown]"
        shares[name] = shares.get(name, 0.0) + float(m.group(1))
    return shares


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
