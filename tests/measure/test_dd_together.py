"""hil.measure.dd_together on real output (tests/data/dd_together, see its capture.sh) and its command."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.measure import dd, dd_together
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "dd_together"
SCRATCH = "/var/tmp/hil-dd-together"
TWO = [16 * 1024 * 1024] * 2  # 512K x 32 per disk


def _capture(name: str) -> tuple[str, dict[str, str]]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_bytes().decode(), source


@pytest.mark.parametrize(("name", "build"), [("write-two", dd.write_command), ("read-two", dd.read_command)])
def test_the_captures_are_of_the_command_hil_builds(name, build):
    _, source = _capture(name)
    assert source["command"] == dd_together.command([build(f"{SCRATCH}/{x}.img", "512K", 16) for x in "ab"])


@pytest.mark.parametrize("name", ["write-two", "read-two"])
def test_each_disk_has_its_own_rate_and_the_sum_is_all_bytes_over_the_whole_span(name):
    output, _ = _capture(name)
    together = dd_together.parse(output, expected_bytes=TWO)
    start, end = (int(n) for n in output.splitlines()[0].split()[1:])
    seconds = [float(line.split(" copied, ")[1].split(" s, ")[0]) for line in output.splitlines() if "copied" in line]
    assert [t.seconds for t in together.transfers] == seconds
    assert together.seconds == (end - start) / 1e9
    assert together.total_mb_per_s == pytest.approx(2 * 16 * 1024 * 1024 / together.seconds / 1e6)
    # At the same time: the span is shorter than the two dd runs one after the other would take.
    assert max(seconds) <= together.seconds < sum(seconds) + 0.05


def test_a_dd_that_failed_is_a_parse_error_naming_its_disk_with_the_raw_output():
    output, source = _capture("read-one-missing")
    assert source["exit"] == "0"  # the script itself ends well: only its report says dd failed
    with pytest.raises(ParseError, match="dd on disk 1 exited 1") as caught:
        dd_together.parse(output, expected_bytes=TWO)
    assert caught.value.raw_output == output


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        # Built from the capture: a disk's output missing, the clock line gone, dd longer than the whole span.
        (lambda text: text.split("== disk 1")[0], "outputs of 2 dd runs in order"),
        (lambda text: text.split("\n", 1)[1], "no clock line"),
        (lambda text: text.replace("copied, 0.0338216 s, 496", "copied, 33.8216 s, 0.496"), "shorter than one dd"),
    ],
)
def test_outputs_that_do_not_add_up_are_parse_errors(edit, says):
    output, _ = _capture("read-two")
    with pytest.raises(ParseError, match=says):
        dd_together.parse(edit(output), expected_bytes=TWO)


def test_a_disk_asked_for_more_than_it_copied_is_a_short_transfer():
    output, _ = _capture("read-two")
    with pytest.raises(ParseError, match="disk 0: dd copied 16777216 bytes of the 33554432"):
        dd_together.parse(output, expected_bytes=[32 * 1024 * 1024, 16 * 1024 * 1024])
