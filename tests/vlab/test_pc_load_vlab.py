"""The lab PC's load guard with two runs on one PC (two pytest processes, two Jenkins branches, two xdist
workers): the virtual board another run started is foreign load for this run, never "the lab's own" (issue 43:
two virtual pairs measured at once, vlab-hs read FAILed at 20.3 MB/s and blamed the board, because the other
run's emulator was counted as the lab's). The lab services' boards keep the lab's emulator name."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hil.measure import pcload
from hil.vlab.power import qemu_command

# Another run: a process outside this one's tree (`setsid -f`: as a second pytest run started from another shell
# or by Jenkins) that powers the virtual board on, as that run's driver does; it writes its QEMU's pid to argv[1].
ANOTHER_RUN = """
import pathlib, sys, time
from hil.vlab.board import environment

with environment() as env:
    qemu = env.get_target("vboard").get_driver("VlabQEMUDriver")
    qemu.on()
    pathlib.Path(sys.argv[1]).write_text(str(qemu._child.pid))
    time.sleep(120)
"""


def _ancestors(pid: int) -> list[int]:
    found = []
    while pid > 1:
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        found.append(pid)
    return found


def _ticks(pid: int) -> int:
    return sum(int(value) for value in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13])


def test_another_runs_virtual_board_is_foreign_load_and_the_lab_services_boards_are_the_labs(
    tmp_path, vlab_subprocess_env
):
    pidfile = tmp_path / "qemu.pid"
    other = ["setsid", "-f", sys.executable, "-c", ANOTHER_RUN, str(pidfile)]
    subprocess.run(other, env=vlab_subprocess_env, check=True)
    deadline = time.monotonic() + 120
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.2)
    qemu = int(pidfile.read_text())
    ancestors = _ancestors(qemu)
    try:
        assert os.getpid() not in ancestors  # not this run's: another tree
        time.sleep(1)  # booting: its vCPUs busy
        before, its_before = pcload.snapshot(), _ticks(qemu)
        time.sleep(3)
        its_after, after = _ticks(qemu), pcload.snapshot()
    finally:
        os.killpg(ancestors[0], signal.SIGTERM)  # the other run (its session leader): its QEMU dies with it
    foreign, emulators = pcload.shares(before, after)
    its_share = 100 * (its_after - its_before) / (after[1] - before[1])
    assert its_share > 10, its_share  # a booting board keeps at least a core's fifth busy
    assert emulators == 0 and foreign >= its_share - 1.5, (foreign, emulators, its_share)
    # The boards of `hil lab`'s board service run outside any run's tree, for the runs on its places: the lab's.
    command = qemu_command("vboard-1", Path("/image"), Path("/console.sock"))
    assert command[command.index("-name") + 1] == f"vboard-1,process={pcload.EMULATOR_PREFIX}-vboard-1"
