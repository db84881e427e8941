"""The kernel a virtual board boots directly: the ELF inside a bzImage, entered through its PVH note.

Under TCG a bzImage spends 6-7 s of a boot decompressing itself (docs/virtual-lab.md); QEMU boots an
uncompressed kernel that carries a PVH entry note (Linux's CONFIG_PVH) without that step, running the same code.
hil takes that ELF out of the bzImage once per kernel (cached by its sha256, beside the virtual lab's images); a
kernel without the note, or compressed in a format Python cannot read, boots as given.
"""

from __future__ import annotations

import bz2
import hashlib
import lzma
import struct
import tempfile
import zlib
from pathlib import Path

from hil import cache

# The x86 boot protocol's setup header (Documentation/arch/x86/boot.rst, 2.08 and later)
SETUP_SECTS, HEADER_MAGIC, PAYLOAD = 0x1F1, 0x202, 0x248
DECOMPRESSORS = {  # payload magic -> a decompressor of one stream (the kernel appends its size after it)
    b"\xfd7zXZ\x00": lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ),
    b"\x1f\x8b": lambda: zlib.decompressobj(wbits=31),
    b"BZh": bz2.BZ2Decompressor,
    b"\x5d\x00\x00": lambda: lzma.LZMADecompressor(lzma.FORMAT_ALONE),
}
PVH_NOTE = (b"Xen\x00", 18)  # XEN_ELFNOTE_PHYS32_ENTRY: where QEMU enters an ELF kernel


def direct_boot(bzimage: Path) -> Path:
    """The uncompressed kernel of `bzimage` when it can be booted through its PVH entry, else `bzimage` (a missing
    file too: QEMU's driver names it)."""
    if not bzimage.is_file():
        return bzimage
    data = bzimage.read_bytes()
    cached = cache.root("vlab", "HIL_VLAB_CACHE") / "direct-kernels" / f"{hashlib.sha256(data).hexdigest()[:16]}.elf"
    plain = cached.with_suffix(".plain")  # this kernel boots as given: not decompressed again at every power-on
    if cached.is_file() or plain.is_file():
        return cached if cached.is_file() else bzimage
    elf = _payload(data)
    bootable = elf is not None and _has_pvh_entry(elf)
    cached.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=cached.parent, prefix=".", delete=False) as staging:
        staging.write(elf if bootable else b"")
    Path(staging.name).replace(cached if bootable else plain)  # whole or absent, whoever else writes it at once
    return cached if bootable else bzimage


def _payload(data: bytes) -> bytes | None:
    """The decompressed ELF a bzImage carries, or None when it is no bzImage or its compression is unknown."""
    if data[HEADER_MAGIC : HEADER_MAGIC + 4] != b"HdrS":
        return None
    offset, length = struct.unpack_from("<II", data, PAYLOAD)
    start = ((data[SETUP_SECTS] or 4) + 1) * 512 + offset
    payload = data[start : start + length]
    decompressor = next((make() for magic, make in DECOMPRESSORS.items() if payload.startswith(magic)), None)
    try:
        elf = decompressor.decompress(payload) if decompressor else None
    except (lzma.LZMAError, zlib.error, OSError, EOFError, ValueError):
        return None
    return elf if elf and elf.startswith(b"\x7fELF\x02\x01") else None


def _has_pvh_entry(elf: bytes) -> bool:
    """Whether the 64-bit little-endian ELF `elf` has a PT_NOTE segment holding the PVH entry note."""
    phoff, phentsize, phnum = struct.unpack_from("<Q", elf, 0x20)[0], *struct.unpack_from("<HH", elf, 0x36)
    for index in range(phnum):
        kind, _, offset, _, _, size = struct.unpack_from("<IIQQQQ", elf, phoff + index * phentsize)
        position, end = offset, offset + size
        while kind == 4 and position + 12 <= end:  # PT_NOTE: namesz, descsz, type, name, desc (4-byte aligned)
            namesz, descsz, note = struct.unpack_from("<III", elf, position)
            name = elf[position + 12 : position + 12 + namesz]
            if (name, note) == PVH_NOTE:
                return True
            position += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False
