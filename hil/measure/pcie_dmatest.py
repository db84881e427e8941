"""PCIe DMA throughput between a root complex and an endpoint (seed 002 §4), from the kernel log of the side
whose DMA engine moves the data: Rockchip's `pcie-dw-dmatest` (vendor kernels, set up and run through its
module parameters) or mainline `pci-epf-test` on the endpoint, driven by `pcitest -d` on the root complex.

Directions are the DMA engine's: `write` moves local memory across the link, `read` pulls remote memory
across it. Rates are computed from the logged bytes and time, and checked against the driver's own
rounded figure: a line whose numbers disagree with each other is garbled, not a measurement.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure.dd import DdTransfer
from hil.measure.kernel_log import after_marker, mark
from hil.measure.parsing import ascii_int, lines_holding, no_failure, one_of, parser
from hil.verdict.errors import MeasurementError, ParseError
from hil.verdict.measurement import Measurement, Quantity

DIRECTIONS = ("read", "write")
DW_PARAMS = "/sys/module/pcie_dw_dmatest/parameters"
U32 = 1 << 32

# pcie-dw-dmatest.c: pr_err("pcie dma %s/%s test (%d+%d)*%d*%d cost %lldus speed:%lldKB/S\n", ...)
_DW_LINE = re.compile(
    r"(?:<[0-7]>)?(?:\[ *[0-9]+\.[0-9]+\] )?(?:[\x21-\x7e]+ [\x21-\x7e]+: )?"  # printk's level, time, device
    r"pcie dma (?P<wr>wr|)/(?P<rd>rd|) test \((?P<w>[0-9]+)\+(?P<r>[0-9]+)\)\*(?P<size>[0-9]+)\*(?P<loops>[0-9]+)"
    r" cost (?P<us>[0-9]+)us speed:(?P<kbs>[0-9]+)KB/S",
    re.ASCII,
)
# The transfer's own failure, which pcie-dw-dmatest ignores before logging a rate for the loop anyway:
# rk_pcie_get_dma_status "%s, write abort" / "%s, read abort %x"; rk_pcie_dma_tobus/frombus "%s timed out",
# "%s interrupted" (pcie-dw-dmatest.c and pcie-dw-rockchip.c).
_DW_FAILURE = re.compile(r", (?:write|read) abort\b|_dma_(?:tobus|frombus) (?:timed out|interrupted)", re.ASCII)
# pci-epf-test.c: "%s => Size: %llu B, DMA: %s, Time: %llu.%09u s, Rate: %llu KB/s" (6.x). A 2025 patch prints
# the time with %ptSp instead; no capture of that yet, so a different time format is a ParseError, not a guess.
_EPF_LINE = re.compile(
    # The operation is a token of its own ("xREAD" is a garbled line, not a READ).
    r"[^\r\n]*?(?<![^ :])(?P<op>READ|WRITE|COPY) => Size: (?P<size>[0-9]+) B, DMA: (?P<dma>YES|NO), "
    r"Time: (?P<sec>[0-9]+)\.(?P<nsec>[0-9]{9}) s, Rate: (?P<kbs>[0-9]+) KB/s",
    re.ASCII,
)
# pci-epf-test's own errors ("Failed to get DMA channel", "DMA wait_for_completion timeout", "Failed to map
# source address"...): the transfer that failed still logs its "=> Size" line, with whatever time it took.
_EPF_FAILURE = re.compile(r"pci_epf_test.*(?:[Ff]ail|[Tt]imeout|timed out|[Ee]rror|[Aa]bort)", re.ASCII)
# pcitest: "READ (1024000 bytes):           OKAY" / "NOT OKAY"
_PCITEST_LINE = re.compile(
    r"(?P<op>READ|WRITE|COPY) \( *(?P<size>[0-9]+) bytes\):[ \t]+(?P<result>OKAY|NOT OKAY)", re.ASCII
)


@dataclass(frozen=True)
class DmaRate(DdTransfer):  # bytes: moved in total
    direction: str  # "read" or "write"


@parser("pcie_dmatest")
def parse_dw_dmatest(text: str) -> DmaRate:
    """The last `pcie dma ... speed:...KB/S` summary of pcie-dw-dmatest (garbled: none), one direction only;
    a transfer's failure logged anywhere in the run's log refuses it."""
    m = lines_holding(text, "pcie dma ", _DW_LINE, "pcie-dw-dmatest summary")[-1]
    no_failure(text, _DW_FAILURE, "pcie-dw-dmatest")
    wr, rd = ascii_int(m["w"], "write flag", text), ascii_int(m["r"], "read flag", text)
    if (wr, rd) not in ((1, 0), (0, 1)) or bool(m["wr"]) != bool(wr) or bool(m["rd"]) != bool(rd):
        # rw_test=3 logs one rate for reads and writes together: no figure for either direction.
        raise ParseError(f"pcie-dw-dmatest summary is not one direction: {m.group(0)!r}", raw_output=text)
    size, loops = ascii_int(m["size"], "size", text), ascii_int(m["loops"], "loops", text)
    us, printed = ascii_int(m["us"], "time", text), ascii_int(m["kbs"], "speed", text)
    if size == 0 or loops == 0 or us == 0:
        raise ParseError(f"pcie-dw-dmatest measured nothing: {m.group(0)!r}", raw_output=text)
    total = size * loops
    # The driver's own figure, with its arithmetic: the byte count is a u32 product (it wraps above 4 GiB)
    # and 1000000/1024 is an integer division (976).
    if printed != (total % U32) * (1000000 // 1024) // us:
        raise ParseError(f"pcie-dw-dmatest summary contradicts itself: {m.group(0)!r}", raw_output=text)
    return DmaRate(total, us / 1e6, "write" if wr else "read")


@parser("pcie_dmatest")
def parse_epf_test(text: str) -> DmaRate:
    """The last DMA READ or WRITE line pci-epf-test logged (COPY and CPU transfers are no DMA rate); an error
    of the driver logged anywhere in the run's log refuses it."""
    no_failure(text, _EPF_FAILURE, "pci-epf-test")
    m = lines_holding(text, " => Size: ", _EPF_LINE, "pci-epf-test transfer")[-1]
    if m["op"] == "COPY" or m["dma"] != "YES":
        raise ParseError(f"the last pci-epf-test transfer was not a DMA read or write: {m.group(0)!r}", text)
    size = ascii_int(m["size"], "size", text)
    ns = ascii_int(m["sec"], "seconds", text) * 1_000_000_000 + ascii_int(m["nsec"], "nanoseconds", text)
    printed = ascii_int(m["kbs"], "rate", text)
    if size == 0 or ns == 0:
        raise ParseError(f"pci-epf-test measured nothing: {m.group(0)!r}", raw_output=text)
    if printed != size * 1_000_000_000 // (ns * 1000):  # the driver's div64_u64(size * NSEC_PER_SEC, ns * 1000)
        raise ParseError(f"pci-epf-test line contradicts itself: {m.group(0)!r}", raw_output=text)
    return DmaRate(size, ns / 1e9, "read" if m["op"] == "READ" else "write")


@parser("pcie_dmatest")
def parse_pcitest(text: str) -> dict[tuple[str, int], bool]:
    """pcitest's verdicts by (operation, bytes): True for OKAY. The last verdict for a case counts."""
    results = {}
    for line in text.split("\n"):  # pcitest's own line ends: one verdict per line, nothing else on it
        if not line.startswith(("READ (", "WRITE (", "COPY (")):
            continue
        m = _PCITEST_LINE.fullmatch(line.rstrip("\r"))
        if m is None:
            raise ParseError(f"pcitest verdict line does not parse: {line[:80]!r}", raw_output=text)
        results[(m["op"], ascii_int(m["size"], "size", text))] = m["result"] == "OKAY"
    if not results:
        raise ParseError("pcitest printed no READ/WRITE/COPY verdict", raw_output=text)
    return results


def dw_dmatest_commands(*, size: int, loops: int, direction: str, is_rc: bool, channel: int = 0) -> list[str]:
    """The module-parameter writes that set up and run one pcie-dw-dmatest transfer loop on one channel."""
    one_of(direction, DIRECTIONS, "DMA direction")
    values = {
        "is_rc": 1 if is_rc else 0,
        "chn_en": 1 << channel,  # one channel: dma_run() then runs the loop synchronously
        "rw_test": 1 if direction == "read" else 2,
        "size": size,
        "cycles_count": loops,
    }
    return [shell.write(f"{DW_PARAMS}/{name}", value) for name, value in values.items()] + [
        shell.write(f"{DW_PARAMS}/dmatest", "run")
    ]


def run_dw_dmatest(
    role: Role, *, size: int, loops: int, direction: str, is_rc: bool, timeout: float = 120
) -> Measurement:
    """One pcie-dw-dmatest run on `role` (the side whose DMA engine moves the data); MB/s."""
    marker = mark(role)
    started = time.time()
    role.run(
        shell.all_of(dw_dmatest_commands(size=size, loops=loops, direction=direction, is_rc=is_rc)), timeout=timeout
    )
    duration = time.time() - started
    log = after_marker(role.run("dmesg", timeout=60), marker, "pcie dma ")
    rate = parse_dw_dmatest(log)
    if rate.direction != direction or rate.bytes != size * loops:
        raise ParseError(f"pcie-dw-dmatest logged a {rate.direction} of {rate.bytes} B, not this run's", log)
    return _measurement(rate, started, duration, log)


def run_epf_test(
    rc: Role, ep: Role, *, size: int, direction: str, device: str = "/dev/pci-endpoint-test.0"
) -> Measurement:
    """One `pcitest -d` transfer from the root complex; the rate is the endpoint's pci-epf-test log line."""
    one_of(direction, DIRECTIONS, "DMA direction")
    marker = mark(ep)
    started = time.time()
    flag = "-r" if direction == "read" else "-w"
    exitcode, output = rc.run_status(shell.cmd("pcitest", "-D", device, "-d", flag, "-s", size), timeout=120)
    duration = time.time() - started
    op = "READ" if direction == "read" else "WRITE"
    if exitcode != 0 or not parse_pcitest(output).get((op, size), False):
        raise MeasurementError(f"pcitest {op} of {size} B did not pass (exit {exitcode})", raw_output=output)
    log = after_marker(ep.run("dmesg", timeout=60), marker, " => Size: ")
    rate = parse_epf_test(log)
    if rate.direction != direction or rate.bytes != size:
        raise ParseError(f"pci-epf-test logged a {rate.direction} of {rate.bytes} B, not this run's", log)
    return _measurement(rate, started, duration, f"{output}\n--- endpoint log ---\n{log}")


def _measurement(rate: DmaRate, started: float, duration: float, raw: str) -> Measurement:
    return Measurement(
        {"throughput": Quantity(rate.mb_per_s, "MB/s")},
        raw=raw,
        started=started,
        duration_s=duration,
        details={"bytes": rate.bytes, "dma_seconds": rate.seconds},
    )
