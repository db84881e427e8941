"""hil.lab.board.identify: what a board says it is, parsed strictly from one command's output (tests/data/identify:
captured on the virtual board and on the lab PC; the variations below are built from those captures)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hil.errors import LabError
from hil.facts import BoardIdentity
from hil.lab.board.identify import SCRIPT, parse
from hil.lab.board.shell import MAX_LINE

DATA = Path(__file__).resolve().parents[1] / "data" / "identify"


def _captured(name: str) -> str:
    return (DATA / f"{name}.txt").read_text()


def test_the_virtual_board_names_its_dmi_product_and_gives_no_serial_or_mac_it_does_not_have():
    arch, kernel, identity = parse(_captured("vlab"), "vboard")
    assert (arch, kernel) == ("x86_64", "6.1.0-56-amd64")
    assert identity == BoardIdentity(model="Standard PC (Q35 + ICH9, 2009)")


def test_the_lab_pc_gives_what_its_files_hold():
    output = _captured("lab-pc")
    arch, kernel, identity = parse(output, "lab-pc")
    assert f"arch {arch}\nkernel {kernel}\n" in output
    assert identity.mac is None or f"mac {identity.mac}\n" in output


def test_a_firmware_placeholder_is_no_serial_number_and_a_kernel_message_is_no_line_of_its_own():
    output = _captured("vlab").replace("serial \n", "serial To Be Filled By O.E.M.\n[   12.345678] usb 1-1: reset\n")
    assert parse(output, "vboard")[2].serial is None


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda text: text.replace("\nend", ""), "it did not end in `end`"),
        (lambda text: text.replace("\nend", "\nmac 52:54:00:12:34\nend"), "'52:54:00:12:34' is no MAC address"),
        (lambda text: text.replace("\nend", "\nmodel twice\nend"), "unexpected line 'model twice'"),
        (lambda text: text.replace("kernel ", "kernel 6.1 "), "no single-word `uname -m` and `uname -r`"),
        (lambda text: text.replace("\nend", "\nuptime 12\nend"), "unexpected line 'uptime 12'"),
    ],
)
def test_output_that_does_not_parse_is_an_error_showing_it(change, why):
    output = change(_captured("vlab").rstrip("\n")) + "\n"
    with pytest.raises(LabError, match=f"vboard: what the board says it is did not parse \\({re.escape(why)}"):
        parse(output, "vboard")


def test_it_is_one_command_line_the_console_takes_whole():
    assert "\n" not in SCRIPT and len(SCRIPT) <= MAX_LINE  # longer ones are staged in pieces (hil.lab.board.role)
