"""ffs_superspeed (hil/tools/preload/ffs_superspeed.c) on the descriptor blobs umtprd 1.3.10 really wrote to
FunctionFS ep0 (tests/data/ffs/, captured on the virtual board): the library is built the way the image
builds it, its rewrite is called through ctypes, and what it returns is read back by a parser of the
kernel's V2 format written here (drivers/usb/gadget/function/f_fs.c, __ffs_data_got_descs)."""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hil import programs

DATA = Path(__file__).resolve().parents[1] / "data" / "ffs"
SOURCE = programs.SOURCE_DIR / "preload" / "ffs_superspeed.c"
HAS_FS, HAS_HS, HAS_SS, HAS_MS_OS, EVENTFD = 1, 2, 4, 8, 32
ENDPOINT, SS_COMPANION = 5, 0x30
BULK, INTERRUPT, ISOCHRONOUS = 2, 3, 1


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The build hil deploys to a board of this PC's architecture (hil/tools/Makefile).
    return programs.build(platform.machine(), root=tmp_path_factory.mktemp("programs")).files["lib/ffs_superspeed.so"]


@pytest.fixture(scope="module")
def rewrite(library: Path):
    return load_rewrite(library)


def load_rewrite(library: Path):
    """ffs_superspeed_rewrite of the library at `library`, as a Python function of the blob."""
    lib = ctypes.CDLL(str(library))  # RTLD_LOCAL: its write() does not replace this process's own
    fn = lib.ffs_superspeed_rewrite
    fn.restype = ctypes.c_size_t
    fn.argtypes = [
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_uint32),
        ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_char_p),
    ]

    def call(blob: bytes) -> Rewritten:
        cap = 3 * len(blob) + 4  # what the library allocates itself
        out = ctypes.create_string_buffer(cap)
        count, endpoints, why = ctypes.c_uint32(), ctypes.c_uint(), ctypes.c_char_p()
        n = fn(blob, len(blob), out, cap, ctypes.byref(count), ctypes.byref(endpoints), ctypes.byref(why))
        assert n <= cap
        if n == 0:
            return Rewritten(None, why.value.decode(), 0, 0)
        return Rewritten(out.raw[:n], "", count.value, endpoints.value)

    return call


@dataclass
class Rewritten:
    blob: bytes | None
    why: str  # why it was left unchanged
    count: int  # descriptors in the SuperSpeed set
    endpoints: int


@dataclass
class Descriptors:
    flags: int
    eventfd: int | None
    sets: dict[str, list[bytes]]  # "fs", "hs", "ss" -> descriptors in order
    os_count: int | None
    tail: bytes  # the MS OS descriptors


def parse(blob: bytes) -> Descriptors:
    magic, length, flags = struct.unpack_from("<III", blob)
    assert (magic, length) == (3, len(blob))
    pos, eventfd, os_count = 12, None, None
    if flags & EVENTFD:
        (eventfd,) = struct.unpack_from("<I", blob, pos)
        pos += 4
    counts = {}
    for bit, speed in ((HAS_FS, "fs"), (HAS_HS, "hs"), (HAS_SS, "ss")):
        if flags & bit:
            (counts[speed],) = struct.unpack_from("<I", blob, pos)
            pos += 4
    if flags & HAS_MS_OS:
        (os_count,) = struct.unpack_from("<I", blob, pos)
        pos += 4
    sets = {}
    for speed, count in counts.items():
        sets[speed] = []
        for _ in range(count):
            size = blob[pos]
            assert size >= 2 and pos + size <= len(blob), f"{speed} descriptor at {pos} overruns the blob"
            sets[speed].append(blob[pos : pos + size])
            pos += size
    return Descriptors(flags, eventfd, sets, os_count, blob[pos:])


def endpoint(descriptor: bytes) -> tuple[int, int, int, int]:
    """(address, transfer type, wMaxPacketSize, bInterval) of an endpoint descriptor."""
    assert descriptor[1] == ENDPOINT
    return descriptor[2], descriptor[3] & 3, struct.unpack_from("<H", descriptor, 4)[0], descriptor[6]


def companion(descriptor: bytes) -> tuple[int, int, int]:
    """(bMaxBurst, bmAttributes, wBytesPerInterval) of a SuperSpeed endpoint companion."""
    assert (descriptor[0], descriptor[1]) == (6, SS_COMPANION)
    return descriptor[2], descriptor[3], struct.unpack_from("<H", descriptor, 4)[0]


def captured(speed: str) -> bytes:
    return (DATA / f"umtprd-{speed}.bin").read_bytes()


def test_the_captures_are_what_umtprd_1_3_10_writes():
    """Full and high speed sets only; both carry its usb_max_packet_size (0x200 / 0x400) on the bulk endpoints."""
    for speed, size in (("high", 512), ("super", 1024)):
        blob = parse(captured(speed))
        assert blob.flags == HAS_FS | HAS_HS and blob.tail == b""
        for descriptors in blob.sets.values():
            assert [d[1] for d in descriptors] == [4, ENDPOINT, ENDPOINT, ENDPOINT]
            assert [endpoint(d) for d in descriptors[1:]] == [
                (0x81, BULK, size, 0),
                (0x02, BULK, size, 0),
                (0x83, INTERRUPT, 28, 6),
            ]


SS_SET = [
    ("interface",),
    (0x81, BULK, 1024, 0),
    (15, 0, 0),
    (0x02, BULK, 1024, 0),
    (15, 0, 0),
    (0x83, INTERRUPT, 28, 6),
    (0, 0, 28),
]


@pytest.mark.parametrize("speed", ["high", "super"])
def test_a_superspeed_set_follows_the_high_speed_one(rewrite, speed):
    original = parse(captured(speed))
    result = rewrite(captured(speed))
    assert result.blob is not None, result.why
    rewritten = parse(result.blob)
    assert rewritten.flags == HAS_FS | HAS_HS | HAS_SS and rewritten.tail == b""
    ss = rewritten.sets["ss"]
    assert (result.count, result.endpoints, len(ss)) == (7, 3, 7)
    assert ss[0] == original.sets["hs"][0]  # the interface, 3 endpoints, unchanged
    described = [("interface",)] + [endpoint(d) if d[1] == ENDPOINT else companion(d) for d in ss[1:]]
    assert described == SS_SET
    # The packet size umtprd was configured with does not reach the SuperSpeed set.
    assert ss == parse(rewrite(captured("high" if speed == "super" else "super")).blob).sets["ss"]


@pytest.mark.parametrize("speed", ["high", "super"])
def test_full_and_high_speed_keep_their_legal_bulk_sizes(rewrite, speed):
    original = parse(captured(speed))
    rewritten = parse(rewrite(captured(speed)).blob)
    for name, bulk in (("fs", 64), ("hs", 512)):
        assert [endpoint(d) for d in rewritten.sets[name][1:]] == [
            (0x81, BULK, bulk, 0),
            (0x02, BULK, bulk, 0),
            (0x83, INTERRUPT, 28, 6),
        ]
        assert rewritten.sets[name][0] == original.sets[name][0]
    if speed == "high":  # nothing to correct at high speed: the set umtprd wrote, byte for byte
        assert rewritten.sets["hs"] == original.sets["hs"]


def _with_header(blob: bytes, flags: int, extra_after_flags: bytes = b"", extra_after_counts: bytes = b"") -> bytes:
    """The captured blob with other flags, an eventfd after the flags and an MS OS count after the counts."""
    body = extra_after_flags + blob[12:20] + extra_after_counts + blob[20:]
    return struct.pack("<III", 3, 12 + len(body), flags) + body


def test_an_eventfd_and_ms_os_descriptors_keep_their_places(rewrite):
    os_descriptors = bytes(range(16))  # copied, not read: any bytes do
    blob = _with_header(
        captured("super"),
        HAS_FS | HAS_HS | HAS_MS_OS | EVENTFD,
        struct.pack("<I", 7),
        struct.pack("<I", 1),
    )
    blob = blob[:4] + struct.pack("<I", len(blob) + len(os_descriptors)) + blob[8:] + os_descriptors
    result = rewrite(blob)
    assert result.blob is not None, result.why
    rewritten = parse(result.blob)
    assert (rewritten.eventfd, rewritten.os_count, rewritten.tail) == (7, 1, os_descriptors)
    assert len(rewritten.sets["ss"]) == 7 and rewritten.flags == HAS_FS | HAS_HS | HAS_SS | HAS_MS_OS | EVENTFD


def _refusals() -> dict[str, tuple[bytes, str]]:
    blob = captured("super")
    hs_interrupt = 12 + 8 + 30 + 9 + 7 + 7  # header, counts, the full speed set, interface, two bulk endpoints
    assert blob[hs_interrupt + 1 : hs_interrupt + 4] == bytes([ENDPOINT, 0x83, INTERRUPT])
    isochronous = bytearray(blob)
    isochronous[hs_interrupt + 3] = ISOCHRONOUS
    high_bandwidth = bytearray(blob)
    high_bandwidth[hs_interrupt + 5] = 0x08  # wMaxPacketSize bits 12..11: a second transaction per microframe
    fs_only = struct.pack("<IIII", 3, 16 + 30, HAS_FS, 4) + blob[20:50]
    overrun = bytearray(blob)
    overrun[20] = 0xFF  # the first interface descriptor claims 255 bytes
    return {
        "legacy format": (struct.pack("<I", 1) + blob[4:], "not a descriptor blob in the V2 format"),
        "cut short": (blob[:-1], "its length field is not the length written"),
        "unknown flag": (_with_header(blob, HAS_FS | HAS_HS | 0x100), "flags this library does not know"),
        "full speed only": (fs_only, "no high speed descriptors"),
        "isochronous": (bytes(isochronous), "an isochronous or control endpoint"),
        "high bandwidth": (bytes(high_bandwidth), "a high-bandwidth interrupt endpoint"),
        "overrun": (bytes(overrun), "its full speed descriptors overrun the blob"),
        "trailing bytes": (_with_header(blob + b"\x02\x00", HAS_FS | HAS_HS), "bytes after its descriptors"),
    }


@pytest.mark.parametrize("case", list(_refusals()))
def test_what_it_cannot_extend_passes_through_with_the_reason(rewrite, case):
    blob, why = _refusals()[case]
    result = rewrite(blob)
    assert result.blob is None and why in result.why


def test_a_blob_with_a_superspeed_set_passes_through(rewrite):
    once = rewrite(captured("super")).blob
    result = rewrite(once)
    assert result.blob is None and result.why == "it already has SuperSpeed descriptors"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_damaged_blob_is_refused_or_rewritten_into_a_valid_one(rewrite, data):
    """Byte flips and cuts of a real blob: never a crash or an overrun, and any output parses."""
    blob = bytearray(captured(data.draw(st.sampled_from(["high", "super"]))))
    for _ in range(data.draw(st.integers(1, 4))):
        blob[data.draw(st.integers(0, len(blob) - 1))] = data.draw(st.integers(0, 255))
    blob = blob[: data.draw(st.integers(0, len(blob)))]
    result = rewrite(bytes(blob))
    if result.blob is not None:
        rewritten = parse(result.blob)
        assert rewritten.flags & HAS_SS and len(rewritten.sets["ss"]) == result.count


def test_writes_to_anything_but_a_functionfs_ep0_pass_through_untouched(library, tmp_path):
    """The blob written to a regular file and to a pipe (stdout) under LD_PRELOAD: the same bytes, no message."""
    target = tmp_path / "ep0"  # named like FunctionFS's ep0, but on another filesystem
    script = (
        "import os, sys; blob = open(sys.argv[1], 'rb').read(); "
        "fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT); os.write(fd, blob); os.write(1, blob)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(DATA / "umtprd-super.bin"), str(target)],
        env={**os.environ, "LD_PRELOAD": str(library), "HIL_FFS_DUMP": str(tmp_path / "dump")},
        capture_output=True,
        check=True,
    )
    assert target.read_bytes() == proc.stdout == captured("super")
    assert proc.stderr == b"" and not (tmp_path / "dump").exists()


def test_the_makefile_builds_the_library_for_real_boards(tmp_path, rewrite):
    """What the docs tell a real board's user: `make -C hil/tools` leaves lib/ffs_superspeed.so, the same rewrite."""
    out = tmp_path / "build"
    library = out / "lib" / "ffs_superspeed.so"
    subprocess.run(["make", "-s", "-C", str(programs.SOURCE_DIR), f"OUT={out}", str(library)], check=True)
    assert load_rewrite(library)(captured("super")) == rewrite(captured("super"))
