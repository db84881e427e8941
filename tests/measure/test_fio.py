"""hil.measure.fio on real fio output (tests/data/fio: this PC's, see capture.sh, and the virtual board's
QEMU NVMe, see capture_vlab.py) and the commands it builds."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from hil.measure import fio
from hil.measure.fio import FioJob
from hil.measure.parsing import PARSERS
from hil.verdict.errors import MeasurementError, ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "fio"
GOOD = sorted(
    path.stem
    for path in DATA.glob("*.txt")
    if "enghelp" not in path.stem and "error" not in path.stem and "zero-io" not in path.stem
)
BYTES = {"1M": 2**20, "4K": 4096}


def _capture(name: str) -> tuple[str, dict[str, str]]:
    source = dict(line.split(": ", 1) for line in (DATA / f"{name}.source").read_text().splitlines())
    return (DATA / f"{name}.txt").read_text(), source


def _args(command: str) -> dict[str, str]:
    return dict(arg.removeprefix("--").split("=", 1) for arg in shlex.split(command) if "=" in arg)


def test_captures_cover_this_pc_and_the_virtual_board_with_both_engines():
    assert {name.split("-")[0] for name in GOOD} == {"pc", "vlab"}
    engines = {_args(_capture(name)[1]["command"])["ioengine"] for name in GOOD}
    assert engines == {"libaio", "psync"}


@pytest.mark.parametrize("name", GOOD)
def test_parses_rate_iops_and_p99_agreeing_with_the_job_in_the_output(name):
    text, source = _capture(name)
    assert source["exit"] == "0"
    args = _args(source["command"])
    direction = fio.DIRECTION[args["rw"]]
    job = json.loads(text[text.index("{") :])["jobs"][0][direction]
    m = fio.parse(text)
    assert m.values["throughput"].unit == "B/s" and m.values["throughput"].value == job["bw_bytes"] > 0
    assert m.values["iops"].value == pytest.approx(job["iops"])
    assert m.values["latency_p99"].unit == "µs"
    assert m.values["latency_p99"].value == job["clat_ns"]["percentile"]["99.000000"] / 1000
    # what fio says it did is what it was asked to do: the block size links rate and IOPS, give or take the
    # iodepth I/Os in flight when the ramp ended (counted in io_bytes, not in total_ios)
    slack = max(0.02, int(args["iodepth"]) / job["total_ios"])
    assert m.values["throughput"].value / m.values["iops"].value == pytest.approx(BYTES[args["bs"]], rel=slack)
    assert m.details["ioengine"] == args["ioengine"] and m.details["rw"] == args["rw"]


@pytest.mark.parametrize("name", GOOD)
def test_captured_commands_are_the_ones_hil_builds(name):
    _, source = _capture(name)
    args = _args(source["command"])
    job = FioJob(args["rw"], args["bs"], iodepth=32)  # Q32T1 cases; psync runs them at depth 1
    built = fio.command(
        args["filename"],
        job,
        engine=args["ioengine"],
        size_mb=int(args["size"].removesuffix("M")),
        runtime_s=float(args["runtime"]),
        ramp_s=float(args["ramp_time"]),
    )
    assert _args(built) == args
    assert shlex.split(built)[0] == "fio"


def test_psync_runs_at_queue_depth_one():
    command = fio.command("/dev/nvme0n1", FioJob("randread", "4K", iodepth=32), engine="psync", size_mb=8, runtime_s=1)
    assert _args(command)["iodepth"] == "1"
    assert "queue depth 1" in fio.describe_engine("psync", FioJob("randread", "4K", iodepth=32))


def test_error_job_is_a_parse_error_with_the_raw_output():
    text, source = _capture("pc-error-no-odirect")
    assert source["exit"] == "1"
    with pytest.raises(ParseError, match="failed with error 22") as exc:
        fio.parse(text)
    assert exc.value.raw_output == text


def test_job_that_moved_no_data_is_a_parse_error():
    text, source = _capture("pc-zero-io-devnull")
    assert source["exit"] == "0"
    with pytest.raises(ParseError, match="moved no data"):
        fio.parse(text)


def test_rates_that_contradict_the_bytes_moved_are_a_parse_error():
    text, _ = _capture("pc-rnd4k-q32t1-read")
    # a variation built from the capture: the rate doubled, io_bytes and runtime left as fio printed them
    document = json.loads(text[text.index("{") :])
    document["jobs"][0]["read"]["bw_bytes"] *= 2
    with pytest.raises(ParseError, match=r"bw_bytes .* disagrees"):
        fio.parse(json.dumps(document))


def test_output_of_two_jobs_is_refused():
    text, _ = _capture("pc-rnd4k-q32t1-read")
    document = json.loads(text[text.index("{") :])
    document["jobs"] *= 2
    with pytest.raises(ParseError, match="expected one job"):
        fio.parse(json.dumps(document))


@pytest.mark.parametrize("cut", [0, 100, 2000])
def test_truncated_output_is_a_parse_error(cut):
    text, _ = _capture("vlab-seq1m-q32t1-read")
    with pytest.raises(ParseError):
        fio.parse(text[:cut])


@pytest.mark.parametrize("name", ["pc-enghelp", "vlab-enghelp"])
def test_engine_list_names_libaio_and_psync(name):
    engines = fio.parse_engines(_capture(name)[0])
    assert {"libaio", "psync"} <= engines


def test_engine_list_without_libaio_falls_back_to_psync():
    text, _ = _capture("pc-enghelp")
    # a variation: fio built without libaio lists every engine but that one
    without = "\n".join(line for line in text.splitlines() if line.strip() != "libaio")

    class Board:
        label = "board"

        def run_status(self, command, timeout):
            return 0, without

    assert fio.engine(Board()) == "psync"


def test_fio_json_is_not_an_engine_list():
    with pytest.raises(ParseError, match="no engine list"):
        fio.parse_engines(_capture("pc-rnd4k-q32t1-read")[0])


def test_missing_fio_is_a_measurement_error():
    class Board:
        label = "board"

        def run_status(self, command, timeout):
            return 127, "sh: fio: not found"

    with pytest.raises(MeasurementError, match="is fio installed"):
        fio.engine(Board())


def test_parsers_are_registered_with_their_captures():
    assert PARSERS["hil.measure.fio.parse"].data == "fio"
    assert PARSERS["hil.measure.fio.parse_engines"].data == "fio"


def test_mixed_workloads_are_refused_when_building_a_job():
    with pytest.raises(ValueError, match="one direction"):
        FioJob("randrw", "4K")


def _edit(name: str, change) -> tuple[str, dict[str, str]]:
    """A capture with its JSON changed by `change(document)` (a variation built from a real output)."""
    text, source = _capture(name)
    document = json.loads(text[text.index("{") :])
    change(document)
    return text[: text.index("{")] + json.dumps(document, indent=2), fio.asked(source["command"])["expected"]


def test_figures_of_another_job_than_the_one_asked_are_refused():
    # A randwrite 4K request handed sequential-read figures returned them (issue "numbers that cannot lie").
    text, _ = _capture("vlab-seq1m-q32t1-read")
    asked = fio.asked(_capture("vlab-rnd4k-q32t1-write")[1]["command"])["expected"]
    with pytest.raises(ParseError, match=r"another job than the one asked: rw=read \(asked randwrite\), bs=1M"):
        fio.parse(text, expected=asked)


@pytest.mark.parametrize("name", GOOD)
def test_every_capture_is_the_job_its_command_asked_for(name):
    text, source = _capture(name)
    assert fio.parse(text, **fio.asked(source["command"])).values["throughput"].value > 0


def test_a_run_shorter_than_asked_is_refused():
    def cut(document):
        document["jobs"][0]["job options"]["runtime"] = "30"  # asked for 30 s, ran 3 s

    text, asked = _edit("vlab-seq1m-q32t1-read", cut)
    with pytest.raises(ParseError, match="3001 ms of the 30000 ms asked"):
        fio.parse(text, expected=dict(asked, runtime="30"))


def test_bytes_per_io_must_be_the_block_size():
    def claim_4k(document):
        document["jobs"][0]["job options"]["bs"] = "4K"

    edited, asked = _edit("vlab-seq1m-q32t1-read", claim_4k)
    with pytest.raises(ParseError, match="bytes per I/O, but bs=4K"):
        fio.parse(edited, expected=dict(asked, bs="4K"))


@pytest.mark.parametrize("p99", [0, -5, 10**12])
def test_a_p99_outside_fios_own_min_and_max_is_refused(p99):
    def set_p99(document):
        document["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"] = p99

    text, asked = _edit("vlab-seq1m-q32t1-read", set_p99)
    with pytest.raises(ParseError, match="outside its own min"):
        fio.parse(text, expected=asked)


def test_io_bytes_may_count_the_ios_in_flight_when_the_ramp_ended_but_no_more():
    """A loaded board's real 1M write at iodepth 32: io_bytes holds 32 I/Os more than total_ios counts."""
    text, source = _capture("vlab-seq1m-q32t1-write-ramp-inflight")
    asked = fio.asked(source["command"])["expected"]
    assert fio.parse(text, expected=asked).values["throughput"].value > 0

    def one_more(document):
        document["jobs"][0]["write"]["io_bytes"] += 2**20

    edited, _ = _edit("vlab-seq1m-q32t1-write-ramp-inflight", one_more)
    with pytest.raises(ParseError, match="bytes per I/O, but bs=1M"):
        fio.parse(edited, expected=asked)
