"""hil.lab.mtp: the umtprd.conf it writes (the responder itself runs in testcases/usb_device/test_mtp.py)."""

from __future__ import annotations

import pytest

from hil.lab.mtp import MtpResponder


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
