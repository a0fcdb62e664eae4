#!/usr/bin/env python3
"""check_layers.py SRC_DIR - includes run one way only.

The layers, lowest first: base (util, text_safe, index, cpulist,
stop_signal, output_file, the module's uapi header), ring, symbols,
sampler (and target), model, session (session, options), output, front
(the run loop every front turns, and the batch front), ui (and serve, the
other front end), and the programs (shimtop.c, the demo, the instrumenter).  The snapshot is one
folder whose files sit in three layers: its container format beside the
ring, its reading into a model with the session, its writing (which embeds
the JSON report) with the output.  A file may
include its own layer's headers and lower ones; each include that runs up
is printed, and the exit status is 1 if there is one.
"""
import os
import re
import sys

ORDER = ["base", "ring", "symbols", "sampler", "model", "session", "output", "front", "ui",
         "program"]
FOLDERS = {"ring": "ring", "symbols": "symbols", "sampler": "sampler", "model": "model",
           "output": "output", "front": "front", "ui": "ui", "serve": "ui", "demo": "program", "instrument": "program",
           "kmod": "base"}
TOP = {"util": "base", "text_safe": "base", "index": "base", "cpulist": "base",
       "stop_signal": "base", "output_file": "base", "output_path": "base", "target": "sampler",
       "options": "session", "session": "session", "shimtop": "program"}
SNAPSHOT = {"snapshot_file": "ring", "snapshot": "session", "snapshot_write": "output"}


def layer(rel):
    parts = rel.split("/")
    if parts[0] == "snapshot" and len(parts) > 1:
        return SNAPSHOT.get(os.path.splitext(parts[1])[0])
    if len(parts) > 1:
        return FOLDERS.get(parts[0])
    return TOP.get(os.path.splitext(parts[0])[0])


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
                if not os.path.exists(os.path.join(src, inc)):
                    continue
                theirs = layer(inc)
                if theirs is None:
                    print(f"{inc}: in no layer: add it to tests/check_layers.py")
                    unknown += 1
                elif ORDER.index(theirs) > ORDER.index(mine):
                    print(f"{rel} ({mine}) includes {inc} ({theirs}): a layer above")
                    up += 1
    print(f"{files} files, {up} includes running up, {unknown} files in no layer")
    return 1 if up or unknown or files < 50 else 0


if __name__ == "__main__":
    sys.exit(main())
