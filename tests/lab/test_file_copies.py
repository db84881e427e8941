"""hil.measure.cpfile's copies, run for real by a role on this PC (the commands the board runs): a directory
stands in for the mounted USB disk. Dropping the page cache needs root, as on a board."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hil.measure import cpfile
from hil.verdict.errors import DataCorruption, MeasurementError

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="cp's copies drop the page cache: root only")
# Long enough to time (cpfile.MIN_SECONDS) on a fast PC disk: 128 MiB read back in 0.0974 s in a CI run
# (2026-11-25, 1.4 GB/s with the page cache dropped), so four times that.
SIZE_MB = 512


@pytest.mark.parametrize("direction", ["write", "read"])
def test_each_copy_is_timed_sized_and_the_last_verified(role, tmp_path, direction):
    board, disk = tmp_path / "board's dir", tmp_path / "disk"
    disk.mkdir()
    with cpfile.copies(role, direction, disk_dir=str(disk), board_dir=str(board), size_mb=SIZE_MB) as copies:
        source, copy = Path(copies.source), Path(copies.copy)
        assert (source.parent, copy.parent) == ((board, disk) if direction == "write" else (disk, board))
        samples = [copies.sample(), copies.sample()]
        assert copies.verify() == f"{copy} read back from its medium holds {source}'s bytes"
        assert copy.read_bytes() == source.read_bytes() != b"\0" * SIZE_MB * 1024 * 1024  # random data
        assert copies.facts["board_dir"].startswith(str(board) + " (")
        assert copies.facts["file"] == f"{SIZE_MB} MiB of random data"
    for sample in samples:
        assert sample.details["bytes"] == SIZE_MB * 1024 * 1024
        seconds = sample.details["cp_s"] + sample.details["sync_s"]
        assert sample.value == pytest.approx(SIZE_MB * 1024 * 1024 / seconds / 1e6)
    assert list(board.iterdir()) == []  # the board's RAM is given back


def test_a_copy_that_differs_from_its_source_is_corrupted_data(role, tmp_path):
    source, copy = tmp_path / "source", tmp_path / "copy"
    source.write_bytes(b"a" * 4096)
    copy.write_bytes(b"a" * 4095 + b"b")
    with pytest.raises(
        DataCorruption, match=r"a copy of .*: corrupted: 1 bytes differ .* the first at byte 4096"
    ) as caught:
        cpfile.compare(role, str(source), str(copy), timeout=30)
    assert "differ" in caught.value.raw_output


def test_a_copy_cut_short_cannot_be_verified_and_is_an_error(role, tmp_path):
    source, copy = tmp_path / "source", tmp_path / "copy"
    source.write_bytes(b"a" * 4096)
    copy.write_bytes(b"a" * 1000)
    with pytest.raises(MeasurementError, match=r"could not be compared \(cmp: EOF on .*copy") as caught:
        cpfile.compare(role, str(source), str(copy), timeout=30)
    assert "EOF" in caught.value.raw_output


def test_a_copy_that_fails_is_an_error_naming_cp_s_complaint(role, tmp_path):
    with pytest.raises(MeasurementError, match=r"the copy failed \(exit 1\): cp: cannot stat"):
        cpfile.run(role, str(tmp_path / "missing"), str(tmp_path / "copy"), expected_bytes=1, timeout=30)


def test_an_unknown_direction_is_refused(role, tmp_path):
    with (
        pytest.raises(ValueError, match="neither read nor write"),
        cpfile.copies(role, "sideways", disk_dir=str(tmp_path), board_dir=str(tmp_path), size_mb=1),
    ):
        pass
