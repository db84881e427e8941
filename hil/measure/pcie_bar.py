"""BAR load/store throughput (seed 002 §5): hil's resource_mmap_test (hil/tools/resource_mmap_test.c) maps
a BAR through sysfs on the root complex and times 32- or 64-bit CPU stores and loads over it. One run
gives both figures: `store` and `load`, in MB/s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hil.errors import Unavailable
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure.parsing import ascii_float, ascii_int, lines_holding, parser, run_timed
from hil.verdict.errors import MeasurementError, ParseError
from hil.verdict.measurement import Measurement, Quantity

PROGRAM = "resource_mmap_test"
WIDTHS = (32, 64)
MAPPINGS = {"device": "", "wc": "_wc"}  # the resource file's suffix per mapping (sysfs resourceN, resourceN_wc)
_LINE = re.compile(
    r"bytes=(?P<bytes>\S+) width=(?P<width>\S+) loops=(?P<loops>\S+) store_ns=(?P<store_ns>\S+) "
    r"load_ns=(?P<load_ns>\S+) store_mb_s=(?P<store>\S+) load_mb_s=(?P<load>\S+)"
)
_CHECKSUM = re.compile(r"checksum=(?P<sum>[0-9a-f]{1,16})")
# One pass stores loops-1 into every word: with one loop that is 0, and a BAR reading zeros would pass.
MIN_LOOPS = 2


@dataclass(frozen=True)
class BarRates:
    bytes: int  # per loop
    width: int
    loops: int
    store_mb_s: float
    load_mb_s: float


@parser("pcie_bar")
def parse(text: str) -> BarRates:
    """The last result line (garbled: no figure); rates recomputed from bytes, loops and nanoseconds and
    checked against it; the loads' checksum against what the stores wrote (at least MIN_LOOPS loops)."""
    m = lines_holding(text, "bytes=", _LINE, f"{PROGRAM} result")[-1]
    size, width, loops = (ascii_int(m[key], key, text) for key in ("bytes", "width", "loops"))
    store_ns, load_ns = ascii_int(m["store_ns"], "store_ns", text), ascii_int(m["load_ns"], "load_ns", text)
    if width not in WIDTHS or size == 0 or loops < MIN_LOOPS or store_ns == 0 or load_ns == 0:
        raise ParseError(f"{PROGRAM} result line measured nothing usable: {m.group(0)!r}", raw_output=text)
    moved = size * loops * 1000
    rates = {}
    for name, ns in (("store", store_ns), ("load", load_ns)):
        printed = ascii_float(m[name], f"{name}_mb_s", text)
        rate = moved / ns
        if abs(printed - rate) > 0.0005 + rate * 1e-9:  # the program prints 3 decimals
            raise ParseError(f"{PROGRAM}: {name}_mb_s={m[name]} contradicts its bytes and time", raw_output=text)
        rates[name] = rate
    _check_read_back(text, size, width, loops)
    return BarRates(size, width, loops, rates["store"], rates["load"])


def expected_checksum(size: int, width: int, loops: int) -> int:
    """What resource_mmap_test's loads sum to when they read what its stores wrote: the last pass stores
    loops-1 into every word, each load pass sums the words in the access width, the passes add up in 64 bits."""
    words, last = size // (width // 8), loops - 1
    per_pass = (words * last) % (1 << width)
    return (loops * per_pass) % (1 << 64)


def _check_read_back(text: str, size: int, width: int, loops: int) -> None:
    """Loads that do not return what was stored time something else than the BAR's memory: a BAR whose memory
    decoding is off or whose link is down answers all-ones, registers answer what they hold."""
    found = lines_holding(text, "checksum=", _CHECKSUM, f"{PROGRAM} checksum of its loads")
    checksum, expected = int(found[-1]["sum"], 16), expected_checksum(size, width, loops)
    if checksum != expected or expected == 0:  # 0: what a BAR reading zeros gives too
        raise ParseError(
            f"{PROGRAM}: the loads read back checksum {checksum:x}, not the {expected:x} of what the stores wrote: "
            "the BAR is not memory the CPU reaches (memory decoding off, link down, registers)",
            raw_output=text,
        )


def resource_path(bdf: str, bar: int, mapping: str = "device") -> str:
    """sysfs' file of the BAR: `resourceN` maps it as device memory (uncached), `resourceN_wc` write-combining
    (seed 002: the kernel offers it for a 64-bit prefetchable BAR; stores to it may be merged into bursts)."""
    if mapping not in MAPPINGS:
        raise ValueError(f"BAR mapping {mapping!r} must be one of {MAPPINGS}")
    if not re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", bdf):
        raise ValueError(f"PCI address {bdf!r} must look like 0000:01:00.0")
    if bar not in range(6):
        raise ValueError(f"BAR {bar!r} must be 0..5")
    return f"/sys/bus/pci/devices/{bdf}/resource{bar}{MAPPINGS[mapping]}"


def resource_file(role: Role, bdf: str, bar: int, mapping: str) -> str:
    """The role's file of the BAR mapped so; Unavailable where it has none (no write-combining file: the BAR is
    not prefetchable)."""
    path = resource_path(bdf, bar, mapping)
    if role.run_status(shell.cmd("test", "-e", path), timeout=30)[0] != 0:
        raise Unavailable(f"{role.label}: {path} does not exist (the kernel offers it for a prefetchable BAR only)")
    return path


def command(bdf: str, bar: int, *, size: int, width: int, loops: int, mapping: str = "device") -> str:
    if width not in WIDTHS:
        raise ValueError(f"access width must be one of {WIDTHS} bits, got {width!r}")
    return shell.cmd(PROGRAM, resource_path(bdf, bar, mapping), size, width, loops)


def run(
    role: Role, bdf: str, bar: int, *, size: int, width: int = 32, loops: int = MIN_LOOPS, mapping: str = "device"
) -> Measurement:
    """One timed store + load pass over the BAR: `store` and `load` in MB/s."""
    argv = command(bdf, bar, size=size, width=width, loops=loops, mapping=mapping)
    output, started, duration = run_timed(role, argv, PROGRAM, timeout=300, error=MeasurementError)
    rates = parse(output)
    if (rates.bytes, rates.width, rates.loops) != (size, width, loops):
        raise ParseError(f"{PROGRAM} reports another run than asked for ({size} B, {width} bit, {loops} loops)", output)
    return Measurement(
        {"store": Quantity(rates.store_mb_s, "MB/s"), "load": Quantity(rates.load_mb_s, "MB/s")},
        raw=output,
        started=started,
        duration_s=duration,
        details={"bytes": size, "width_bits": width, "loops": loops},
    )
