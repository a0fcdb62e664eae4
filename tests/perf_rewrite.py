#!/usr/bin/env python3
"""perf_rewrite.py MODE IN OUT [SYMS] - a perf.data file perf record wrote here,
rewritten into a form perf 6.1 no longer records but still reads, so
shimtop can be checked against `perf script` on the same bytes.

  mmap1   every PERF_RECORD_MMAP2 becomes the PERF_RECORD_MMAP kernels
          before 3.16 wrote (no device, inode or protection; a data map
          marked PERF_RECORD_MISC_MMAP_DATA).  Each record keeps its size,
          the filename padded, so the file's offsets stay.
  v1      the header of perf.data version 1 (perf before 2.6.37): magic
          "PERFFILE", 72 bytes, no feature bitmap (perf reads no feature
          section of such a file), and attributes of that day's 64 bytes.
          The sections' offsets stay.
  lbr     samples as perf record --call-graph lbr writes them on Intel
          (branch records of PERF_SAMPLE_BRANCH_CALL_STACK): each user
          chain's calls, walked by frame pointers here, become branch
          entries {from: the call, to: the callee}, newest first, and the
          user chain keeps its first frame and one garbage frame, as a
          walk through code without frame pointers ends.  A sample with
          no call to record is left out: perf 6.1 reads the first entry of
          an empty stack (whatever follows).  Data grows, so
          the feature sections after it move.  With SYMS (`perf script
          -F ip,sym,symoff` of IN) each entry is what the hardware
          records: from the call instruction itself (a direct call's 5
          bytes before the return address), to the callee's entry (its
          frame's address less its offset); else from the return
          address less one, to the callee's frame's address.
  lbr-on-call  the same, with every other user sample's ip moved to its
          newest call's instruction, as a precise event (cycles:P) gives
          it while the branch records already hold that call: perf takes
          the call's target as the leaf.
  oldpipe a pipe (perf record -o -) as perf before 5.x wrote it: no
          PERF_RECORD_EVENT_UPDATE or PERF_RECORD_HEADER_FEATURE records,
          so a tracepoint's name is only in the tracing data's formats.
  simpleperf  a file's tracepoint formats as simpleperf writes them: in
          a record of its own kind (32777, a 32-bit size) at the data's
          start, no tracing-data feature, no event descriptions.
  offcpu  the event cpu-clock named offcpu-time, as perf record --off-cpu
          names the event its BPF program writes (Debian's perf 6.1 is
          built without it): each sample's period stands for its wait.
          Names are padded to 64 bytes, so the name changes in place."""
import struct
import sys

MMAP, MMAP2 = 1, 10
MISC_MMAP_DATA, MISC_MMAP_BUILD_ID = 1 << 13, 1 << 14
PROT_EXEC = 4
# sample_type bits a sample_id_all trailer holds, 8 bytes each.
TRAILER_BITS = (1 << 1) | (1 << 2) | (1 << 6) | (1 << 7) | (1 << 9) | (1 << 16)


def trailer_size(d):
    attrs_off = struct.unpack_from("<Q", d, 24)[0]
    sample_type = struct.unpack_from("<Q", d, attrs_off + 24)[0]
    flags = struct.unpack_from("<Q", d, attrs_off + 40)[0]
    sample_id_all = flags >> 18 & 1
    return 8 * bin(sample_type & TRAILER_BITS).count("1") if sample_id_all else 0


def mmap1(d):
    out = bytearray(d)
    data_off, data_size = struct.unpack_from("<QQ", d, 40)
    trailer = trailer_size(d)
    at, n = data_off, 0
    while at + 8 <= data_off + data_size:
        kind, misc, size = struct.unpack_from("<IHH", d, at)
        if size < 8:
            sys.exit("a record of size %d at %d" % (size, at))
        if kind == MMAP2:
            body = d[at + 8:at + size]
            prot = struct.unpack_from("<I", body, 56)[0]
            name = body[64:len(body) - trailer]
            misc &= ~MISC_MMAP_BUILD_ID
            if not prot & PROT_EXEC:
                misc |= MISC_MMAP_DATA
            new = struct.pack("<IHH", MMAP, misc, size) + body[:32] + name + \
                bytes(32) + body[len(body) - trailer:]
            assert len(new) == size
            out[at:at + size] = new
            n += 1
        at += size
    if not n:
        sys.exit("no MMAP2 record")
    return out


def v1(d):
    out = bytearray(d)
    if out[:8] != b"PERFILE2":
        sys.exit("not a perf.data file of version 2")
    out[:16] = b"PERFFILE" + struct.pack("<Q", 72)
    out[72:104] = bytes(32)     # where the feature bitmap was: unread
    # Its attributes as that perf wrote them: the first 64 bytes
    # (PERF_ATTR_SIZE_VER0), then the ids' section, in the same place.
    attr_size, attrs_off, attrs_size = struct.unpack_from("<QQQ", d, 16)
    n = attrs_size // attr_size
    entries = bytearray()
    for i in range(n):
        e = d[attrs_off + i * attr_size:attrs_off + (i + 1) * attr_size]
        attr = bytearray(e[:64])
        struct.pack_into("<I", attr, 4, 64)
        entries += attr + e[attr_size - 16:]
    out[attrs_off:attrs_off + len(entries)] = entries
    struct.pack_into("<QQQ", out, 16, 80, attrs_off, len(entries))
    return out


SAMPLE = 9
IDENTIFIER, READ, CALLCHAIN, RAW, BRANCH_STACK = 1 << 16, 1 << 4, 1 << 5, 1 << 10, 1 << 11
# The 8-byte fields a sample has before its chain, by sample_type bit.
HEAD_BITS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 6) | (1 << 9) | \
    (1 << 7) | (1 << 8) | IDENTIFIER
CONTEXT_USER = (1 << 64) - 512
# perf's --call-graph lbr: user calls, the call stack, no flags or cycles, the index.
BRANCH_TYPE = (1 << 0) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 17)
GARBAGE = 0x10


# Function entries by address (perf script's ip sym+off lines), for SYMS.
STARTS = {}
CALL_REL32 = 5


def read_starts(path):
    import re
    for line in open(path, errors="replace"):
        m = re.match(r"\s*([0-9a-f]+) \S+\+0x([0-9a-f]+)", line)
        if m:
            ip = int(m.group(1), 16)
            STARTS[ip] = ip - int(m.group(2), 16)


def lbr_entry(caller_ret, callee_ip):
    if STARTS:
        return caller_ret - CALL_REL32, STARTS.get(callee_ip, callee_ip)
    return caller_ret - 1, callee_ip


def lbr_sample(body, sample_type, on_call=False):
    head = 8 * bin(sample_type & HEAD_BITS).count("1")
    nr = struct.unpack_from("<Q", body, head)[0]
    ips = list(struct.unpack_from("<%dQ" % nr, body, head + 8))
    rest = body[head + 8 + 8 * nr:]
    if CONTEXT_USER not in ips:
        chain, entries = ips, []
    else:
        u = ips.index(CONTEXT_USER)
        user = []
        for ip in ips[u + 1:]:
            if not ip or ip >= 1 << 63:
                break           # where the walk left code
            user.append(ip)
        chain = ips[:u + 1] + user[:1] + [GARBAGE]
        entries = [lbr_entry(user[k + 1], user[k]) for k in range(len(user) - 1)]
        if not entries:
            return None         # perf 6.1 reads entry 0 of an empty stack
        if on_call and u == 0 and sample_type & 2:
            # A precise event's ip: the newest call's own instruction,
            # which the branch records already hold as made.
            chain[1] = entries[0][0]
            body = bytearray(body)
            struct.pack_into("<Q", body, 8 if sample_type & IDENTIFIER else 0, chain[1])
    out = body[:head] + struct.pack("<Q%dQ" % len(chain), len(chain), *chain)
    out += struct.pack("<QQ", len(entries), 0)
    for frm, to in entries:
        out += struct.pack("<QQQ", frm, to, 0)
    return out + rest


def lbr(d, on_call=False):
    attr_size, attrs_off, attrs_size = struct.unpack_from("<QQQ", d, 16)
    data_off, data_size = struct.unpack_from("<QQ", d, 40)
    out = bytearray(d[:data_off])
    types = set()
    for at in range(attrs_off, attrs_off + attrs_size, attr_size):
        sample_type = struct.unpack_from("<Q", d, at + 24)[0]
        if sample_type & (READ | RAW | BRANCH_STACK) or not sample_type & CALLCHAIN:
            sys.exit("a sample layout this rewrite does not handle: %#x" % sample_type)
        types.add(sample_type)
        struct.pack_into("<Q", out, at + 24, sample_type | BRANCH_STACK)
        struct.pack_into("<Q", out, at + 72, BRANCH_TYPE)
    if len(types) != 1:
        sys.exit("events laid out differently")
    sample_type = types.pop()
    at, n = data_off, 0
    while at + 8 <= data_off + data_size:
        kind, misc, size = struct.unpack_from("<IHH", d, at)
        if size < 8:
            sys.exit("a record of size %d at %d" % (size, at))
        rec = d[at:at + size]
        if kind == SAMPLE:
            body = lbr_sample(rec[8:], sample_type, on_call and n % 2 == 1)
            if body is None:
                at += size
                continue
            rec = struct.pack("<IHH", kind, misc, 8 + len(body)) + body
            n += 1
        out += rec
        at += size
    if not n:
        sys.exit("no sample")
    moved = len(out) - (data_off + data_size)
    struct.pack_into("<Q", out, 48, len(out) - data_off)
    # The feature sections' table follows the data: each offset moves.
    table = bytearray(d[data_off + data_size:])
    nfeat = bin(int.from_bytes(d[72:104], "little")).count("1")
    for i in range(nfeat):
        off = struct.unpack_from("<Q", table, 16 * i)[0]
        struct.pack_into("<Q", table, 16 * i, off + moved)
    return out + table


TRACING_DATA, EVENT_UPDATE, HEADER_FEATURE = 66, 78, 80


def oldpipe(d):
    if d[:8] != b"PERFILE2" or struct.unpack_from("<Q", d, 8)[0] != 16:
        sys.exit("not perf record -o -'s stream")
    out, at, dropped = bytearray(d[:16]), 16, 0
    while at + 8 <= len(d):
        kind, misc, size = struct.unpack_from("<IHH", d, at)
        if size < 8:
            sys.exit("a record of size %d at %d" % (size, at))
        end = at + size
        if kind == TRACING_DATA:
            end += struct.unpack_from("<I", d, at + 8)[0]
        if kind in (EVENT_UPDATE, HEADER_FEATURE):
            dropped += 1
        else:
            out += d[at:end]
        at = end
    if not dropped:
        sys.exit("no event update or feature record")
    return out


SIMPLEPERF_TRACING_DATA = 32768 + 9
FEAT_TRACING, FEAT_EVENT_DESC = 1, 12


def simpleperf(d):
    """The tracing data moved from its feature into a record of simpleperf's
    own kind at the data's start (a 32-bit size: its high half where perf
    keeps misc), and no event descriptions."""
    data_off, data_size = struct.unpack_from("<QQ", d, 40)
    bits = int.from_bytes(d[72:104], "little")
    if not bits >> FEAT_TRACING & 1:
        sys.exit("no tracing data")
    table_at = data_off + data_size
    feats = [f for f in range(256) if bits >> f & 1]
    sections = {f: struct.unpack_from("<QQ", d, table_at + 16 * i) for i, f in enumerate(feats)}
    off, size = sections[FEAT_TRACING]
    # Android's printk formats make the record pass 64 KiB: its size's high half is used.
    tracing = d[off:off + size] + bytes(70000)
    body = struct.pack("<I", len(tracing)) + tracing + bytes(-len(tracing) % 64)
    whole = 8 + len(body)
    rec = struct.pack("<IHH", SIMPLEPERF_TRACING_DATA, whole >> 16, whole & 0xffff) + body
    kept = [f for f in feats if f not in (FEAT_TRACING, FEAT_EVENT_DESC)]
    out = bytearray(d[:data_off]) + rec + d[data_off:data_off + data_size]
    struct.pack_into("<Q", out, 48, data_size + len(rec))
    struct.pack_into("<32s", out, 72, sum(1 << f for f in kept).to_bytes(32, "little"))
    # The kept features' bytes after their (shorter) table, at their new places.
    table = bytearray()
    blobs = bytearray()
    base = len(out) + 16 * len(kept)
    for f in kept:
        o, n = sections[f]
        table += struct.pack("<QQ", base + len(blobs), n)
        blobs += d[o:o + n]
    return bytes(out + table + blobs)


def offcpu(d):
    old, new = b"cpu-clock\0\0\0", b"offcpu-time\0"
    if old not in d:
        sys.exit("no event named cpu-clock")
    return d.replace(old, new)


if __name__ == "__main__":
    mode, src, dst = sys.argv[1:4]
    if len(sys.argv) > 4:
        read_starts(sys.argv[4])
    data = open(src, "rb").read()
    modes = {"mmap1": mmap1, "v1": v1, "lbr": lbr, "oldpipe": oldpipe, "offcpu": offcpu,
             "lbr-on-call": lambda d: lbr(d, True), "simpleperf": simpleperf}
    if mode not in modes:
        sys.exit("unknown mode " + mode)
    open(dst, "wb").write(modes[mode](data))
