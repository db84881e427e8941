"""hil.measure.integrity run for real by a role on this PC (the commands a board runs): a directory stands in
for a mounted disk, files for the copies a transfer made. Dropping the page cache needs root, as on a board."""

from __future__ import annotations

import hashlib
import os
import re

import pytest

from hil.measure import integrity
from hil.verdict.errors import DataCorruption, MeasurementError

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="verifications drop the page cache: root only")


@pytest.mark.parametrize("block_size", ["4K", "102400"])  # seed 001's block does not divide a MiB
def test_a_file_written_through_a_filesystem_reads_back_intact_and_nothing_is_left(role, tmp_path, block_size):
    line = integrity.file_round_trip(role, str(tmp_path), size_mb=2, block_size=block_size)
    assert line == f"2 MiB of random data written to {tmp_path} (synced) and read back from the disk intact"
    assert list(tmp_path.iterdir()) == []


def test_copies_with_the_original_s_bytes_match_and_one_changed_byte_is_corrupted_data(role, tmp_path):
    original, good, bad = tmp_path / "original", tmp_path / "good", tmp_path / "bad"
    data = os.urandom(100_000)
    original.write_bytes(data)
    good.write_bytes(data)
    bad.write_bytes(data[:5000] + bytes([data[5000] ^ 1]) + data[5001:])
    line = integrity.same_content((role, str(original)), (role, str(good)))
    assert line.endswith(f"the same SHA-256 as {role.label}'s {original} ({hashlib.sha256(data).hexdigest()[:16]}...)")
    with pytest.raises(
        DataCorruption, match=re.escape(f"{role.label}'s {bad} is not a copy of {role.label}'s {original} (SHA-256 ")
    ):
        integrity.same_content((role, str(original)), (role, str(good)), (role, str(bad)))


def test_a_copy_that_is_missing_cannot_be_verified(role, tmp_path):
    (tmp_path / "original").write_bytes(b"x")
    with pytest.raises(MeasurementError, match=r"no SHA-256 of .*missing \(exit 1\)") as caught:
        integrity.same_content((role, str(tmp_path / "original")), (role, str(tmp_path / "missing")))
    assert "No such file" in caught.value.raw_output


def test_the_first_mib_of_a_file_hashes_as_python_hashes_it_and_a_shorter_file_is_refused(role, tmp_path):
    data = os.urandom(3 * 1024 * 1024)
    (tmp_path / "disk").write_bytes(data)
    assert integrity.sha256(role, str(tmp_path / "disk"), size_mb=2) == hashlib.sha256(data[: 2 << 20]).hexdigest()
    with pytest.raises(MeasurementError, match=r"dd copied 3145728 bytes of the 4194304 asked for"):
        integrity.sha256(role, str(tmp_path / "disk"), size_mb=4)


def test_where_the_first_byte_differs_and_how_many_do(role, tmp_path):
    (tmp_path / "a").write_bytes(bytes(8192))
    (tmp_path / "b").write_bytes(bytes(4096) + b"\xff" * 3 + bytes(4093))
    with pytest.raises(DataCorruption, match=r"^b: 3 bytes differ from what was written, the first at byte 4097$"):
        integrity.compare_files(role, str(tmp_path / "a"), str(tmp_path / "b"), "b", timeout=30)


def test_the_verification_is_a_fraction_of_the_transfer_at_most_sixteen_mib():
    assert [integrity.verify_mb(mb) for mb in (1, 8, 16, 128, 512)] == [1, 8, 16, 16, 16]
