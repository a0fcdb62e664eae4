#!/usr/bin/env python3
"""check_layers.py SRC_DIR - includes run one way only.

The layers, lowest first: base (the files in src/ itself: util,
text_safe, index, cpulist, stop_signal, output_file; and the module's
uapi header), ring (and the snapshot's container), symbols, sampler (and
the target), model, session (the session, options, a snapshot read into
a model), output (and a snapshot written), front (the run loop every
front turns, and the batch front), then the two other fronts side by
side, ui and serve, and the programs (main/shimtop.c, the demo, the
instrumenter).  Each folder is one layer, src/ itself the base.  A
file may include its own layer's headers and lower ones, never a
sibling's; each include that runs up or across is printed, and the exit
status is 1 if there is one.  Above the session, struct session is
opaque: no file includes session/session_state.h, so the compiler holds
the fronts to session.h's functions (the model through session_tables
and session_whole).
"""
import os
import re
import sys

# Each layer's rank; siblings share one and do not include each other.
RANK = {"base": 0, "ring": 1, "symbols": 2, "sampler": 3, "model": 4, "session": 5,
        "output": 6, "front": 7, "ui": 8, "serve": 8, "program": 9}
FOLDERS = {"ring": "ring", "symbols": "symbols", "sampler": "sampler", "model": "model",
           "session": "session", "output": "output", "front": "front", "ui": "ui",
           "serve": "serve", "main": "program", "demo": "program", "instrument": "program",
           "kmod": "base"}


def layer(rel):
    parts = rel.split("/")
    if len(parts) > 1:
        return FOLDERS.get(parts[0])
    return "base"       # src/ itself holds the base alone


def main():
    src = sys.argv[1]
    up = unknown = files = 0
    for root, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith((".c", ".h", ".cc")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            if rel.startswith("kmod/") and not rel.startswith("kmod/uapi/"):
                continue        # the kernel module is built by Kbuild, apart
            mine = layer(rel)
            if mine is None:
                print(f"{rel}: in no layer: add it to tests/check_layers.py")
                unknown += 1
                continue
            files += 1
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for m in re.finditer(r'^#include "([^"]+)"', text, re.M):
                inc = m.group(1)
                if inc == "session/session_state.h" and RANK[mine] > RANK["session"]:
                    print(f"{rel} ({mine}) includes {inc}: the session is the session "
                          "layer's own; read it through session/session.h")
                    up += 1
                    continue
                if not os.path.exists(os.path.join(src, inc)):
                    continue
                theirs = layer(inc)
                if theirs is None:
                    print(f"{inc}: in no layer: add it to tests/check_layers.py")
                    unknown += 1
                elif RANK[theirs] > RANK[mine]:
                    print(f"{rel} ({mine}) includes {inc} ({theirs}): a layer above")
                    up += 1
                elif RANK[theirs] == RANK[mine] and theirs != mine:
                    print(f"{rel} ({mine}) includes {inc} ({theirs}): a sibling layer")
                    up += 1
    print(f"{files} files, {up} includes running up, {unknown} files in no layer")
    return 1 if up or unknown or files < 50 else 0


if __name__ == "__main__":
    sys.exit(main())
