"""PCIe DMA parsers on real logs: pci-epf-test on an RK3588 endpoint and pcitest on its root complex (two ROCK 5B,
linux-pci cover letter), pcitest in the kernel documentation. pcie-dw-dmatest lines are rendered from the
driver's own printf statement (tests/data/pcie_dmatest/dw-dmatest-format.txt): no captured log exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure import kernel_log, pcie_dmatest
from hil.measure.parsing import PARSERS
from hil.verdict.errors import MeasurementError, ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "pcie_dmatest"
EP_LOG = (DATA / "epf-test-rk3588-rock5b-ep.txt").read_text()


def _ep_lines(op: str, dma: str) -> list[str]:
    return [line for line in EP_LOG.splitlines() if f" {op} => " in line and f"DMA: {dma}," in line]


def test_the_parsers_join_the_registry():
    for name in ("parse_dw_dmatest", "parse_epf_test", "parse_pcitest"):
        assert PARSERS[f"hil.measure.pcie_dmatest.{name}"].data == "pcie_dmatest"


def test_epf_test_takes_the_last_dma_line_of_the_real_log():
    rate = pcie_dmatest.parse_epf_test(EP_LOG)
    assert (rate.direction, rate.bytes, rate.seconds) == ("read", 1024001, 0.000702625)
    # The driver's own figure: 1457393 KB/s, 10^3 B.
    assert rate.mb_per_s == pytest.approx(1457.393, abs=0.001)


@pytest.mark.parametrize("op", ["READ", "WRITE"])
def test_every_real_dma_line_agrees_with_the_rate_it_prints(op):
    for line in _ep_lines(op, "YES"):
        rate = pcie_dmatest.parse_epf_test(line)
        printed_kb_s = int(line.rsplit("Rate: ", 1)[1].split()[0])
        assert rate.direction == op.lower()
        assert int(rate.bytes / rate.seconds / 1000) == printed_kb_s


def test_the_rk3588_write_of_1_mb_is_2106_mb_s():
    write = [line for line in _ep_lines("WRITE", "YES") if "Size: 1024000 B" in line]
    assert pcie_dmatest.parse_epf_test(write[0]).mb_per_s == pytest.approx(2106.09, abs=0.01)


@pytest.mark.parametrize("op", ["READ", "WRITE", "COPY"])
def test_a_cpu_transfer_is_not_a_dma_rate(op):
    last_cpu_line = _ep_lines(op, "NO")[-1]
    with pytest.raises(ParseError, match="not a DMA"):
        pcie_dmatest.parse_epf_test(EP_LOG + last_cpu_line + "\n")


def test_an_epf_line_whose_rate_contradicts_size_and_time_is_refused():
    line = _ep_lines("READ", "YES")[-1].replace("Rate: 1457393", "Rate: 1557393")
    with pytest.raises(ParseError, match="contradicts"):
        pcie_dmatest.parse_epf_test(line)


def test_an_operation_glued_to_garbage_is_not_read_as_that_operation():
    # Found by the fuzz harness: "R\u2fe0READ => ..." was taken for a READ.
    line = [line for line in EP_LOG.splitlines() if "READ => " in line and "DMA: YES" in line][-1]
    with pytest.raises(ParseError, match="garbled line"):
        pcie_dmatest.parse_epf_test(line.replace("READ => ", "R\u2fe0READ => "))


def test_non_ascii_digits_in_an_epf_line_are_refused():
    line = _ep_lines("READ", "YES")[-1].replace("Size: 1024001", "Size: 102400١")
    with pytest.raises(ParseError):
        pcie_dmatest.parse_epf_test(line)


@pytest.mark.parametrize("name", ["pcitest-rk3588-rock5b-rc.txt", "pcitest-howto.txt"])
def test_pcitest_verdicts_of_real_outputs(name):
    verdicts = pcie_dmatest.parse_pcitest((DATA / name).read_text())
    assert verdicts[("READ", 1024000)] and verdicts[("WRITE", 1)] and verdicts[("COPY", 1024001)]
    assert len(verdicts) == 15


def test_a_not_okay_after_okay_counts():
    text = (DATA / "pcitest-howto.txt").read_text() + "READ (1024000 bytes):\t\tNOT OKAY\n"
    assert pcie_dmatest.parse_pcitest(text)[("READ", 1024000)] is False


def test_pcitest_output_without_verdicts_is_a_parse_error():
    with pytest.raises(ParseError):
        pcie_dmatest.parse_pcitest("pcitest: can't open PCI Endpoint Test device\n")


# --- pcie-dw-dmatest: lines rendered from the driver's printf, with its integer arithmetic -------------


def _format() -> str:
    source = (DATA / "dw-dmatest-format.txt").read_text()
    return source.split('"')[1].replace("\\n", "")


def _dw_line(size: int, loops: int, us: int, *, write: bool) -> str:
    """What dma_test() prints: total_byte = (wr_en + rd_en) * size * loop is u32 arithmetic in C."""
    wr, rd = (1, 0) if write else (0, 1)
    total = ((wr + rd) * size * loops) % (1 << 32)
    c_format = _format().replace("%lld", "%d")
    return c_format % ("wr" if wr else "", "rd" if rd else "", wr, rd, size, loops, us, total * (1000000 // 1024) // us)


def test_the_format_is_the_drivers():
    assert _format() == "pcie dma %s/%s test (%d+%d)*%d*%d cost %lldus speed:%lldKB/S"


def test_dw_dmatest_rate_from_bytes_and_time():
    # Seed 002 §4.3.2, RK3588 4 MB write: 3066.1 MB/s -> 1000 loops of 4 MiB in 1367960 us.
    line = _dw_line(4194304, 1000, 1367960, write=True)
    rate = pcie_dmatest.parse_dw_dmatest(f"[  812.345678] {line}\n")
    assert rate.direction == "write"
    assert rate.mb_per_s == pytest.approx(3066.1, abs=0.05)


def test_dw_dmatest_uses_the_true_byte_count_where_the_driver_wraps_it():
    # 4 MiB x 2000 is above 2^32: the driver's KB/S figure wraps, the parsed rate does not.
    line = _dw_line(4194304, 2000, 2735920, write=False)
    printed = int(line.rsplit("speed:", 1)[1].removesuffix("KB/S"))
    assert printed * 1024 / 1e6 < 1500  # the driver's own figure, less than half the truth
    assert pcie_dmatest.parse_dw_dmatest(line).mb_per_s == pytest.approx(3066.1, abs=0.05)


def test_dw_dmatest_takes_the_last_summary():
    text = "\n".join([_dw_line(64, 100000, 436364, write=True), _dw_line(64, 100000, 1066667, write=False)])
    rate = pcie_dmatest.parse_dw_dmatest(text)
    assert rate.direction == "read"
    assert rate.mb_per_s == pytest.approx(6.0, abs=0.01)  # seed 002 §4.3.1, RK3568 64 B read


def test_dw_dmatest_both_directions_at_once_is_no_figure():
    line = _format().replace("%lld", "%d") % ("wr", "rd", 1, 1, 4096, 10, 100, 2 * 4096 * 10 * 976 // 100)
    with pytest.raises(ParseError, match="not one direction"):
        pcie_dmatest.parse_dw_dmatest(line)


def test_dw_dmatest_line_with_a_wrong_speed_is_refused():
    line = _dw_line(4096, 1000, 7742, write=True)
    with pytest.raises(ParseError, match="contradicts"):
        pcie_dmatest.parse_dw_dmatest(line.replace("speed:", "speed:1"))


def test_no_summary_is_a_parse_error():
    with pytest.raises(ParseError, match="no line holding 'pcie dma"):
        pcie_dmatest.parse_dw_dmatest("dmatest dev not exits\n")


def test_the_commands_quote_every_value_and_run_one_channel():
    commands = pcie_dmatest.dw_dmatest_commands(size=65536, loops=1024, direction="write", is_rc=False)
    assert commands[0] == "printf '%s\\n' 0 > /sys/module/pcie_dw_dmatest/parameters/is_rc"
    assert "printf '%s\\n' 1 > /sys/module/pcie_dw_dmatest/parameters/chn_en" in commands
    assert "printf '%s\\n' 2 > /sys/module/pcie_dw_dmatest/parameters/rw_test" in commands
    assert commands[-1] == "printf '%s\\n' run > /sys/module/pcie_dw_dmatest/parameters/dmatest"


def test_a_log_without_the_marker_is_a_measurement_error():
    with pytest.raises(MeasurementError, match="marker"):
        kernel_log.after_marker(EP_LOG, "hil-pcie-dma-0000")
    assert kernel_log.after_marker("old\nhil-pcie-dma-1\nnew\n", "hil-pcie-dma-1") == "\nnew\n"


def test_a_run_log_holds_exactly_its_one_summary():
    """A run's last line cut before its text ("pcie d") would hand the parser an earlier run's summary: the
    runner asks for exactly one after its marker."""
    first = EP_LOG.splitlines()[-2]  # pci-epf-test's READ of 1024000 B with DMA, as logged on an RK3588
    whole = f"hil-pcie-dma-1\n{first}\n"
    one = kernel_log.after_marker(whole, "hil-pcie-dma-1", " => Size: ")
    assert pcie_dmatest.parse_epf_test(one).bytes == 1024000
    cut = f"{first}\nhil-pcie-dma-2\npci_epf_test pci_epf_test.0: READ =\n"
    assert pcie_dmatest.parse_epf_test(cut).bytes == 1024000  # the parser alone takes the earlier line
    for log in (cut, f"hil-pcie-dma-2\n{first}\n{first}\n"):
        with pytest.raises(ParseError, match="lines with ' => Size: ' after hil's marker"):
            kernel_log.after_marker(log, "hil-pcie-dma-2", " => Size: ")


# The driver's failure messages (pcie-dw-dmatest.c / pcie-dw-rockchip.c): dev_err "%s, write abort\n",
# "%s, read abort %x\n", "%s timed out\n", "%s interrupted\n"; the loop logs its rate after them anyway.
DW_FAILURES = [
    "rk-pcie 3c0800000.pcie: rk_pcie_get_dma_status, write abort",
    "rk-pcie 3c0800000.pcie: rk_pcie_get_dma_status, read abort 10000",
    "rk-pcie 3c0800000.pcie: rk_pcie_dma_tobus timed out",
    "rk-pcie 3c0800000.pcie: rk_pcie_dma_frombus interrupted",
]


@pytest.mark.parametrize("failure", DW_FAILURES)
def test_a_rate_logged_after_a_failed_transfer_is_no_figure(failure):
    # The rate after "write abort" is ~3 GB/s for a transfer that failed (issue "numbers that cannot lie").
    text = f"[  811.000001] {failure}\n[  812.345678] {_dw_line(4194304, 1000, 1367960, write=True)}\n"
    with pytest.raises(ParseError, match="reported a failure"):
        pcie_dmatest.parse_dw_dmatest(text)


def test_a_failure_anywhere_in_the_runs_log_refuses_its_summary():
    # The log is the one after hil's marker: a failure in it, even before an earlier summary, is this run's.
    earlier = _dw_line(4096, 10, 100, write=True)
    text = "\n".join([DW_FAILURES[0], earlier, _dw_line(4194304, 1000, 1367960, write=True)])
    with pytest.raises(ParseError, match="reported a failure"):
        pcie_dmatest.parse_dw_dmatest(text)


@pytest.mark.parametrize(
    "failure",
    ["pci_epf_test pci_epf_test.0: Failed to get DMA channel", "pci_epf_test pci_epf_test.0: DMA transfer timeout"],
)
def test_an_endpoint_test_that_printed_a_failure_gives_no_rate(failure):
    # Built from the real capture: the driver's error printed before its last DMA line.
    text = (DATA / "epf-test-rk3588-rock5b-ep.txt").read_text()
    lines = text.rstrip("\n").split("\n")
    failed = "\n".join([*lines[:-1], failure, lines[-1]]) + "\n"
    pcie_dmatest.parse_epf_test(text)
    with pytest.raises(ParseError, match="reported a failure"):
        pcie_dmatest.parse_epf_test(failed)
