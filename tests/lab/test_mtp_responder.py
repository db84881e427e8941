"""hil.lab.usb_gadget.mtp: the umtprd.conf it writes and how it runs umtprd under ffs_superspeed (the responder
itself runs in testcases/usb_device/test_mtp.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.errors import LabError
from hil.inventory.loader import load_inventory
from hil.lab.usb_gadget.mtp import MtpResponder


def _settings(text: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in text.splitlines())


def test_the_config_names_the_functionfs_endpoints_and_the_storage():
    config = _settings(MtpResponder(instance="mtp", storage="/tmp/store").config())
    assert config["usb_functionfs_mode"] == "0x1"
    assert config["usb_dev_path"] == '"/dev/ffs-mtp/ep0"' and config["usb_epint_path"] == '"/dev/ffs-mtp/ep3"'
    assert config["storage"] == '"/tmp/store" "hil" "rw"'
    assert config["no_inotify"] == "0x1"  # with inotify, umtprd 1.3.10 stalls after SendObject on dummy_hcd
    assert "usb_max_rd_buffer_size" not in config  # no buffer given: umtprd's own default


@pytest.mark.parametrize(("buffer", "cache"), [(16 * 1024, 0x100000), (64 * 1024, 0x100000), (1024 * 1024, 0x200000)])
def test_the_buffer_length_sets_both_directions_and_a_larger_read_cache(buffer, cache):
    config = _settings(MtpResponder(buffer_bytes=buffer).config())
    assert int(config["usb_max_rd_buffer_size"], 16) == int(config["usb_max_wr_buffer_size"], 16) == buffer
    # umtprd.conf: the read cache is a power of two and larger than the USB read buffer.
    assert int(config["read_buffer_cache_size"], 16) == cache > buffer


@pytest.mark.parametrize("buffer", [0, 1000, -512])
def test_a_buffer_umtprd_cannot_use_is_refused(buffer):
    with pytest.raises(ValueError, match="multiple of 512"):
        MtpResponder(buffer_bytes=buffer).config()


def test_a_storage_path_with_a_quote_is_refused_not_pasted():
    with pytest.raises(ValueError, match="cannot hold"):
        MtpResponder(storage='/tmp/a"b').config()


@pytest.mark.parametrize(("speed", "size"), [("full", "0x40"), ("high", "0x200"), ("super", "0x400")])
def test_the_packet_size_is_the_bulk_maxpacket_of_the_link_speed(speed, size):
    # umtprd sends a zero-length packet after a transfer that fills whole packets of this size.
    assert _settings(MtpResponder(speed=speed).config())["usb_max_packet_size"] == size


def test_an_unknown_speed_is_refused():
    with pytest.raises(ValueError, match="'super-plus' speed: known speeds are full, high, super"):
        MtpResponder(speed="super-plus")


def test_only_super_speed_or_a_descriptor_dump_runs_umtprd_under_the_shim():
    assert MtpResponder(speed="super").uses_shim
    assert not MtpResponder(speed="high").uses_shim
    assert MtpResponder(speed="high", descriptor_dump="/tmp/blob").uses_shim


def test_a_board_without_the_shim_is_an_error_naming_it(role, tmp_path):
    missing = tmp_path / "no" / "ffs_superspeed.so"
    with pytest.raises(LabError, match=rf"{missing} is missing: umtprd needs it for SuperSpeed descriptors"):
        MtpResponder(speed="super", superspeed_shim=str(missing))._shim_environment(role)


def test_the_shim_and_the_dump_go_into_umtprds_environment(role, tmp_path):
    shim = tmp_path / "ffs superspeed.so"  # a space: the value is quoted where the command is built
    shim.write_bytes(b"")
    responder = MtpResponder(speed="super", superspeed_shim=str(shim), descriptor_dump="/tmp/d.bin")
    assert responder._shim_environment(role) == [f"LD_PRELOAD={shim}", "HIL_FFS_DUMP=/tmp/d.bin"]


def test_both_virtual_pairs_gate_mtp():
    """docs/families/usb-gadget.md: both virtual pairs run MTP, super speed included, with bands (not only recorded)."""
    boards = load_inventory(Path(__file__).resolve().parents[2] / "boards.yaml").boards
    for name in ("vlab-hs", "vlab-ss"):
        for metric in ("usb.mtp.read", "usb.mtp.write"):
            entry = boards[name].config.metrics[metric]
            assert entry.has_band and not entry.informative, f"{name} {metric}"
