"""hil.facts: the typed facts every result carries, read from and written back to results.json's flat dict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hil.facts import BoardIdentity, Facts
from hil.verdict.result import MetricResult

RESULTS = Path(__file__).resolve().parent / "data" / "results"


def _stored(name: str) -> list[dict]:
    return json.loads((RESULTS / name).read_text())["results"]


@pytest.mark.parametrize("name", ["vlab-build-msc.json", "before-observed-msc.json"])
def test_results_json_written_before_reads_into_typed_fields_and_writes_back_unchanged(name):
    for stored in _stored(name):
        facts = MetricResult.from_dict(stored).facts
        assert facts.link_speed == stored["facts"]["link_speed"] and facts.kernel == stored["facts"]["kernel"]
        assert facts.band_source.startswith("vlab calibration") and facts.notes["tool"] == "dd (coreutils) 9.1"
        assert facts.board("vboard").boot == stored["facts"]["boot.vboard"]
        assert facts.board("vboard").tuning.startswith("applied: /proc/sys/net/core/rmem_max")
        assert facts.to_dict() == stored["facts"]
        assert MetricResult.from_dict(stored).to_dict()["facts"] == stored["facts"]


def test_the_link_the_reports_show_is_the_negotiated_one_else_the_declared_one():
    assert Facts(link="USB high speed").link_seen == "USB high speed"
    assert Facts(link="USB high speed", link_speed="12 Mb/s (full)").link_seen == "12 Mb/s (full)"
    assert Facts().link_seen is None


def test_a_note_may_not_carry_a_typed_fact():
    facts = Facts()
    facts.note({"tool": "dd 9.1", "pyusb.tool": "pyusb 1.3.1"})
    with pytest.raises(ValueError, match=r"link_speed, kernel\.vboard: typed facts"):
        facts.note({"link_speed": "480 Mb/s", "kernel.vboard": "6.1", "fio": "3.33"})
    assert facts.notes == {"tool": "dd 9.1", "pyusb.tool": "pyusb 1.3.1"}  # nothing of a refused note


def test_the_board_identity_is_a_flat_dict_of_strings_of_what_is_known():
    facts = Facts(lab="labgrid environment env.yaml on this PC (pc)", link="USB high speed", pc_load="median 3%")
    board = facts.board("vboard")
    board.arch, board.kernel, board.boot = "x86_64", "6.1.0-56-amd64", "6.0 s to shell"
    board.identity = BoardIdentity(model="Standard PC (Q35 + ICH9, 2009)", mac="52:54:00:12:34:56", place="vb-1")
    assert facts.identity() == {
        "lab": "labgrid environment env.yaml on this PC (pc)",
        "arch.vboard": "x86_64",
        "kernel.vboard": "6.1.0-56-amd64",
        "model.vboard": "Standard PC (Q35 + ICH9, 2009)",
        "mac.vboard": "52:54:00:12:34:56",
        "place.vboard": "vb-1",
    }  # no serial: the board gave none, and none is made up
    assert Facts.from_dict(facts.to_dict()) == facts
