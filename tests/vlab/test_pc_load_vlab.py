"""The lab PC's load guard with two runs on one PC (two pytest processes, two Jenkins branches, two xdist
workers): the virtual board another run started is foreign load for this run, never "the lab's own" (issue 43:
two virtual pairs measured at once, vlab-hs read FAILed at 20.3 MB/s and blamed the board, because the other
run's emulator was counted as the lab's). The lab services' boards keep the lab's emulator name."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from hil.measure import pcload
from hil.vlab.power import qemu_command

# Another run: a process of its own that powers the virtual board on, as a second pytest run's driver does.
ANOTHER_RUN = """
import time
from hil.vlab.board import environment

with environment() as env:
    qemu = env.get_target("vboard").get_driver("VlabQEMUDriver")
    qemu.on()
    print(qemu._child.pid, flush=True)
    time.sleep(600)
"""


def _ticks(pid: int) -> int:
    return sum(int(value) for value in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13])


def test_another_runs_virtual_board_is_foreign_load_and_the_lab_services_boards_are_the_labs(vlab_subprocess_env):
    other = subprocess.Popen(
        [sys.executable, "-c", ANOTHER_RUN], env=vlab_subprocess_env, stdout=subprocess.PIPE, text=True
    )
    try:
        qemu = int(other.stdout.readline())
        time.sleep(1)  # booting: its vCPUs busy
        before, its_before = pcload.snapshot(), _ticks(qemu)
        time.sleep(3)
        its_after, after = _ticks(qemu), pcload.snapshot()
    finally:
        other.terminate()
        other.wait(timeout=60)
    foreign, emulators = pcload.shares(before, after)
    its_share = 100 * (its_after - its_before) / (after[1] - before[1])
    assert its_share > 10, its_share  # a booting board keeps at least a core's fifth busy
    assert emulators == 0 and foreign >= its_share - 1.5, (foreign, emulators, its_share)
    # The boards of `hil lab`'s board service run outside any run's tree, for the runs on its places: the lab's.
    command = qemu_command("vboard-1", Path("/image"), Path("/console.sock"))
    assert command[command.index("-name") + 1] == f"vboard-1,process={pcload.EMULATOR_PREFIX}-vboard-1"
