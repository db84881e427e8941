"""The virtual board's lab clock (hil.vlab.qemu, boards.yaml `clock`), without starting QEMU: the command line
each clock powers on with, and a board on the other clock powered off before the next pair's test."""

from __future__ import annotations

import pytest
from labgrid import Environment
from labgrid.driver.qemudriver import QEMUDriver

from hil.errors import LabError
from hil.lab.board.provision import use_clock
from hil.vlab import ENV_FILE
from hil.vlab.qemu import VlabQEMUDriver

MADE = ["qemu-system-x86_64", "-kernel", "vmlinuz", "-append", "console=ttyS0", "-serial", "chardev:serialsocket"]


@pytest.fixture
def board(tmp_path, monkeypatch):
    monkeypatch.setenv("LG_HIL_VLAB_IMAGE", str(tmp_path))
    env = Environment(config_file=str(ENV_FILE))
    started: list[list[str]] = []
    monkeypatch.setattr(QEMUDriver, "on", lambda self: started.append(list(self._cmd)))
    qemu = env.get_target("vboard").get_driver(VlabQEMUDriver, activate=False)
    qemu._cmd = list(MADE)  # what activation makes of env.yaml (no accelerator, no vCPU count: the clock's)
    yield qemu, started
    env.cleanup()


def test_each_clock_powers_on_with_its_accelerator_vcpus_and_kernel_arguments(board):
    qemu, started = board
    assert qemu.clock == "real"  # env.yaml's default: a board outside a pair, a real-clock pair
    qemu.on()
    assert started[-1] == [*MADE, "-accel", "tcg,thread=multi", "-smp", "2"]
    qemu.use_clock("virtual")
    qemu.on()
    assert started[-1][:3] == MADE[:3] and started[-1][3:5] == ["-append", "console=ttyS0 nokaslr norandmaps"]
    assert started[-1][-6:] == ["-accel", "tcg,thread=single", "-smp", "1", "-icount", "shift=3,sleep=off"]
    assert qemu._cmd == MADE  # the clock is applied per power-on, never accumulated
    assert qemu.idle_time_warps
    qemu.use_clock("virtual", 1000)  # boards.yaml virtual_mips: one instruction per ns of the guest's clock
    qemu.on()
    assert started[-1][-2:] == ["-icount", "shift=0,sleep=off"]


def test_a_board_on_the_other_clock_is_powered_off_first_and_an_unknown_clock_refused(board, monkeypatch):
    qemu, _ = board
    powered_off = []

    def transition(strategy: object, status: str) -> None:
        powered_off.append(status)
        qemu.status = 0

    monkeypatch.setattr(type(qemu.target.get_strategy()), "transition", transition)
    assert not use_clock(qemu.target, "real")  # already on it: nothing happens
    qemu.status = 1  # running
    assert use_clock(qemu.target, "virtual") and powered_off == ["off"] and qemu.clock == "virtual"
    qemu.status = 1
    with pytest.raises(LabError, match="runs on the virtual clock: power it off before a change"):
        qemu.use_clock("real")
    with pytest.raises(LabError, match="runs on the virtual clock: power it off before a change"):
        qemu.use_clock("virtual", 1000)  # another speed is another clock
    assert use_clock(qemu.target, "virtual", 1000) and powered_off == ["off", "off"] and qemu.virtual_mips == 1000
    qemu.status = 1
    assert use_clock(qemu.target, "virtual", 1000, suspends=True) and powered_off == ["off"] * 3 and qemu.suspends
    qemu.status = 1
    with pytest.raises(LabError, match="runs on the virtual clock, booted to wake from RAM: power it off"):
        qemu.use_clock("virtual", 1000)  # a test that does not suspend it boots it the quick way
    with pytest.raises(LabError, match="no clock 'virtual' at 300 MIPS"):
        qemu.use_clock("virtual", 300)
    with pytest.raises(LabError, match="no clock 'fast'"):
        qemu.use_clock("fast")
