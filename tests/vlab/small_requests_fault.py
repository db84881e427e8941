"""A slowed block layer on the virtual lab's USB host, loaded into a suite run with `-p`: while the test runs,
the host keeps every SCSI disk's `max_sectors_kb` at 32, so a 1M dd becomes 32 requests of 32 KiB (a queue
limit a BSP leaves low, or a controller driver that caps it, does this on real boards). Not a mock: the
kernel really splits the requests; hil's diagnosis must name the block layer."""

from __future__ import annotations

import pytest

from hil.lab.board import shell

MAX_SECTORS_KB = 32
CAP = (
    'while :; do for q in /sys/block/sd*/queue/max_sectors_kb; do [ -w "$q" ] && '
    f'[ "$(cat "$q")" != {MAX_SECTORS_KB} ] && echo {MAX_SECTORS_KB} > "$q"; done; sleep 0.1; done'
)


@pytest.fixture(autouse=True)
def small_block_requests(pair):
    with pair.host.background(shell.cmd("sh", "-c", CAP), name="max_sectors_kb fault"):
        yield
