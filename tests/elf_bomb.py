#!/usr/bin/env python3
"""elf_bomb.py - decompression bombs in an ELF file, as another user could
plant them in a binary root's shimtop reads.

  elf_bomb.py xz IN OUT MB        IN with a .gnu_debugdata section (MiniDebugInfo)
                                  that xz-inflates to MB MiB of zeros
  elf_bomb.py zlib IN OUT SECTION MB [DECLARED_MB]
                                  IN with SECTION (.debug_line, .debug_frame)
                                  SHF_COMPRESSED: a zlib stream of MB MiB of
                                  zeros, its header declaring DECLARED_MB (MB)
  elf_bomb.py zdebug IN OUT SECTION MB
                                  the GNU form: SECTION ("ZLIB", size, stream)

The stream is made a MiB at a time: nothing here holds MB in memory."""
import lzma, os, struct, subprocess, sys, tempfile, zlib

MIB = 1 << 20
SHF_COMPRESSED = 0x800
ELFCOMPRESS_ZLIB = 1


def zeros(mb, packer):
    block = bytes(MIB)
    out = b"".join(packer.compress(block) for _ in range(mb))
    return out + packer.flush()


def add_section(src, dst, name, data):
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(data)
    try:
        subprocess.run(["objcopy", "--remove-section", name, "--add-section",
                        "%s=%s" % (name, f.name), "--set-section-alignment", "%s=8" % name,
                        src, dst], check=True)
    finally:
        os.unlink(f.name)


def set_flags(path, name, flags):
    """ORs flags into the ELF64 little-endian section header named name."""
    with open(path, "r+b") as f:
        b = bytearray(f.read())
        shoff, = struct.unpack_from("<Q", b, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
        stroff, = struct.unpack_from("<Q", b, shoff + shstrndx * shentsize + 0x18)
        for i in range(shnum):
            h = shoff + i * shentsize
            n, = struct.unpack_from("<I", b, h)
            end = b.index(b"\0", stroff + n)
            if b[stroff + n:end].decode() == name:
                old, = struct.unpack_from("<Q", b, h + 8)
                struct.pack_into("<Q", b, h + 8, old | flags)
                f.seek(0)
                f.write(b)
                return
    sys.exit("elf_bomb.py: no section %s in %s" % (name, path))


def main(argv):
    kind, src, dst = argv[1:4]
    if kind == "xz":
        add_section(src, dst, ".gnu_debugdata",
                    zeros(int(argv[4]), lzma.LZMACompressor(preset=0)))
    elif kind == "zlib":
        section, mb = argv[4], int(argv[5])
        declared = int(argv[6]) if len(argv) > 6 else mb
        chdr = struct.pack("<IIQQ", ELFCOMPRESS_ZLIB, 0, declared * MIB, 1)
        add_section(src, dst, section, chdr + zeros(mb, zlib.compressobj(9)))
        set_flags(dst, section, SHF_COMPRESSED)
    elif kind == "zdebug":
        section, mb = argv[4], int(argv[5])
        add_section(src, dst, section,
                    b"ZLIB" + struct.pack(">Q", mb * MIB) + zeros(mb, zlib.compressobj(9)))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
