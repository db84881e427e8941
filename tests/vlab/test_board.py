"""The virtual board itself: boot, gadgets over dummy_hcd, and every way it can go wrong.

These boot a real QEMU board (TCG) and talk to it over its serial console through labgrid.
"""

from __future__ import annotations

import time

import pytest

from hil.errors import BoardTimeout, LabError
from hil.lab.board import bound, shell
from hil.lab.board.role import Role
from hil.lab.usb_gadget import udc
from hil.lab.usb_gadget.gadget import CONFIGFS, Gadget, MassStorage
from hil.lab.usb_host import usbhost
from hil.measure import usb_resume
from hil.verdict.errors import ParseError
from hil.vlab import ENV_FILE

UDC = "dummy_udc.0"


def _gadget_dirs(role: Role) -> list[str]:
    return role.run(shell.cmd("ls", CONFIGFS), check=False).split()


def test_boots_the_debian_kernel_of_the_image(vboard, vlab_image):
    assert vboard.run("uname -r") == vlab_image.kernel_version
    strategy = vboard.strategy
    assert strategy.boot_times_s, "the strategy records each boot"
    # What a test can rely on: tmpfs for backing files, configfs for gadgets, coreutils dd for rates.
    assert "tmpfs" in vboard.run("grep ' /tmp ' /proc/mounts")
    assert "configfs" in vboard.run("grep configfs /proc/mounts")
    assert "coreutils" in vboard.run("dd --version | head -n 1")


@pytest.mark.parametrize(("super_speed", "expected_mbps"), [(False, 480.0), (True, 5000.0)])
def test_gadget_enumerates_at_the_speed_dummy_hcd_is_loaded_with(vboard, super_speed, expected_mbps):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": str(super_speed).lower()})
    with Gadget(vboard, UDC, [MassStorage(size_mb=16)]) as gadget:
        device = usbhost.wait_for_device(vboard, gadget.serial)
        assert device.speed_mbps == expected_mbps
        node = usbhost.wait_for_block_device(vboard, device)
        size_512b_sectors = int(vboard.read(f"/sys/block/{node.removeprefix('/dev/')}/size"))
        assert size_512b_sectors == 16 * 2048
    assert "hil" not in _gadget_dirs(vboard), "the gadget's configfs tree is gone after the with block"
    assert vboard.run(shell.cmd("ls", "/tmp")).find("hil-msc") == -1, "the backing file is removed"


def test_gadget_is_removed_when_the_test_body_fails(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    with pytest.raises(RuntimeError, match="test body failed"), Gadget(vboard, UDC, [MassStorage(size_mb=8)]):
        raise RuntimeError("test body failed")
    assert "hil" not in _gadget_dirs(vboard)


def test_a_gadget_left_by_a_crashed_run_is_replaced(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    leftover = Gadget(vboard, UDC, [MassStorage(size_mb=8)])
    leftover.create()
    leftover.bind()  # never removed: as if pytest had been killed
    with Gadget(vboard, UDC, [MassStorage(size_mb=8)]) as fresh:
        assert usbhost.wait_for_device(vboard, fresh.serial).serial == fresh.serial


def test_link_below_the_specified_speed_is_an_error_naming_the_speed(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    with Gadget(vboard, UDC, [MassStorage(size_mb=8)]) as gadget:
        device = usbhost.wait_for_device(vboard, gadget.serial)
        with pytest.raises(LabError, match=r"came up at 480 Mb/s \(high speed\), expected 5000 Mb/s"):
            usbhost.require_speed(device, "super", "vlab-test")


def test_gadget_that_never_enumerates_is_an_error_within_its_timeout(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    # A deauthorized root hub enumerates nothing: the host side of a dead cable.
    vboard.run(shell.write("/sys/bus/usb/devices/usb1/authorized", 0))
    try:
        with Gadget(vboard, UDC, [MassStorage(size_mb=8)]) as gadget:
            started = time.monotonic()
            with pytest.raises(LabError, match=f"serial {gadget.serial} did not enumerate within 5 s"):
                usbhost.wait_for_device(vboard, gadget.serial, timeout_s=5)
            assert time.monotonic() - started < 30
    finally:
        vboard.run(shell.write("/sys/bus/usb/devices/usb1/authorized", 1))


def test_missing_udc_is_an_error_listing_the_udcs_present(vboard):
    udc.ensure_module(vboard, "dummy_hcd", {"is_super_speed": "false"})
    gadget = Gadget(vboard, "fe800000.dwc3", [MassStorage(size_mb=8)])
    with pytest.raises(LabError, match=r"UDC 'fe800000.dwc3' not present \(found: dummy_udc.0\)"), gadget:
        pass
    assert "hil" not in _gadget_dirs(vboard)


def test_hung_console_times_out_and_the_next_use_power_cycles(vboard):
    strategy = vboard.strategy
    cycles = strategy.power_cycles
    vboard.target.get_driver("VlabQEMUDriver").pause()  # CPUs frozen: the console goes silent
    started = time.monotonic()
    with pytest.raises(BoardTimeout, match=r"no answer to `true` after \d+ s \(command limit 5 s\)"):
        vboard.run("true", timeout=5)
    # labgrid's ShellDriver probes the prompt for up to 30 s before each command.
    assert time.monotonic() - started < 60
    vboard.ensure_ready()
    assert strategy.power_cycles == cycles + 1
    assert vboard.run("echo alive") == "alive"


def test_crashed_emulator_is_recovered_by_a_power_cycle(vboard):
    strategy = vboard.strategy
    cycles = strategy.power_cycles
    vboard.target.get_driver("VlabQEMUDriver").kill()  # as if QEMU had crashed
    with pytest.raises(BoardTimeout):
        vboard.run("true", timeout=5)
    vboard.ensure_ready()
    assert strategy.power_cycles == cycles + 1
    assert vboard.run("echo alive") == "alive"


def _env_with(tmp_path, vlab_image, *, qemu: str | None = None, image_dir: str | None = None):
    """A copy of the vlab labgrid env with one thing broken."""
    from labgrid import Environment

    text = ENV_FILE.read_text()
    if qemu is not None:
        text = text.replace("qemu: /usr/bin/qemu-system-x86_64", f"qemu: {qemu}")
    if image_dir is not None:
        text = text.replace("$LG_HIL_VLAB_IMAGE", image_dir)
    path = tmp_path / "env.yaml"
    path.write_text(text)
    return Environment(config_file=str(path))


def test_missing_qemu_is_a_clear_error_before_anything_starts(tmp_path, vlab_image):
    env = _env_with(tmp_path, vlab_image, qemu="/nonexistent/qemu-system-x86_64")
    strategy = env.get_target("vboard").get_strategy()
    with pytest.raises(LabError, match=r"QEMU binary '/nonexistent/qemu-system-x86_64' not found: apt-get install"):
        strategy.transition("shell")
    env.cleanup()


def test_missing_kernel_image_is_a_clear_error(tmp_path, vlab_image):
    env = _env_with(tmp_path, vlab_image, image_dir=str(tmp_path / "no-image"))
    strategy = env.get_target("vboard").get_strategy()
    with pytest.raises(LabError, match=r"kernel image .*no-image/vmlinuz does not exist \(build the virtual lab"):
        strategy.transition("shell")
    env.cleanup()


def test_back_to_back_power_cycles_each_wait_for_a_real_boot(vboard):
    """Prompts left in the console buffer by one boot must not answer for the next (a 0.1 s 'boot')."""
    strategy = vboard.strategy
    strategy.power_cycle()
    strategy.power_cycle()  # nothing ran in between: the previous boot's extra prompts are still buffered
    assert strategy.boot_times_s[-1] > 3.0, f"'booted' in {strategy.boot_times_s[-1]:.2f} s: a stale prompt"
    uptime = float(vboard.run("cut -d' ' -f1 /proc/uptime").strip())
    assert uptime >= 1.0, "the shell that answered belongs to a kernel that has just started"


AWAKE_WAIT_S = 12  # each of the two suspend waits: together longer than the sample's 20 s bound


def test_a_device_that_never_suspends_is_named_by_the_resume_script_inside_a_samples_bound(vboard):
    """The USB resume script waits for the runtime suspend by the board's clock: a device that stays awake gets
    a second command and is then named (exit 4), inside a sample's 20 s bound that the waits extend, not a
    BoardTimeout and a power cycle. Counted polls took 40.2 s for a 30 s wait here (real clock, idle PC); the
    waits are 12 s here instead of 30: the same script, two waits still longer than the bound."""
    fake = "/tmp/hil-awake-device"
    vboard.run(
        shell.all_of(
            [shell.cmd("mkdir", "-p", f"{fake}/power")]
            + [shell.write(f"{fake}/power/{name}", value) for name, value in
               (("control", "on"), ("runtime_status", "active"), ("runtime_active_kids", "1"))]
        ),
        timeout=30,
    )  # fmt: skip
    started = time.monotonic()
    with bound.bounded(20, "a sample"), pytest.raises(ParseError, match="exited 4") as refused:
        usb_resume.run(vboard, fake, autosuspend_ms=100, suspend_wait_s=AWAKE_WAIT_S)
    took = time.monotonic() - started
    # Each wait counts whole seconds of /proc/uptime from a truncated start: 11-12 s of the board's clock.
    assert 2 * (AWAKE_WAIT_S - 1) <= took < 2 * AWAKE_WAIT_S + 20, took
    raw = refused.value.raw_output
    assert raw.count(f"{fake} did not runtime-suspend within {AWAKE_WAIT_S} s:") == 2
    assert "--- the device did not suspend: a second command ---" in raw
    assert f"{fake}/power/runtime_status:active" in raw
    assert vboard.run(shell.cmd("cat", f"{fake}/power/control"), timeout=30).strip() == "on"  # put back
