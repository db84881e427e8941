"""resource_mmap_test's result line, from real runs of hil/tools/resource_mmap_test.c against a regular file on the
lab PC (tests/data/pcie_bar/capture.sh: no BAR here, so the figures are page-cache rates)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hil.errors import Unavailable
from hil.measure import pcie_bar
from hil.measure.parsing import PARSERS
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "pcie_bar"


def _read(name: str) -> str:
    return (DATA / f"{name}.txt").read_text()


def test_the_parser_joins_the_registry():
    assert PARSERS["hil.measure.pcie_bar.parse"].data == "pcie_bar"


@pytest.mark.parametrize(
    ("name", "size", "width", "loops"),
    [
        ("file-4M-32bit", 4194304, 32, 16),
        ("file-4M-64bit", 4194304, 64, 16),
        ("file-4K-32bit-hex-size", 4096, 32, 1000),
    ],
)
def test_real_runs_parse_to_what_they_were_asked(name, size, width, loops):
    rates = pcie_bar.parse(_read(name))
    assert (rates.bytes, rates.width, rates.loops) == (size, width, loops)
    line = next(line for line in _read(name).splitlines() if line.startswith("bytes="))
    fields = dict(part.split("=") for part in line.split())
    assert rates.store_mb_s == pytest.approx(float(fields["store_mb_s"]), abs=0.0005)
    assert rates.load_mb_s == pytest.approx(float(fields["load_mb_s"]), abs=0.0005)


@pytest.mark.parametrize("name", ["file-too-small", "missing-resource", "bad-width"])
def test_a_refused_run_has_no_result_line(name):
    with pytest.raises(ParseError, match="no line holding 'bytes='"):
        pcie_bar.parse(_read(name))


def test_a_rate_that_contradicts_bytes_and_time_is_refused():
    text = _read("file-4M-32bit").replace("store_mb_s=", "store_mb_s=1")
    with pytest.raises(ParseError, match="contradicts"):
        pcie_bar.parse(text)


def test_a_width_the_program_does_not_do_is_refused():
    with pytest.raises(ParseError, match="nothing usable"):
        pcie_bar.parse(_read("file-4M-32bit").replace("width=32", "width=16"))


def test_the_command_maps_the_sysfs_resource_quoted():
    assert pcie_bar.command("0000:01:00.0", 2, size=1048576, width=32, loops=4) == (
        "resource_mmap_test /sys/bus/pci/devices/0000:01:00.0/resource2 1048576 32 4"
    )
    with pytest.raises(ValueError, match="PCI address"):
        pcie_bar.command("0000:01:00.0; reboot", 2, size=4096, width=32, loops=1)
    assert pcie_bar.command("0000:01:00.0", 2, size=4096, width=32, loops=2, mapping="wc") == (
        "resource_mmap_test /sys/bus/pci/devices/0000:01:00.0/resource2_wc 4096 32 2"
    )
    with pytest.raises(ValueError, match="mapping 'uc' must be one of"):
        pcie_bar.command("0000:01:00.0", 2, size=4096, width=32, loops=2, mapping="uc")


def test_a_real_bar_on_the_virtual_board_reads_back_what_was_stored():
    rates = pcie_bar.parse(_read("vlab-ivshmem-4M-32bit"))
    assert (rates.bytes, rates.width, rates.loops) == (4194304, 32, 4)
    assert rates.store_mb_s == pytest.approx(2219.355, abs=0.001) and rates.load_mb_s == pytest.approx(
        2217.495, abs=0.001
    )


@pytest.mark.parametrize(
    ("name", "checksum", "why"),
    [
        ("vlab-ivshmem-4M-32bit", "ffffffffffc00000", "all-ones: memory decoding off or the link down"),
        ("file-4M-32bit", "0", "a register that reads 0"),
        ("file-4M-64bit", "7800001", "one word that did not keep its value"),
    ],
)
def test_loads_that_do_not_return_what_was_stored_are_no_bar_rate(name, checksum, why):
    del why  # the case's name in the report
    text = _read(name)
    changed = "\n".join(f"checksum={checksum}" if line.startswith("checksum=") else line for line in text.splitlines())
    with pytest.raises(ParseError, match=r"not the .* of what the stores wrote: the BAR is not memory"):
        pcie_bar.parse(changed)


def test_output_without_the_checksum_is_cut_short():
    text = "\n".join(line for line in _read("file-4M-32bit").splitlines() if not line.startswith("checksum="))
    with pytest.raises(ParseError, match="no line holding 'checksum='"):
        pcie_bar.parse(text)


def test_the_expected_checksum_wraps_in_the_access_width():
    # 1024 words of 999 in 32 bits, 1000 passes: the capture's own checksum (0x3cf96000).
    assert pcie_bar.expected_checksum(4096, 32, 1000) == 0x3CF96000
    assert pcie_bar.expected_checksum(8, 32, 1 << 32) == ((1 << 32) * ((2 * ((1 << 32) - 1)) % (1 << 32))) % (1 << 64)


class ThisPc:
    """A role whose commands run in a shell on this PC (it has no such PCI function)."""

    label = "lab-pc/rc (this PC)"

    def run_status(self, command: str, **_: object) -> tuple[int, str]:
        done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=False)
        return done.returncode, done.stdout + done.stderr


def test_a_mapping_the_kernel_does_not_offer_is_unavailable_naming_the_board_and_the_file():
    # The file that exists is the virtual lab's (tests/vlab/test_pcie_bar_vlab.py: resource2 and resource2_wc).
    with pytest.raises(Unavailable, match=r"^lab-pc/rc \(this PC\): /sys/bus/pci/devices/0000:ff:1f.7/resource5_wc "):
        pcie_bar.resource_file(ThisPc(), "0000:ff:1f.7", 5, "wc")  # type: ignore[arg-type]
