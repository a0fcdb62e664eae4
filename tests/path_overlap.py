#!/usr/bin/env python3
"""path_overlap.py SHIMTOP_FOLDED PERF_SCRIPT_TXT [LEVELS [TOP]] - the overlap
(Inoue and Nakatani, OOPSLA 2009, §7.2: the sum over keys of the smaller
share) of two profiles' calling contexts, a key a sample's innermost
LEVELS frames (default 5); contexts under TOP percent (default 0.5) in
both profiles count together as one, "(rest)", so that two samplers'
noise over hundreds of rare contexts does not swamp the comparison of
the ones that matter.  shimtop's side is folded stacks; perf's is
`perf script -F ip,sym` with call chains, frames leaf first, a blank
line after each sample.  Names are compared without symbol versions
(@GLIBC_...) and without perf's " (inlined)" mark, and glibc's aliases at
one address are one name: perf reads names from the debug file's local
symbols (__GI___libc_malloc, __memcpy_avx512_unaligned_erms) where
shimtop prefers the global one (malloc, __memmove_...), a choice of name,
not of context.  Prints the overlap; the largest differences go to
stderr."""
import re
import sys


def clean(name):
    name = name.strip()
    # A function shimtop names by its .eh_frame bounds, or a frame it names
    # by its module ([libc.so.6], as stackcollapse-perf does), is perf's [unknown].
    if re.fullmatch(r"[^ ;]+\+0x[0-9a-f]+", name) or re.fullmatch(r"\[[^ \]]+\]", name):
        return "[unknown]"
    if name.endswith(" (inlined)"):
        name = name[:-len(" (inlined)")]
    name = re.sub(r"@@?[A-Za-z_][A-Za-z0-9_.]*$", "", name)
    name = re.sub(r"^(__GI_)?(__libc_)?_*", "", name)
    # GCC's clones (f.constprop.0, f.isra.0, f.part.0) are f to perf's DWARF.
    name = re.sub(r"\.(constprop|isra|part|cold)\.[0-9]+$", "", name)
    # perf 6.1 names glibc's free by its old-version alias (cfree@GLIBC_2.2.5).
    if name == "cfree":
        name = "free"
    return name.replace("memcpy", "memmove")


def key(frames_leaf_first, levels):
    return ";".join(reversed([clean(f) for f in frames_leaf_first[:levels]]))


def shimtop_shares(path, levels):
    counts, total = {}, 0
    for line in open(path):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        k = key(list(reversed(stack.split(";"))), levels)
        counts[k] = counts.get(k, 0) + int(n)
        total += int(n)
    return {k: 100.0 * v / total for k, v in counts.items()} if total else {}


def perf_shares(path, levels):
    counts, total, frames = {}, 0, []

    def flush():
        nonlocal total, frames
        if frames:
            k = key(frames, levels)
            counts[k] = counts.get(k, 0) + 1
            total += 1
        frames = []

    for line in open(path):
        if not line.strip():
            flush()
            continue
        parts = line.strip().split(None, 1)
        frames.append(parts[1] if len(parts) > 1 else "[unknown]")
    flush()
    return {k: 100.0 * v / total for k, v in counts.items()} if total else {}


def main():
    levels = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    top = float(sys.argv[4]) if len(sys.argv) > 4 else 0.5
    a, b = shimtop_shares(sys.argv[1], levels), perf_shares(sys.argv[2], levels)
    rare = {k for k in set(a) | set(b) if a.get(k, 0.0) < top and b.get(k, 0.0) < top}
    for shares in (a, b):
        shares["(rest)"] = sum(shares.pop(k) for k in rare if k in shares)
    if not a or not b:
        print("0.0")
        return
    overlap = sum(min(a.get(k, 0.0), b.get(k, 0.0)) for k in set(a) | set(b))
    for k in sorted(set(a) | set(b), key=lambda k: -abs(a.get(k, 0.0) - b.get(k, 0.0)))[:6]:
        sys.stderr.write("%-70s shimtop %6.2f%%  perf %6.2f%%\n"
                         % (k[-70:], a.get(k, 0.0), b.get(k, 0.0)))
    print("%.1f" % overlap)


main()
