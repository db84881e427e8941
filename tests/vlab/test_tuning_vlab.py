"""The tuning profile on the virtual board: real /proc/sys and CPU hotplug, no cpufreq (QEMU TCG)."""

from __future__ import annotations

from hil.inventory.tuning import TuningConfig
from hil.lab.board import shell, tuning

BACKLOG = "/proc/sys/net/core/netdev_max_backlog"
CPU1 = "/sys/devices/system/cpu/cpu1/online"


def test_a_profile_is_applied_and_restored_on_the_virtual_board(vboard):
    before = vboard.read(BACKLOG)
    vboard.run(shell.write(CPU1, 0))  # an offline core, as an Android board may have (seed 004)
    try:
        profile = TuningConfig(
            cpu_governor="performance",
            cpus_online=True,
            sysctl={"net.core.netdev_max_backlog": int(before) + 1234, "net.core.rmem_max": "lots"},
        )
        applied = tuning.apply(vboard, profile)
        assert vboard.read(BACKLOG) == str(int(before) + 1234)
        assert vboard.read(CPU1) == "1"
        text = applied.describe()
        assert f"applied: {CPU1} (was 0), {BACKLOG} (was {before})" in text
        assert "refused: /proc/sys/net/core/rmem_max (was " in text  # the kernel takes numbers only
        assert "not available: /sys/devices/system/cpu/cpu{0,1}/cpufreq/scaling_governor" in text
        tuning.restore(applied)
        assert vboard.read(BACKLOG) == before
        assert vboard.read(CPU1) == "0"
    finally:
        vboard.run(shell.write(CPU1, 1), check=False)


def test_a_core_taken_offline_by_the_profile_is_back_online_after(vboard):
    applied = tuning.apply(vboard, TuningConfig(cpus_offline=[1], cpu_governor="userspace", cpu_freq=1800000))
    try:
        assert vboard.read(CPU1) == "0"
        text = applied.describe()
        assert f"applied: {CPU1} (was 1)" in text
        # no cpufreq under TCG: cpu0's is recorded as missing, the offline cpu1's is not looked at
        assert "not available: /sys/devices/system/cpu/cpu0/cpufreq" in text and "cpu1/cpufreq" not in text
    finally:
        tuning.restore(applied)
    assert vboard.read(CPU1) == "1"
