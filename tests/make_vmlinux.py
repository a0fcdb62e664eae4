#!/usr/bin/env python3
"""make_vmlinux.py KALLSYMS OUT.s - an assembly file whose object, linked
with its section .ktext at the first address it prints (ld
--section-start=.ktext=ADDR), is a vmlinux as a -dbg package's is to a
reader of symbols: the kernel's own functions (KALLSYMS' text symbols
from _stext to _etext, each name once) at their addresses, each as long
as to the next, in a section of no bytes (@nobits: the file stays small).
The build-id is ld's --build-id=0xHEX, so a test gives any kernel's."""
import re
import sys

syms = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[1] in "tT" and int(f[0], 16):
        syms.append((int(f[0], 16), f[2]))
syms.sort()
start = min(a for a, n in syms if n == "_stext")
end = min(a for a, n in syms if n == "_etext")
seen, funcs = set(), []
for a, n in syms:
    if start <= a < end and n not in seen and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", n):
        seen.add(n)
        funcs.append((a, n))
with open(sys.argv[2], "w") as out:
    out.write('\t.section .ktext,"ax",@nobits\n')
    at = funcs[0][0]
    for i, (a, n) in enumerate(funcs):
        if a > at:
            out.write("\t.skip %d\n" % (a - at))
            at = a
        size = (funcs[i + 1][0] if i + 1 < len(funcs) else a + 16) - a
        out.write("\t.globl %s\n\t.type %s,@function\n%s:\n\t.size %s,%d\n" % (n, n, n, n, size))
    out.write("\t.skip 16\n")
print("%#x" % funcs[0][0])
