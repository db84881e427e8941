"""A fault in the virtual lab's mass-storage data path, loaded into a suite run with `-p`: while the test runs,
the board keeps overwriting 8 bytes of the gadget's backing file, under the host that writes and reads the
disk through the gadget (a flash translation layer or a driver that loses writes does this on real boards).
The timed dd runs do not notice; hil's verification must. Not a mock: the bytes really change on the board."""

from __future__ import annotations

import dataclasses

import pytest

from hil.lab.board import shell
from hil.lab.usb_gadget.gadget import MassStorage

BACKING_FILE = {field.name: field.default for field in dataclasses.fields(MassStorage)}["backing_file"]
OFFSET = 4096  # inside the first MiB the verification writes
# 8 bytes of 0xff: random data holds them at that offset with a chance of 2^-64.
OVERWRITE = (
    f"while :; do if [ -f {shell.quote(BACKING_FILE)} ]; then printf '\\377\\377\\377\\377\\377\\377\\377\\377' "
    f"| dd of={shell.quote(BACKING_FILE)} bs=8 seek={OFFSET // 8} conv=notrunc 2>/dev/null; fi; sleep 0.05; done"
)


@pytest.fixture(autouse=True)
def backing_file_changed_under_the_host(pair):
    with pair.device.background(shell.cmd("sh", "-c", OVERWRITE), name="backing-file fault"):
        yield
