#!/usr/bin/env python3
"""perf_rewrite.py MODE IN OUT - a perf.data file perf record wrote here,
rewritten into a form perf 6.1 no longer records but still reads, so
shimtop can be checked against `perf script` on the same bytes.

  mmap1   every PERF_RECORD_MMAP2 becomes the PERF_RECORD_MMAP kernels
          before 3.16 wrote (no device, inode or protection; a data map
          marked PERF_RECORD_MISC_MMAP_DATA).  Each record keeps its size,
          the filename padded, so the file's offsets stay.
  v1      the header of perf.data version 1 (perf before 2.6.37): magic
          "PERFFILE", 72 bytes, no feature bitmap (perf reads no feature
          section of such a file), and attributes of that day's 64 bytes.
          The sections' offsets stay."""
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


if __name__ == "__main__":
    mode, src, dst = sys.argv[1:4]
    data = open(src, "rb").read()
    modes = {"mmap1": mmap1, "v1": v1}
    if mode not in modes:
        sys.exit("unknown mode " + mode)
    open(dst, "wb").write(modes[mode](data))
