"""boards.yaml edited as text: the band's values change where they stand, comments and other lines stay, and an
entry shared through a YAML anchor is left for a hand edit (hil.calibrate.edit)."""

from __future__ import annotations

import difflib

import yaml

from hil.calibrate.edit import MetricEdit, edit_inventory

INVENTORY = """\
pairs:
  # the pair's comment
  board-a:
    metrics:
      usb.msc.read:
        unit: MB/s
        min: 25   # the seed's floor
        max: 185
        source: >-
          seed figure,
          two lines
        params:
          bs=64K: {min: 17, max: 125}   # a comment after a flow mapping
      usb.msc.write: {unit: MB/s, min: 4, source: a floor}
      usb.hid.in:
        informative: true
        source: no band yet
      shared: &shared-band
        min: 1
  board-b:
    metrics:
      usb.msc.read: *shared-band
"""


def _changed(old: str, new: str) -> list[str]:
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_a_block_entry_changes_its_values_in_place_and_keeps_its_comments():
    edit = MetricEdit("usb.msc.read", "MB/s", {None: {"min": "30", "max": "240", "run_spread": "8%"}}, "calibrated")
    new = edit_inventory(INVENTORY, "board-a", [edit])
    assert edit.notes == []
    assert _changed(INVENTORY, new) == [
        "-        min: 25   # the seed's floor",
        "-        max: 185",
        "+        min: 30   # the seed's floor",
        "+        max: 240",
        "-          seed figure,",
        "-          two lines",
        "+          calibrated",
        "+        run_spread: 8%",
    ]
    entry = yaml.safe_load(new)["pairs"]["board-a"]["metrics"]["usb.msc.read"]
    assert (entry["min"], entry["max"], entry["run_spread"], entry["source"]) == (30, 240, "8%", "calibrated")
    assert entry["params"] == {"bs=64K": {"min": 17, "max": 125}}  # run_spread went before params, not into it


def test_a_parameter_override_and_a_flow_entry_take_their_keys_inside_the_braces():
    edits = [
        MetricEdit("usb.msc.read", "MB/s", {"bs=64K": {"min": "20", "max": "130", "run_spread": "5%"}}, "new"),
        MetricEdit("usb.msc.write", "MB/s", {None: {"min": "5", "run_spread": "3%"}}, "a: colon, and a comma"),
    ]
    new = edit_inventory(INVENTORY, "board-a", edits)
    assert "          bs=64K: {min: 20, max: 130, run_spread: 5%}   # a comment after a flow mapping" in new
    metrics = yaml.safe_load(new)["pairs"]["board-a"]["metrics"]
    assert metrics["usb.msc.write"] == {
        "unit": "MB/s", "min": 5, "source": "a: colon, and a comma", "run_spread": "3%"
    }  # fmt: skip
    assert metrics["usb.msc.read"]["source"] == "new"


def test_an_informative_metric_gets_a_band_in_its_place_and_a_new_metric_an_entry():
    edits = [
        MetricEdit("usb.hid.in", "B/s", {None: {"min": "900", "run_spread": "4%"}}, "from runs", ("informative",)),
        MetricEdit("usb.hid.out", "B/s", {None: {"min": "800", "run_spread": "2%"}}, "from runs too"),
    ]
    metrics = yaml.safe_load(edit_inventory(INVENTORY, "board-a", edits))["pairs"]["board-a"]["metrics"]
    assert metrics["usb.hid.in"] == {"min": 900, "source": "from runs", "run_spread": "4%"}
    assert metrics["usb.hid.out"] == {"unit": "B/s", "min": 800, "run_spread": "2%", "source": "from runs too"}
    assert metrics["shared"] == {"min": 1}


def test_an_entry_shared_through_an_anchor_is_left_alone_and_named():
    for pair, metric in (("board-a", "shared"), ("board-b", "usb.msc.read")):
        edit = MetricEdit(metric, "MB/s", {None: {"min": "2"}}, "x")
        assert edit_inventory(INVENTORY, pair, [edit]) == INVENTORY
        assert edit.notes == ["the entry is shared with another through a YAML anchor"]
