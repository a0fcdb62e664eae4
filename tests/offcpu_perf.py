#!/usr/bin/env python3
"""offcpu_perf.py SCRIPT JSON - off-CPU time per function from perf script's
output of `perf record -e sched:sched_switch --switch-events --call-graph
dwarf` (each switch-out sample paired with its thread's next switch in,
its wait counted under each function of its chain, once), against
shimtop's JSON of the same file (-e sched:sched_switch: each row's
offcpu_s).  Functions of the kernel and of the target's own binary are
compared (libc's frames perf names by their inlined callees); prints the
overlap of the two distributions of time over functions, and each
function's two shares."""
import json
import re
import sys

HEAD = re.compile(r"^\s*(\S+)\s+(\d+)\s+(\d+\.\d+):\s+(.*)$")
FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.+?)\s+\((.*)\)\s*$")


def perf_waits(path, binary):
    under, held = {}, {}
    cur = None
    for line in open(path, errors="replace"):
        m = HEAD.match(line)
        if m:
            tid, t, what = int(m.group(2)), float(m.group(3)), m.group(4)
            cur = None
            if what.startswith("sched:sched_switch"):
                cur = held[tid] = (t, [])
            elif what.startswith("PERF_RECORD_SWITCH IN") and tid in held:
                t0, frames = held.pop(tid)
                for f in set(frames):
                    under[f] = under.get(f, 0.0) + (t - t0)
            continue
        f = FRAME.match(line)
        if f and cur is not None:
            name, dso = f.group(1), f.group(2)
            if dso == "[kernel.kallsyms]" or dso.endswith("/" + binary):
                cur[1].append(name)
    return under


def main():
    binary = sys.argv[3] if len(sys.argv) > 3 else "waits"
    a = perf_waits(sys.argv[1], binary)
    d = json.load(open(sys.argv[2]))
    b = {r["symbol"]: r.get("offcpu_s") or 0.0 for r in d["rows"]
         if r["module"] in ("[kernel]", binary)}
    sa, sb = sum(a.values()), sum(b.values())
    if not sa or not sb:
        print("overlap 0 (no off-CPU time: perf %.3f s, shimtop %.3f s)" % (sa, sb))
        return
    keys = set(a) | set(b)
    overlap = sum(min(a.get(k, 0) / sa, b.get(k, 0) / sb) for k in keys)
    print("overlap %.4f" % overlap)
    for k in sorted(keys, key=lambda k: -a.get(k, 0)):
        print("  %-40s perf %6.3f s  shimtop %6.3f s" % (k, a.get(k, 0), b.get(k, 0)))


main()
