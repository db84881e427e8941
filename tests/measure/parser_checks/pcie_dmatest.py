"""hil.measure.pcie_dmatest's parsers: their fuzz oracles (the figures read from the text by other means)
and invalidations (outputs that must never give a number)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .edits import (
    Base,
    Edit,
    Oracle,
    carriage_return,
    earlier_whole_last_garbled,
    ends_in_cr,
    insert_before_last,
    on_last_line,
)


def _epf_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    line = [line for line in text.split("\n") if " => Size: " in line and line.endswith(" KB/s")][-1]
    op = line.split(" => ")[0].split()[-1]
    size = int(line.split("Size: ")[1].split(" B,")[0])
    seconds = float(line.split("Time: ")[1].split(" s,")[0])
    assert (result.direction, result.bytes) == ({"READ": "read", "WRITE": "write"}[op], size)
    assert math.isclose(result.seconds, seconds)


def _pcitest_oracle(text: str, asked: dict[str, Any], result: dict[tuple[str, int], bool]) -> None:
    verdicts: dict[tuple[str, int], bool] = {}
    for line in text.split("\n"):
        head, sep, verdict = line.rstrip("\r").partition("):")
        if sep and " (" in head and head.split(" (")[0] in ("READ", "WRITE", "COPY"):
            size = head.split(" (")[1].strip().removesuffix(" bytes")
            if size.isascii() and size.isdigit() and verdict.strip() in ("OKAY", "NOT OKAY"):
                verdicts[(head.split(" (")[0], int(size))] = verdict.strip() == "OKAY"
    assert verdicts == result


def _dw_dmatest_oracle(text: str, asked: dict[str, Any], result: Any) -> None:
    line = [line for line in text.split("\n") if "pcie dma " in line and " speed:" in line][-1]
    product = line.split("test (")[1].split(" cost")[0]  # "1+0)*SIZE*LOOPS"
    size, loops = (int(n) for n in product.split(")*")[1].split("*"))
    us = int(line.split(" cost ")[1].split("us")[0])
    assert (result.bytes, result.seconds) == (size * loops, us / 1e6)


def _dw_line(size: int, loops: int, us: int, *, write: bool) -> str:
    """pcie-dw-dmatest's printf (tests/data/pcie_dmatest/dw-dmatest-format.txt), with its u32 arithmetic."""
    wr, rd = (1, 0) if write else (0, 1)
    total = ((wr + rd) * size * loops) % (1 << 32)
    speed = total * (1000000 // 1024) // us
    flags = f"{'wr' if wr else ''}/{'rd' if rd else ''}"
    return f"pcie dma {flags} test ({wr}+{rd})*{size}*{loops} cost {us}us speed:{speed}KB/S"


def _dw_bases() -> list[Base]:
    lines = [_dw_line(4194304, 1000, 1367960, write=True), _dw_line(64, 100000, 1066667, write=False)]
    return [Base(f"printf-{i}", f"[  812.34567{i}] {line}\n", {}) for i, line in enumerate(lines)]


EPF = {
    "rate other than size / time": on_last_line(r"Rate: ([0-9]+)", lambda m: f"Rate: {int(m[1]) * 2 + 1}"),
    "garbled operation": on_last_line(r" (READ|WRITE) =>", lambda m: f" x{m[1]} =>"),
    "last line ends in CR": ends_in_cr(" => Size: "),
    "last line overwritten after a CR": earlier_whole_last_garbled(" => Size: ", carriage_return),
    **{f"failure: {what}": insert_before_last(f"pci_epf_test pci_epf_test.0: {what}") for what in (
        "Failed to get DMA channel", "DMA wait_for_completion timeout", "Failed to map source address",
    )},
}  # fmt: skip


DW = {
    **{f"failure: {what}": insert_before_last(f"[  811.000001] rk-pcie 3c0800000.pcie: {what}") for what in (
        "rk_pcie_get_dma_status, write abort", "rk_pcie_get_dma_status, read abort 10000",
        "rk_pcie_dma_tobus timed out", "rk_pcie_dma_frombus interrupted",
    )},
    "speed other than bytes / time": on_last_line(r"speed:([0-9]+)", lambda m: f"speed:{int(m[1]) + 1}"),
    "last line ends in CR": ends_in_cr("pcie dma "),
    "last line garbled": earlier_whole_last_garbled("pcie dma ", lambda line: line.replace(" cost ", " co5t ")),
}  # fmt: skip


PCITEST = {
    "a verdict garbled": on_last_line(r"OKAY$", lambda m: "OKA"),
    "a verdict cut": on_last_line(r" +OKAY$", lambda m: ""),
    "a verdict overwritten after a CR": earlier_whole_last_garbled(" bytes):", carriage_return),
}


ORACLES: dict[str, Oracle] = {
    "hil.measure.pcie_dmatest.parse_epf_test": _epf_oracle,
    "hil.measure.pcie_dmatest.parse_pcitest": _pcitest_oracle,
    "hil.measure.pcie_dmatest.parse_dw_dmatest": _dw_dmatest_oracle,
}
INVALIDATIONS: dict[str, dict[str, Edit]] = {
    "hil.measure.pcie_dmatest.parse_epf_test": EPF,
    "hil.measure.pcie_dmatest.parse_dw_dmatest": DW,
    "hil.measure.pcie_dmatest.parse_pcitest": PCITEST,
}
BASES: dict[str, Callable[[], list[Base]]] = {
    "hil.measure.pcie_dmatest.parse_dw_dmatest": _dw_bases,
}
NO_REAL_CAPTURE: dict[str, str] = {
    "hil.measure.pcie_dmatest.parse_dw_dmatest": "no pcie-dw-dmatest log has been captured (seed 002 gives the printf)",
}
