"""hil.lab.storage.local run for real by a role on this PC: a directory of this machine's own disk stands in
for a board's eMMC filesystem (local.dir); its facts are what df, stat and sysfs say."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hil.catalogue.storage import LocalSettings
from hil.errors import LabError
from hil.lab.storage import local


def _settings(**values: object) -> LocalSettings:
    defaults = {"role": "device", "device": "", "dir": "", "fs": "ext4", "module": "", "file_mb": 1}
    return LocalSettings(**{**defaults, **values})


def _df_source(path: str) -> str:
    return (
        subprocess.run(["df", "-P", path], capture_output=True, text=True, check=True).stdout.split("\n")[1].split()[0]
    )


def test_a_directory_on_a_disk_is_measured_where_it_is_and_described(role, tmp_path):
    source = _df_source(str(tmp_path))
    if not source.startswith("/dev/"):
        pytest.skip(f"{tmp_path} is on {source}, not a block device, on this machine")
    with local.prepared(role, _settings(dir=str(tmp_path))) as storage:
        assert storage.directory == str(tmp_path) and storage.file == f"{tmp_path}/hil-local.bin"
        assert storage.facts["local_storage"].startswith(f"{tmp_path} on {source} (")
        disk = storage.facts["block_queue"].split(":")[0]  # the whole disk of a partition: vda for /dev/vda1
        assert disk and Path(source).name.startswith(disk)
        (tmp_path / "hil-local.bin").write_bytes(b"x")
    assert not (tmp_path / "hil-local.bin").exists()  # the board's filesystem keeps nothing of hil's


def test_where_names_a_ram_filesystem_too(role):
    assert local.where(role, "/dev/shm").startswith("/dev/shm on ")


def test_storage_the_pair_does_not_name_is_an_error(role):
    with pytest.raises(LabError, match=r"set local\.device or local\.dir"), local.prepared(role, _settings()):
        pass


def test_a_directory_that_is_not_there_is_an_error(role, tmp_path):
    missing = tmp_path / "sdcard"
    with (
        pytest.raises(LabError, match=f"local.dir {missing} is not a writable directory"),
        local.prepared(role, _settings(dir=str(missing))),
    ):
        pass


def test_a_device_that_never_appears_is_an_error_naming_what_there_is(role):
    with pytest.raises(LabError, match=r"no block device /dev/mmcblk9 after 1 s \(there are: "):
        local.wait_for_node(role, "/dev/mmcblk9", timeout_s=1)
