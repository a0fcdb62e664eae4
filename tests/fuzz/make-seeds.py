#!/usr/bin/env python3
"""make-seeds.py - writes the seed inputs of the fuzz targets that are
not record files (those come from tests/gen_records and a cut recording):
perf rings in the layouts shimtop opens events with, signal segment
headers, JIT maps, and small ELF files.  Run from tests/fuzz/."""
import os, struct, subprocess, tempfile

C = "corpus"

def put(target, name, data):
    with open(os.path.join(C, target, name), "wb") as f:
        f.write(data)

# ---- perf rings: a 16-byte prefix (sample_type, read_format, id_all), then records.
IP, TID, TIME, READ, CALLCHAIN, PERIOD = 1, 2, 4, 16, 32, 256
GROUP, ENABLED, RUNNING = 8, 1, 2
def rec(type_, misc, body):
    return struct.pack("<IHH", type_, misc, 8 + len(body)) + body
def sample_id(pid, tid, time):  # sample_id_all: TID, TIME
    return struct.pack("<IIQ", pid, tid, time)
def prefix(st, rf):
    return struct.pack("<IBB10x", st, rf, 1)
USER, KERNEL = 2, 1
ctx_user = 0xfffffffffffffe00
def sample(st, ip, pid, time, chain=(), group=None):
    b = struct.pack("<Q", ip) + struct.pack("<II", pid, pid) + struct.pack("<Q", time)
    if st & READ:
        vals = group or [1000, 2000]
        b += struct.pack("<QQQ", len(vals), 5000, 5000) + b"".join(struct.pack("<Q", v) for v in vals)
    if st & CALLCHAIN:
        b += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", c) for c in chain)
    b += struct.pack("<Q", 250000)
    return rec(9, USER, b)
def mmap2(pid, start, ln, pgoff, path):
    name = path.encode() + b"\0"
    name += b"\0" * (-len(name) % 8)
    b = struct.pack("<IIQQQIIQQII", pid, pid, start, ln, pgoff, 8, 1, 1234, 0, 5, 2) + name
    return rec(10, USER, b + sample_id(pid, pid, 100))
def comm(pid, name):
    n = name.encode()[:15].ljust(16, b"\0")
    return rec(3, 0, struct.pack("<II", pid, pid) + n + sample_id(pid, pid, 200))
def task(type_, pid, ppid, time):
    return rec(type_, 0, struct.pack("<IIIIQ", pid, ppid, pid, ppid, time) + sample_id(pid, pid, time))
def lost(n):
    return rec(2, 0, struct.pack("<QQ", 7, n) + sample_id(1, 1, 300))

st = IP | TID | TIME | PERIOD
body = (mmap2(100, 0x400000, 0x10000, 0, "/usr/bin/true") + comm(100, "target")
        + sample(st, 0x401000, 100, 1000) + task(7, 101, 100, 1100)   # FORK
        + sample(st, 0x401010, 101, 1200) + task(4, 101, 100, 1300)   # EXIT
        + lost(3))
put("fuzz_perf_ring", "software-clock", prefix(st, 0) + body)
st2 = st | CALLCHAIN
body = (mmap2(100, 0x400000, 0x10000, 0, "/usr/lib/x86_64-linux-gnu/libc.so.6")
        + sample(st2, 0x401000, 100, 1000, [0xfffffffffffffe00, 0x401000, 0x401100, 0x401200])
        + sample(st2, 0xffffffff81000000, 100, 1001, [0xffffffffffffff80, 0xffffffff81000000,
                                                     ctx_user, 0x401000]))
put("fuzz_perf_ring", "callchains", prefix(st2, 0) + body)
st3 = st | READ | CALLCHAIN
rf = GROUP | ENABLED | RUNNING
body = sample(st3, 0x401000, 100, 1000, [0x401000], [1000, 2500]) + \
       sample(st3, 0x401000, 100, 2000, [0x401000], [2000, 4000])
put("fuzz_perf_ring", "group-read", prefix(st3, rf) + body)
# --call-graph dwarf: user registers (bp, sp, ip) and a 64-byte stack copy;
# prefix byte 6 set: the harness asks for shimtop's registers.
REGS_USER, STACK_USER = 1 << 12, 1 << 13
st4 = st | REGS_USER | STACK_USER
def stack_sample(ip, pid, time, sp):
    copy = b"".join(struct.pack("<Q", sp + 16 * i) for i in range(8))
    b = struct.pack("<QIIQQ", ip, pid, pid, time, 250000)
    b += struct.pack("<QQQQ", 2, sp + 32, sp, ip) + struct.pack("<Q", 64) + copy + struct.pack("<Q", 64)
    return rec(9, USER, b)
body = (mmap2(100, 0x400000, 0x10000, 0, "/usr/bin/true")
        + stack_sample(0x401000, 100, 1000, 0x7ffd0000) + stack_sample(0x401010, 100, 1100, 0x7ffd0040))
put("fuzz_perf_ring", "stack-copies", struct.pack("<IBBB9x", st4, 0, 1, 1) + body)
# ibs_op: cpu, period and the raw registers (caps 0x8f5: eight of them), a
# Zen 4 (family 0x19 model 0x11) load that missed to DRAM.
CPU, RAW = 1 << 7, 1 << 10
st5 = IP | TID | TIME | CPU | PERIOD | RAW
def ibs_sample(rip, pid, time, data3, caps=0x8f5, nregs=8):
    regs = [1 << 18 | 1 << 19 | 0x1000, rip, 40 << 16, 3, data3, 0x7f0000001008] + [0] * (nregs - 6)
    raw = struct.pack("<I", caps) + b"".join(struct.pack("<Q", r) for r in regs)
    b = struct.pack("<QIIQIIQ", rip, pid, pid, time, 2, 0, 0x10000)
    b += struct.pack("<I", len(raw)) + raw
    return rec(9, USER, b)
body = (mmap2(100, 0x400000, 0x10000, 0, "/usr/bin/true")
        + ibs_sample(0x401000, 100, 1000, 1 | 1 << 7 | 1 << 17 | 1 << 20 | 256 << 32)
        + ibs_sample(0x401010, 100, 1100, 2 | 1 << 17)
        + ibs_sample(0x401020, 100, 1200, 1, caps=0xcf5))   # OpData4 promised, not given
put("fuzz_perf_ring", "ibs-op", struct.pack("<IBBBBBB6x", st5, 0, 1, 0, 1, 0x19, 0x11) + body)

# ---- signal segment headers (the first page).
def header(version=1, ncounters=2, tag_kind=0, names=True):
    h = b"SHIMSIG1" + struct.pack("<IIIIII", version, 4096, 64, 256, 4242, ncounters)
    h += b"phase".ljust(32, b"\0")
    h += b"".join((n.encode().ljust(32, b"\0")) for n in ["items", "bytes", "", ""])
    h += struct.pack("<II", tag_kind, 12345)
    h += b"".join(n.encode().ljust(32, b"\0") for n in ["idle", "parse", "plan", "exec"] + [""] * 12)
    return h.ljust(4096, b"\0")
put("fuzz_signal_header", "valid", header())
put("fuzz_signal_header", "ncounters-4000", header(ncounters=4000))
put("fuzz_signal_header", "address-tags", header(tag_kind=1))
put("fuzz_signal_header", "unterminated-names", header()[:64] + b"x" * 4032)
put("fuzz_signal_header", "truncated-to-zero", b"")

# ---- JIT maps.
put("fuzz_jit_map", "node-like", b"7f0000001000 40 LazyCompile:~main app.js:1\n"
    b"7f0000001040 80 Builtin:ArgumentsAdaptorTrampoline\n7f00000010c0 0 zero_size\n")
put("fuzz_jit_map", "overflow-and-junk", b"ffffffffffffff00 1000 wraps\nnot a line\n\n1 2\n"
    b"10 20 " + b"n" * 2000 + b"\n")

# ---- ELF: a tiny shared object and executable built here.
with tempfile.TemporaryDirectory() as d:
    src = os.path.join(d, "t.c")
    open(src, "w").write("int one(int x) { return x + 1; }\nint two(int x) { return one(x) * 2; }\n"
                         "static int hidden(int x) { return x - 3; }\nint three(int x) { return hidden(x); }\n")
    for name, args in [("small-so", ["-shared", "-fPIC"]), ("small-so-g", ["-shared", "-fPIC", "-g"]),
                       ("small-exec", ["-static-pie", "-nostdlib", "-Wl,-e,one"])]:
        out = os.path.join(d, name)
        subprocess.run(["cc", "-Os", "-o", out, src] + args, check=True)
        subprocess.run(["strip", "--strip-unneeded", "-o", out + ".s", out], check=True) if name == "small-so" else None
        put("fuzz_elf", name, open(out + (".s" if name == "small-so" else ""), "rb").read())
    # Decompression bombs (tests/elf_bomb.py): MiniDebugInfo past its cap,
    # and headers that declare 3 GiB over a 1 MiB stream.
    bomb = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "elf_bomb.py")
    small = os.path.join(d, "small-so-g")
    for name, args in [("bomb-xz", ["xz", small, "", "4"]),
                       ("bomb-debug-line", ["zlib", small, "", ".debug_line", "1", "3072"]),
                       ("bomb-debug-frame", ["zlib", small, "", ".debug_frame", "1", "3072"]),
                       ("bomb-zdebug", ["zdebug", small, "", ".zdebug_info", "1"])]:
        args[2] = os.path.join(d, name)
        subprocess.run(["python3", bomb] + args, check=True)
        put("fuzz_elf", name, open(args[2], "rb").read())

# ---- snapshots (the container, snapshot_file.h): uncompressed sections
# here; a real one, compressed, is corpus/fuzz_snapshot/demo-chains.snap,
# written by `shimtop -b -i chains.rec --snapshot-on-exit` from
# `gen_records chains`; streamed-records (version 2, its records a zstd
# stream with a checksum, read as a stream) from `gen_records steady
# small.rec 1 50` the same way.
def snap(sections, version=1):
    out = b"SHIMSNAP" + struct.pack("<II", version, len(sections))
    for name, data in sections:
        out += name.encode().ljust(16, b"\0") + struct.pack("<IIQQ", 0, 0, len(data), len(data))
        out += data
    return out
def symbol(module, name, raw=b"", aliases=None, unknown=0):
    a = aliases or b""
    return (struct.pack("<BBH", unknown, aliases is not None, 0) +
            struct.pack("<IIII", len(module), len(name), len(raw), len(a)) + module + name + raw + a)
syms = struct.pack("<I", 3) + symbol(b"libc.so.6", b"malloc", b"", b"__libc_malloc") + \
    symbol(b"demo", b"std::map<int, int>::find", b"_ZNSt3mapIiiE4findERKi") + \
    symbol(b"[anon]", b"[unknown]", unknown=1)
# fuzz_snapshot_model's seeds are real sections, a selector byte before
# them (0 observer, 1 chaining): observer-gen-observe from `gen_records
# observe` replayed with --snapshot-on-exit, chaining-demo-dwarf from the
# demo under --call-graph dwarf; `snapshot_sections FILE SECTION` prints them.
put("fuzz_snapshot", "empty-container", snap([]))
put("fuzz_snapshot", "symbols", snap([("label", b"taken now on here"), ("symbols", syms)]))
put("fuzz_snapshot", "newer", snap([("label", b"x")], version=3))
put("fuzz_snapshot", "unknown-section", snap([("meta", b"{}"), ("future", b"\1\2\3")]))

# ---- IBS raw samples: a selector byte (bit 0 fetch, bits 1-2 the family
# 10h/17h/19h/1Ah, bits 3-7 the model), then caps and the registers.
def ibs(name, sel, caps, regs):
    put("fuzz_ibs", name, bytes([sel]) + struct.pack("<I", caps) +
        b"".join(struct.pack("<Q", r) for r in regs))
ibs("op-zen2-dram-load", 0x02, 0x1ff,
    [0x10006ffff | 1 << 18, 0x401234, 0x2000100010, 3, 1 | 1 << 7 | 1 << 20 | 1 << 17 | 300 << 32,
     0x7f0000001000, 0x100001000, 0x401300])
ibs("op-zen4-cxl", 0x04 | (0x61 << 3 & 0xf8), 0xfff,
    [0x1234 | 1 << 19 | 1 << 18 | 5 << 20, 0x401234, 1 << 35 | 1 << 37, 1 << 6,
     1 | 1 << 7 | 1 << 20 | 1 << 17 | 1 << 18 | 900 << 32 | 20 << 48, 0x7f0000002000, 0x200002000,
     0x401400, 1])
ibs("op-zen3-swpf", 0x04, 0x1ff,
    [0x10000 | 1 << 18, 0x401000, 1 << 38, 3, 1 | 1 << 7 | 1 << 21, 0, 0, 0x401010])
ibs("fetch-zen4", 0x05, 0xfff,
    [0xffff | 10 << 16 | 50 << 32 | 1 << 48 | 1 << 49 | 1 << 50 | 1 << 51 | 1 << 52 | 1 << 55,
     0x401000, 0x101000, 7])
ibs("fetch-fam10h", 0x01, 0x1f, [0xffff | 1 << 49 | 1 << 50, 0x400000, 0x100000])

# ---- unwind rows' copies (unwind_rows_cache.c): the target puts the magic,
# version, id length and 20-byte id (5e ed 00 ...) before the input, so a seed
# is a copy from byte 36 on: the rest of the id, the counts, FDEs, spans, rows.
os.makedirs(os.path.join(C, "fuzz_rows_cache"), exist_ok=True)
def row(kind, cfa=8, ra=-8, rbp=0, rbx=0, plt=0, rbp_lost=0, rbx_lost=0):
    return struct.pack("<ihhhBBBB2x", cfa, ra, rbp, rbx, kind, plt, rbp_lost, rbx_lost)
RSP, RBP, RBX, PLT, OUTER, OTHER, NONE = 0, 1, 2, 3, 4, 5, 6
def rows_copy(fdes, spans, alone):
    b = bytes(44) + struct.pack("<QQQ", len(fdes), len(spans), len(alone))
    b += b"".join(struct.pack("<QQII", *f) for f in fdes)
    b += b"".join(struct.pack("<QQ", s, e) + r for s, e, r in spans)
    b += b"".join(struct.pack("<Q", a + 1) + r for a, r in alone)
    return b
put("fuzz_rows_cache", "two-functions", rows_copy(
    [(0x1000, 0x1040, 0, 3), (0x1040, 0x3000, 0xffffffff, 0xffffffff)],
    [(0x1000, 0x1001, row(RSP)), (0x1001, 0x1030, row(RSP, 16, -8, -16)),
     (0x1030, 0x1040, row(RBP, 16, -8, -16))],
    [(0x1100, row(RBX, 32, -8, 0, -32))]))
put("fuzz_rows_cache", "plt-and-outermost", rows_copy(
    [(0x500, 0x520, 0, 2), (0x600, 0x610, 2, 1)],
    [(0x500, 0x506, row(PLT, 16, -8, plt=11)), (0x506, 0x520, row(OTHER)),
     (0x600, 0x610, row(OUTER))], []))
put("fuzz_rows_cache", "empty", rows_copy([], [], []))

# ---- symbol tables' copies (symbols_table_cache.c): the target puts the magic,
# version, id length, 64-byte id field (5e ed 00 ...) and key before the input,
# so a seed is a copy from byte 104 on: the counts, the entries, the names.
os.makedirs(os.path.join(C, "fuzz_syms_cache"), exist_ok=True)
NO_NAME = 0xffffffff
def syms_copy(entries, names):
    b = struct.pack("<QQ", len(entries), len(names))
    b += b"".join(struct.pack("<QQIIBB6x", *e) for e in entries)
    return b + names
put("fuzz_syms_cache", "three-functions", syms_copy(
    [(0x1000, 0x1040, 0, NO_NAME, 0, 1), (0x1040, 0x1100, 5, 10, 0, 2),
     (0x1100, 0x1180, NO_NAME, NO_NAME, 1, 5)], b"main\0work\0work2, w3\0"))
put("fuzz_syms_cache", "empty", syms_copy([], b""))

# ---- compiled pages' copies (unwind_pages_cache.c): the target puts the magic,
# version, id length and 64-byte id field (9a 9e 00 ...) before the input, so a
# seed is a copy from byte 80 on: the counts, the rows, the pages, the entries.
os.makedirs(os.path.join(C, "fuzz_pages_cache"), exist_ok=True)
def pages_copy(rows, pages, entries):
    b = struct.pack("<QQQ", len(rows), len(pages), len(entries))
    b += b"".join(struct.pack("<ihhhBBBB2x", *r) for r in rows)
    b += b"\0" * ((-(104 + 16 * len(rows))) % 16)
    b += b"".join(struct.pack("<QII", *p) for p in pages)
    return b + b"".join(struct.pack("<I", off << 16 | r) for off, r in entries)
put("fuzz_pages_cache", "two-pages", pages_copy(
    [(0, 0, 0, 0, NONE, 0, 0, 0), (8, -8, 0, 0, RSP, 0, 0, 0), (16, -8, -16, 0, RSP, 0, 0, 0),
     (16, -8, -16, 0, RBP, 0, 0, 0)],
    [(1, 0, 3), (2, 3, 2)],
    [(0, 0), (0x10, 1), (0x14, 2), (0, 3), (0x800, 0)]))
put("fuzz_pages_cache", "none", pages_copy([(0, 0, 0, 0, NONE, 0, 0, 0)], [], []))

# ---- the kernel stack walker's bpf-output samples (kernel_walk.c): a perf
# header, pid tid, time, cpu res, raw size, then struct kw_chain {period, sp,
# n, stop, kernel, switched, ip[n]}.
os.makedirs(os.path.join(C, "fuzz_kernel_walk"), exist_ok=True)
def walked(n, stop, sp, ips, raw_extra=0, kernel=0, switched=0):
    body = struct.pack("<QQIIII", 250000, sp, n, stop, kernel, switched) + b"".join(struct.pack("<Q", i) for i in ips)
    rec = struct.pack("<IIQII", 41, 42, 123456789, 1, 0) + struct.pack("<I", len(body) + raw_extra) + body
    rec += bytes(-(8 + len(rec)) % 8)
    return struct.pack("<IHH", 9, 0, 8 + len(rec)) + rec
put("fuzz_kernel_walk", "chain", walked(3, 0, 0x7ffc0000f000, [0x401000, 0x402000, 0x403000]))
put("fuzz_kernel_walk", "cut-at-127", walked(127, 4, 0x7ffc0000f000, range(0x400000, 0x400000 + 127)))
put("fuzz_kernel_walk", "need-row", walked(0, 5, 7, [0x1234]))
put("fuzz_kernel_walk", "raw-short", walked(3, 0, 0, [1, 2, 3], -8))
put("fuzz_kernel_walk", "in-kernel", walked(4, 0, 0x7ffc0000f000,
    [0xffffffff81000010, 0xffffffff81000020, 0x401000, 0x402000], kernel=2))
# A switch out (--off-cpu): its chain with its raw prev_state; its state alone (KW_STOP_TOLD).
put("fuzz_kernel_walk", "switch", walked(3, 0, 0x7ffc0000f000,
    [0xffffffff81000010, 0x401000, 0x402000], kernel=1, switched=0x80000002))
put("fuzz_kernel_walk", "switch-told", walked(0, 6, 0, [], switched=0x80000001))
# A target thread woken (KW_STOP_WOKE): struct kw_woke {pid, tid, interrupt, pad, comm[16]}
# where the frames would be; by a thread, and from an interrupt.
def woke(interrupt):
    k = struct.pack("<IIII16s", 7, 8, interrupt, 0, b"holder")
    return walked(0, 7, 0, [struct.unpack_from("<Q", k, i)[0] for i in range(0, len(k), 8)])
put("fuzz_kernel_walk", "woke", woke(0))
put("fuzz_kernel_walk", "woke-interrupt", woke(1))
