"""A starved receiving socket on the virtual lab, loaded into a suite run with `-p`: while the test runs, the
board's `net.core.rmem_default` is 4096 bytes (one kernel for both ends of the USB link: every UDP socket that
sets no buffer of its own, iperf3's among them, gets it), so the receiving socket holds one or two datagrams
and drops the rest while its reader is away (a BSP that ships a small default does this on real boards). Not a
mock: the kernel really drops them and counts them as RcvbufErrors; hil's diagnosis must name the socket."""

from __future__ import annotations

import pytest

from hil.lab.board import shell

RMEM_DEFAULT = 4096
PATH = "/proc/sys/net/core/rmem_default"


@pytest.fixture(autouse=True)
def small_socket_buffers(pair):
    before = pair.host.run(shell.cmd("cat", PATH), timeout=30).strip()
    pair.host.run(shell.write(PATH, RMEM_DEFAULT), timeout=30)
    yield
    pair.host.run(shell.write(PATH, before), timeout=30)
