"""Band entries that would stop gating without anyone noticing are refused at load, naming the key (issue:
numbers that cannot lie, 2026-11-24: each of these was accepted silently or crashed with a traceback)."""

from __future__ import annotations

import pytest

from hil.errors import InventoryError
from hil.inventory.loader import load_inventory

PAIR = """\
pairs:
  p:
    env: hil:vlab/env.yaml
    vlab: true
    roles: {{host: {{target: vboard}}, device: {{target: vboard}}}}
    link: {{type: usb, speed: high, udc: dummy_udc.0}}
    metrics:
      {metric}: {body}
"""


@pytest.mark.parametrize(
    ("metric", "body", "problem"),
    [
        ("usb.msc.read", "{unit: MB/s, max: 500}", "usb.msc.read: usb.msc.read has a maximum and no minimum"),
        ("usb.net.udp.loss", "{max: 150}", "usb.net.udp.loss: a band edge above 100 % for a percentage"),
        ("usb.msc.read", "{unit: MB/s, min: true}", "usb.msc.read/min: a band edge is a number, not True (bool)"),
        ("usb.msc.read", "{unit: MB/s, min: '10'}", "usb.msc.read/min: a band edge is a number, not '10' (str)"),
        (
            "usb.msc.read",
            "{unit: MB/s, nominal: 100, tolerance: 5 ms}",
            "usb.msc.read/tolerance: cannot convert 'ms' (time) to 'MB/s' (data rate)",
        ),
        ("usb.msc.read", "{unit: MB/s, min: 10, max_cv: 100%}", "usb.msc.read/max_cv: max_cv 100% gates no spread"),
    ],
    ids=[
        "max only on a rate",
        "loss above 100%",
        "min: true",
        "quoted number",
        "tolerance in ms on MB/s",
        "max_cv 100%",
    ],
)
def test_a_band_that_cannot_gate_is_an_inventory_error(tmp_path, metric, body, problem):
    path = tmp_path / "boards.yaml"
    path.write_text(PAIR.format(metric=metric, body=body))
    with pytest.raises(InventoryError, match="line 8: pairs/p/metrics/") as caught:
        load_inventory(path)
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    "where", ["{unit: MB/s, min: 10, max: 500, params: {bs=1M: {max: null}}}", "{min: 10, max: ~}"]
)
def test_a_null_edge_is_refused_for_an_override_keeps_what_it_does_not_give(tmp_path, where):
    """`params: {bs=1M: {max: null}}` read as "no maximum for 1M" kept the metric's 500 without a word (issue 40)."""
    path = tmp_path / "boards.yaml"
    path.write_text(PAIR.format(metric="usb.msc.read", body=where))
    with pytest.raises(InventoryError, match="max: null sets nothing; leave the key out") as caught:
        load_inventory(path)
    assert "line 8: pairs/p/metrics/usb.msc.read" in str(caught.value)


def test_a_latency_may_be_gated_from_above_alone(tmp_path):
    path = tmp_path / "boards.yaml"
    path.write_text(PAIR.format(metric="usb.net.udp.jitter", body="{unit: ms, max: 4}"))
    assert load_inventory(path).boards["p"]


EMULATED = PAIR.replace("udc: dummy_udc.0}}", "udc: dummy_udc.0, emulated: true}}")


def test_a_rate_on_an_emulated_link_needs_a_maximum(tmp_path):
    # No physical ceiling is enforced on an emulated link: fio on tmpfs (4.19 GB/s) passed the virtual NVMe
    # pair's floor-only band (issue "numbers that cannot lie").
    path = tmp_path / "boards.yaml"
    path.write_text(EMULATED.format(metric="usb.msc.read", body="{unit: MB/s, min: 20}"))
    with pytest.raises(InventoryError, match=r"usb\.msc\.read on an emulated link needs a maximum"):
        load_inventory(path)
    path.write_text(EMULATED.format(metric="usb.msc.read", body="{unit: MB/s, min: 20, max: 200}"))
    assert load_inventory(path).boards["p"]
    path.write_text(PAIR.format(metric="usb.msc.read", body="{unit: MB/s, min: 20}"))  # a real link: its ceiling
    assert load_inventory(path).boards["p"]


@pytest.mark.parametrize(
    ("gated", "companion"),
    [("usb.uvc.fps", "usb.uvc.corrupt"), ("usb.net.udp.throughput", "usb.net.udp.loss")],
)
def test_a_figure_is_gated_only_with_the_companion_that_decides_its_validity(tmp_path, gated, companion):
    path = tmp_path / "boards.yaml"
    alone = PAIR.format(metric=gated, body="{min: 10}")
    path.write_text(alone)
    with pytest.raises(InventoryError, match=f"{gated} is gated, so {companion} must be too"):
        load_inventory(path)
    path.write_text(alone + f"      {companion}: {{informative: true}}\n")
    with pytest.raises(InventoryError, match=f"so {companion} must be too"):
        load_inventory(path)
    path.write_text(alone + f"      {companion}: {{max: 0}}\n")
    assert load_inventory(path).boards["p"]


@pytest.mark.parametrize("text", ["'yes'", "'true'", "1", "'1'"])
def test_a_yes_or_no_key_takes_true_or_false_only(tmp_path, text):
    # `emulated: 'yes'` (a quoted string) loaded as True; only YAML's true and false are booleans.
    path = tmp_path / "boards.yaml"
    path.write_text(
        EMULATED.replace("emulated: true", f"emulated: {text}").format(
            metric="usb.msc.read", body="{unit: MB/s, min: 20, max: 200}"
        )
    )
    with pytest.raises(InventoryError, match="link/emulated: Input should be a valid boolean"):
        load_inventory(path)


def test_a_floor_above_what_the_link_can_carry_is_refused(tmp_path):
    # 40 MB/s meant as Mbit/s on a USB 2.0 link: 320 Mbit/s is fine, 60 MB/s is above the bulk bound.
    path = tmp_path / "boards.yaml"
    path.write_text(PAIR.format(metric="usb.msc.read", body="{unit: MB/s, min: 60}"))
    with pytest.raises(InventoryError, match=r"floor 60 MB/s is above the link's ceiling 53\.25 MB/s"):
        load_inventory(path)
    path.write_text(PAIR.format(metric="usb.msc.read", body="{unit: Mbit/s, min: 60}"))
    assert load_inventory(path).boards["p"]
    path.write_text(EMULATED.format(metric="usb.msc.read", body="{unit: MB/s, min: 60, max: 600}"))
    assert load_inventory(path).boards["p"]  # dummy_hcd has no bus: no ceiling is enforced


def test_a_params_override_with_a_floor_above_the_link_is_refused(tmp_path):
    # The metric's own band fits USB 2.0; the override for one block size asks 60 MB/s of a 53 MB/s bus.
    path = tmp_path / "boards.yaml"
    body = "{unit: MB/s, min: 20, max: 100, params: {bs=64K: {min: 60}}}"
    path.write_text(PAIR.format(metric="usb.msc.read", body=body))
    with pytest.raises(InventoryError, match=r"params/bs=64K.*floor 60 MB/s is above the link's ceiling 53\.25"):
        load_inventory(path)
    path.write_text(PAIR.format(metric="usb.msc.read", body=body.replace("min: 60", "min: 30")))
    assert load_inventory(path).boards["p"]


def test_a_frame_rate_the_isochronous_setting_cannot_carry_is_refused(tmp_path):
    # 1 KiB per microframe carries 13.33 YUYV 640x480 frames a second (seed 000 table 3-3 measured 12):
    # a floor of 20 fps for that stream can never pass; on bulk it can.
    path = tmp_path / "boards.yaml"
    body = (
        "{{min: 10, max: 100, params: {{'stream=yuyv-640x480,transfer={transfer}': {{min: 20}}}}}}\n"
        "      usb.uvc.corrupt: {{max: 0}}"
    )
    path.write_text(PAIR.format(metric="usb.uvc.fps", body=body.format(transfer="iso1024")))
    with pytest.raises(InventoryError, match=r"floor 20 fps is above the link's ceiling 13\.33 fps"):
        load_inventory(path)
    path.write_text(PAIR.format(metric="usb.uvc.fps", body=body.format(transfer="bulk")))
    assert load_inventory(path).boards["p"]
