"""hil.lab.board.tuning on the PC lab role (LocalShellDriver): the profile's command line really runs in a shell,
against a directory tree shaped like a board's /sys and /proc (this PC's own are shared and not ours to
change); the virtual board's real /proc/sys is tested in tests/vlab/test_tuning_vlab.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.errors import LabError, Unavailable
from hil.inventory.tuning import TuningConfig
from hil.lab.board import tuning

PROFILE = TuningConfig(
    cpu_governor="performance",
    cpu_freq="max",
    cpus_online=True,
    pcie_aspm="performance",
    sysctl={"net.core.rmem_max": 4194304, "net.ipv4.tcp_rmem": "4096 87380 6291456"},
    rps_cpus={"rmnet_usb0.1": "80", "wlan0": "3"},
)


def _tree(root: Path) -> dict[Path, str]:
    """A board with cpu0 (no `online` file), cpu1 offline, cpu2 without cpufreq, ASPM and two sysctls."""
    files = {
        "sys/devices/system/cpu/cpu1/online": "0\n",
        "sys/devices/system/cpu/cpu2/online": "1\n",
        "sys/module/pcie_aspm/parameters/policy": "[default] performance powersave powersupersave \n",
        "proc/sys/net/core/rmem_max": "212992\n",
        "proc/sys/net/ipv4/tcp_rmem": "4096\t131072\t6291456\n",
        "sys/class/net/rmnet_usb0.1/queues/rx-0/rps_cpus": "00\n",
        "sys/class/net/rmnet_usb0.1/queues/rx-1/rps_cpus": "00\n",
    }
    for cpu in ("cpu0", "cpu1"):
        cpufreq = f"sys/devices/system/cpu/{cpu}/cpufreq"
        files |= {
            f"{cpufreq}/scaling_governor": "schedutil\n",
            f"{cpufreq}/scaling_min_freq": "408000\n",
            f"{cpufreq}/scaling_max_freq": "1416000\n",
            f"{cpufreq}/cpuinfo_max_freq": "1800000\n",
        }
    (root / "sys/devices/system/cpu/cpu2").mkdir(parents=True)
    written = {}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written[path] = text
    return written


def _read(path: Path) -> str:
    return path.read_text()


def _roles(role):
    return {"host": role, "device": role}


def test_a_profile_is_applied_described_and_restored(role, tmp_path):
    before = _tree(tmp_path)
    cpu = tmp_path / "sys/devices/system/cpu"
    applied = tuning.apply(role, PROFILE, str(tmp_path))
    assert _read(cpu / "cpu1/online") == "1\n"
    assert _read(cpu / "cpu0/cpufreq/scaling_governor") == "performance\n"
    for name in ("scaling_min_freq", "scaling_max_freq"):  # fixed at the CPU's maximum
        assert _read(cpu / f"cpu1/cpufreq/{name}") == "1800000\n"
    assert _read(tmp_path / "sys/module/pcie_aspm/parameters/policy") == "performance\n"
    assert _read(tmp_path / "proc/sys/net/ipv4/tcp_rmem") == "4096 87380 6291456\n"
    for queue in ("rx-0", "rx-1"):  # seed 004: the modem's receive work on cpu7
        assert _read(tmp_path / f"sys/class/net/rmnet_usb0.1/queues/{queue}/rps_cpus") == "80\n"
    text = applied.describe(str(tmp_path))
    assert "/sys/class/net/rmnet_usb0.1/queues/rx-0/rps_cpus (was 00)" in text
    assert "not available: " in text and "/sys/class/net/wlan0/queues/rx-*/rps_cpus" in text  # no such interface
    assert "applied: /sys/devices/system/cpu/cpu1/online (was 0)" in text
    assert "/sys/devices/system/cpu/cpu{0,1}/cpufreq/scaling_governor (was schedutil)" in text
    assert "/sys/module/pcie_aspm/parameters/policy (was default)" in text
    assert "/proc/sys/net/core/rmem_max (was 212992)" in text
    # cpu2 has no cpufreq: not an error, a fact of the result.
    assert "not available: /sys/devices/system/cpu/cpu2/cpufreq/scaling_governor" in text
    assert "/sys/devices/system/cpu/cpu2/cpufreq" in text.split("not available: ")[1]
    tuning.restore(applied)
    after = {path: _read(path) for path in before}
    for path, text in before.items():
        if path.name == "policy":  # the kernel shows choices; what is written back is the one in brackets
            assert after[path] == "default\n"
        elif path.name == "tcp_rmem":  # read with tabs, written back with spaces (the kernel takes both)
            assert after[path] == "4096 131072 6291456\n"
        else:
            assert after[path] == text, path


def test_a_board_without_the_files_records_everything_as_not_available(role, tmp_path):
    applied = tuning.apply(role, PROFILE, str(tmp_path))
    assert {step.status for step in applied.steps} == {"missing"}
    assert applied.describe(str(tmp_path)).startswith("not available: ")
    tuning.restore(applied)  # nothing to write back


def test_a_power_cycled_board_is_not_restored(role, tmp_path):
    _tree(tmp_path)
    applied = tuning.apply(role, PROFILE, str(tmp_path))
    applied.power_cycles -= 1  # as if the board had been power-cycled since: it booted with its defaults
    tuning.restore(applied)
    assert _read(tmp_path / "proc/sys/net/core/rmem_max") == "4194304\n"


def test_the_profile_is_restored_after_a_failed_measurement(role, tmp_path):
    _tree(tmp_path)
    with (
        pytest.raises(RuntimeError, match="measurement failed"),
        tuning.tuned(PROFILE, _roles(role), root=str(tmp_path)) as facts,
    ):
        assert _read(tmp_path / "proc/sys/net/core/rmem_max") == "4194304\n"
        assert list(facts) == ["lab-pc"]  # one target under two roles is tuned once
        raise RuntimeError("measurement failed")
    assert _read(tmp_path / "proc/sys/net/core/rmem_max") == "212992\n"


def test_a_pair_without_a_profile_is_left_alone(role):
    with tuning.tuned(None, _roles(role)) as facts:
        assert facts == {}


def test_values_reach_the_shell_quoted(role, tmp_path):
    profile = TuningConfig(sysctl={"net.ipv4.tcp_rmem": "4096 87380 6291456"})
    root = tmp_path / "it's a root"  # a quote in the path: quoted, not pasted
    (root / "proc/sys/net/ipv4").mkdir(parents=True)
    (root / "proc/sys/net/ipv4/tcp_rmem").write_text("1\n")
    tuning.apply(role, profile, str(root))
    assert _read(root / "proc/sys/net/ipv4/tcp_rmem") == "4096 87380 6291456\n"


def test_a_kernel_message_on_the_console_is_not_a_report_line(role):
    output = "hil-tuning|set|/proc/sys/net/core/rmem_max|212992\n[   12.345678] usb 1-1: reset high-speed USB device\n"
    assert tuning.parse(output, role) == [tuning.Step("set", "/proc/sys/net/core/rmem_max", "212992")]


def test_anything_else_from_the_profile_is_a_lab_error_showing_it(role):
    with pytest.raises(LabError, match="sh: 1: t: not found"):
        tuning.parse("sh: 1: t: not found\n", role)


STORAGE = TuningConfig(
    block_queue={"sd*": {"scheduler": "none", "max_sectors_kb": 512}, "mmcblk9": {"scheduler": "bfq"}},
    devfreq={"dmc": {"governor": "userspace", "freq": "max"}},
)


def test_block_queues_and_devfreq_are_applied_described_and_restored(role, tmp_path):
    # Seed 000 fixes the DDR frequency (devfreq dmc) and tunes the disk's queue before a dd figure.
    files = {
        "sys/block/sda/queue/scheduler": "[mq-deadline] none\n",
        "sys/block/sda/queue/max_sectors_kb": "120\n",
        "sys/class/devfreq/dmc/governor": "dmc_ondemand\n",
        "sys/class/devfreq/dmc/min_freq": "200000000\n",
        "sys/class/devfreq/dmc/max_freq": "528000000\n",
        "sys/class/devfreq/dmc/available_frequencies": "200000000 528000000 856000000 \n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    applied = tuning.apply(role, STORAGE, str(tmp_path))
    assert _read(tmp_path / "sys/block/sda/queue/scheduler") == "none\n"
    assert _read(tmp_path / "sys/block/sda/queue/max_sectors_kb") == "512\n"
    assert _read(tmp_path / "sys/class/devfreq/dmc/governor") == "userspace\n"
    for name in ("min_freq", "max_freq"):  # fixed at the highest available frequency
        assert _read(tmp_path / f"sys/class/devfreq/dmc/{name}") == "856000000\n"
    text = applied.describe(str(tmp_path))
    assert "/sys/block/sda/queue/scheduler (was mq-deadline)" in text
    assert "/sys/block/sda/queue/max_sectors_kb (was 120)" in text
    assert "not available: /sys/block/mmcblk9/queue/scheduler" in text  # the board has no such disk
    tuning.restore(applied)
    assert _read(tmp_path / "sys/block/sda/queue/scheduler") == "mq-deadline\n"
    for name, text in files.items():
        if "scheduler" not in name:
            assert _read(tmp_path / name) == text, name


@pytest.mark.parametrize(("policy", "stop"), [("skip", Unavailable), ("error", LabError)])
def test_a_knob_the_board_lacks_stops_the_case_when_the_profile_says_so_and_the_rest_is_restored(
    role, tmp_path, policy, stop
):
    _tree(tmp_path)
    profile = TuningConfig(
        sysctl={"net.core.rmem_max": 4194304}, rps_cpus={"wlan0": "3"}, unavailable=policy
    )  # the board has no wlan0
    with (
        pytest.raises(stop, match=r"unavailable: " + policy + r"\): .*not available: .*wlan0"),
        tuning.tuned(profile, _roles(role), root=str(tmp_path)),
    ):
        pytest.fail("the measurement must not run")
    assert _read(tmp_path / "proc/sys/net/core/rmem_max") == "212992\n"  # what was applied is put back


def test_by_default_a_missing_knob_is_recorded_and_the_case_measures(role, tmp_path):
    _tree(tmp_path)
    profile = TuningConfig(rps_cpus={"wlan0": "3"})
    with tuning.tuned(profile, _roles(role), root=str(tmp_path)) as facts:
        assert "not available: " in facts["lab-pc"]


def test_seed_000s_little_cores_offline_and_big_ones_at_a_set_speed_are_applied_and_restored(role, tmp_path):
    """RK3399 as seed 000 tunes it for MSC: cpu0-3 offline, cpu4 under the userspace governor at 1.8 GHz."""
    cpu = tmp_path / "sys/devices/system/cpu"
    files = {f"cpu{n}/online": "1\n" for n in range(5)}
    for n in range(5):
        files |= {
            f"cpu{n}/cpufreq/scaling_governor": "schedutil\n",
            f"cpu{n}/cpufreq/scaling_min_freq": "408000\n",
            f"cpu{n}/cpufreq/scaling_max_freq": "1416000\n",
            f"cpu{n}/cpufreq/cpuinfo_max_freq": "1800000\n",
            f"cpu{n}/cpufreq/scaling_setspeed": "<unsupported>\n",
        }
    for name, text in files.items():
        (cpu / name).parent.mkdir(parents=True, exist_ok=True)
        (cpu / name).write_text(text)
    profile = TuningConfig(cpus_offline=[0, 1, 2, 3], cpu_governor="userspace", cpu_freq=1800000)
    applied = tuning.apply(role, profile, str(tmp_path))
    assert [_read(cpu / f"cpu{n}/online") for n in range(5)] == ["0\n"] * 4 + ["1\n"]
    assert _read(cpu / "cpu4/cpufreq/scaling_governor") == "userspace\n"
    assert _read(cpu / "cpu4/cpufreq/scaling_setspeed") == "1800000\n"
    assert _read(cpu / "cpu0/cpufreq/scaling_governor") == "schedutil\n"  # offline: its cpufreq left alone
    text = applied.describe(str(tmp_path))
    assert "applied: /sys/devices/system/cpu/cpu{0,1,2,3}/online (was 1)" in text
    assert "/sys/devices/system/cpu/cpu4/cpufreq/scaling_setspeed (was <unsupported>)" in text
    assert "refused" not in text and "not available" not in text
    tuning.restore(applied)
    assert {name: _read(cpu / name) for name in files} == files
