"""hil.measure.pcload on this PC, with real CPU-bound processes: one outside hil's tree, one inside it."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hil.bench.board import BenchBoard
from hil.measure import pcload
from hil.verdict.measurement import Observed
from hil.verdict.result import Sample
from hil.vlab.power import qemu_command

SPIN = "import time\nend = time.monotonic() + 3\nwhile time.monotonic() < end: pass\n"


def _share_while(start) -> float:
    process = start()
    try:
        time.sleep(0.5)
        before = pcload.snapshot()
        time.sleep(2)
        share = pcload.foreign_percent(before, pcload.snapshot())
    finally:
        if process is not None:
            process.kill()
            process.wait()
    assert share is not None
    return share


def test_a_busy_process_outside_hil_counts_and_one_of_hils_own_does_not():
    one_cpu = 100 / (os.cpu_count() or 1)
    # setsid -f forks: the spinning process is init's child, not this process's (another job on the lab PC).
    own = _share_while(lambda: subprocess.Popen([sys.executable, "-c", SPIN]))  # hil's own (a QEMU, say)
    foreign = _share_while(lambda: subprocess.run(["setsid", "-f", sys.executable, "-c", SPIN], check=True) and None)
    time.sleep(1)  # the foreign one spins 3 s in all: gone before the next test
    assert foreign >= 0.7 * one_cpu, foreign
    assert own <= foreign - 0.5 * one_cpu, (own, foreign)


def test_the_share_is_stored_with_each_sample_and_summarised():
    def a_run() -> Sample:
        time.sleep(0.2)  # a sample that takes no clock tick has no share
        return Sample(value=1.0, started=time.time(), duration_s=0.2)

    sample = pcload.with_pc_load(a_run)()
    assert sample.observed.pc_load is not None and 0 <= sample.observed.pc_load <= 100
    busy = [Sample(1.0, 0.0, 0.1, observed=Observed(pc_load=share)) for share in (40.0, 60.0, 10.0)]
    line, is_busy = pcload.summary(busy)
    assert line.startswith("median 40%, max 60%") and is_busy
    assert pcload.summary([Sample(1.0, 0.0, 0.1)]) is None


def test_the_inventorys_bound_decides_when_the_pc_was_busy():
    samples = [Sample(1.0, 0.0, 0.1, observed=Observed(pc_load=share)) for share in (12.0, 15.0, 20.0)]
    assert pcload.summary(samples)[1] is False  # the default: more than 25% of the PC's CPUs
    assert pcload.summary(samples, 0.10)[1] is True  # boards.yaml's pc_load_max: 10%


def _ticks(pid: int) -> int:
    return sum(int(value) for value in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13])


def test_a_board_emulator_of_the_lab_outside_hils_tree_is_named_not_counted(tmp_path):
    """A process named as hil names the emulators it starts (the rehearsal bench's QEMUs run under its
    daemon, not under pytest): its CPU time is the lab's own, stored apart from the foreign share. Checked
    against the process's own ticks, not a figure: how much CPU it gets depends on the PC's other work."""
    emulator = tmp_path / f"{pcload.EMULATOR_PREFIX}-spin"  # comm is the name exec was given
    emulator.symlink_to(sys.executable)
    pidfile = tmp_path / "pid"
    script = f'echo $$ > {shlex.quote(str(pidfile))}; exec {shlex.quote(str(emulator))} -c "$0"'
    subprocess.run(["setsid", "-f", "sh", "-c", script, SPIN], check=True)
    while not pidfile.exists() or not pidfile.read_text().strip():
        time.sleep(0.05)
    pid = int(pidfile.read_text())
    time.sleep(0.5)
    before, its_before = pcload.snapshot(), _ticks(pid)
    time.sleep(2)
    its_after, after = _ticks(pid), pcload.snapshot()
    foreign, emulators = pcload.shares(before, after)
    total = after[1] - before[1]
    time.sleep(1)
    assert emulators > 0
    assert emulators == pytest.approx(100 * (its_after - its_before) / total, abs=1.5), (foreign, emulators)
    line, _ = pcload.summary([Sample(1.0, 0.0, 0.1, observed=Observed(pc_load=foreign, pc_emulators=emulators))])
    assert "the lab's own board emulators a median" in line


def test_the_lab_services_name_their_emulators_as_the_lab_s_and_a_run_s_own_board_is_not(tmp_path):
    """docs/virtual-lab.md's rule: `hil lab`'s board service and the rehearsal bench name each QEMU they start
    hil-emu-<board>, which the load guard counts as the lab's own emulators (the board a run starts itself is not:
    tests/vlab/test_pc_load_vlab.py)."""
    lab = qemu_command("vlab-1", tmp_path / "image", tmp_path / "console")
    bench = BenchBoard("evb-1", tmp_path, tmp_path / "sd.img", tmp_path / "u-boot.bin", None).command()
    for command, name in ((lab, "vlab-1"), (bench, "evb-1")):
        assert command[command.index("-name") + 1] == f"{name},process={pcload.EMULATOR_PREFIX}-{name}"
