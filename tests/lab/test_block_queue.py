"""hil.lab.storage.queue run for real by a role on this PC: the facts it records are what sysfs says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hil.errors import LabError
from hil.lab.storage import queue

# A whole disk of this machine with a /dev node (a virtual disk, a loop device): every Linux has one.
DISKS = sorted(p.name for p in Path("/sys/block").iterdir() if Path("/dev", p.name).exists())


@pytest.mark.skipif(not DISKS, reason="no block device with a /dev node on this machine")
def test_the_queue_facts_are_what_sysfs_holds_for_the_disk(role):
    disk = DISKS[0]
    found = queue.read(role, f"/dev/{disk}")
    assert found.disk == disk
    sysfs = Path("/sys/block", disk, "queue")
    for key in ("max_sectors_kb", "max_hw_sectors_kb", "rotational", "read_ahead_kb"):
        assert found.values[key] == (sysfs / key).read_text().strip()
    line = found.describe()
    assert line.startswith(f"{disk}: scheduler ")
    assert f"max_sectors_kb {(sysfs / 'max_sectors_kb').read_text().strip()}" in line
    # sysfs lists every scheduler and brackets the active one; the fact names only the active one.
    active = re.search(r"\[(.+?)\]", (sysfs / "scheduler").read_text())
    assert found.scheduler == (active[1] if active else None)


def test_a_node_that_is_no_block_device_is_an_error_with_the_output(role, tmp_path):
    with pytest.raises(LabError, match=r"cannot read the block queue of .*no block queue for"):
        queue.read(role, str(tmp_path / "sdz"))
