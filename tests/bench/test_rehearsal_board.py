"""The real-board path on the rehearsal bench: an arm64 board booted by U-Boot from its SD card, powered through
a network power switch, its console on ser2net, its files over SSH or over the console, all through labgrid's
own drivers (examples/rehearsal-env.yaml) and hil's recovering strategy."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest
import yaml
from labgrid.factory import target_factory

import hil.lab.board.flashboot
import hil.lab.board.strategy
import hil.lab.board.tftpboot
from hil.errors import BoardTimeout, LabError
from hil.lab.board import console_transfer, shell

from .conftest import ENV_FILE, role

pytestmark = pytest.mark.timeout(900)


# hil's own classes in the env file: its strategy, and the drivers that boot a build over TFTP or from the boot
# flash (labgrid has the TFTP provider and the flashrom driver, not a driver that tells U-Boot to boot from them).
HILS = {"BootloaderStrategy", "UBootTFTPBootDriver", "UBootFlashBootDriver"}


def test_the_env_file_holds_labgrids_own_resources_and_drivers_and_no_class_of_hils_but_the_strategy():
    config = yaml.safe_load(ENV_FILE.read_text().replace("!template ", ""))
    hils = {name for name, cls in target_factory.drivers.items() if cls.__module__.startswith("hil.")}
    for target in config["targets"].values():
        for resource in target["resources"]:
            assert resource in target_factory.resources, resource
            assert target_factory.resources[resource].__module__.startswith("labgrid."), resource
        drivers = set(target["drivers"])
        assert drivers & hils <= HILS and "BootloaderStrategy" in drivers
        for driver in drivers - HILS:
            assert target_factory.drivers[driver].__module__.startswith("labgrid."), driver
    assert config["imports"] == ["hil.lab.board.strategy", "hil.lab.board.tftpboot", "hil.lab.board.flashboot"]
    assert hils >= HILS and hil.lab.board.strategy.BootloaderStrategy.__module__.startswith("hil.")


def test_u_boot_boots_the_board_through_the_switch_and_ser2net(rehearsal_env, bench):
    board = role(rehearsal_env(), "rboard")
    started = time.monotonic()
    board.ensure_ready()
    assert time.monotonic() - started < 90
    assert board.run("uname -m").strip() == "aarch64"
    assert board.run("uname -r").strip() == bench["kernel_version"]
    strategy = board.strategy
    assert strategy.bootloader_version.startswith(bench["uboot_version"]), strategy.bootloader_version
    assert strategy.power_cycles == 1 and len(strategy.boot_times_s) == 1


def _sha256_on(board, path: str) -> str:
    return board.run(shell.cmd("sha256sum", path)).split()[0]


def test_a_file_goes_over_ssh_and_over_the_serial_console_and_arrives_whole(rehearsal_env, tmp_path: Path):
    env = rehearsal_env()
    payload = tmp_path / "payload"
    payload.write_bytes(os.urandom(48 * 1024 + 17))  # not a multiple of XMODEM's 128-byte blocks
    expected = hashlib.sha256(payload.read_bytes()).hexdigest()
    networked = role(env, "rboard")
    networked.ensure_ready()
    ssh = networked.target.get_driver("SSHDriver")
    networked.target.activate(ssh)
    ssh.put(str(payload), "/tmp/payload")
    assert _sha256_on(networked, "/tmp/payload") == expected
    serial_only = role(env, "rboard-serial")
    serial_only.ensure_ready()
    with pytest.raises(Exception, match="SSHDriver"):  # it has no network, hence no SSH
        serial_only.target.get_driver("SSHDriver")
    started = time.monotonic()  # hil's console transfer: labgrid's put gives rz a path, which lrzsz now refuses
    assert console_transfer.put(serial_only, payload.read_bytes(), "/tmp/payload").startswith("ShellDriver (XMODEM")
    assert _sha256_on(serial_only, "/tmp/payload") == expected
    assert time.monotonic() - started < 120


def test_a_hung_board_is_an_error_within_its_bound_and_the_switch_power_cycles_it(rehearsal_env, bench):
    board = role(rehearsal_env(), "rboard")
    board.ensure_ready()
    board.run("echo 0 > /proc/sys/kernel/panic; echo 1 > /proc/sys/kernel/sysrq")  # a panic hangs it for good
    board.run("sync")
    started = time.monotonic()
    with pytest.raises(BoardTimeout, match="no answer to"):
        board.run("echo c > /proc/sysrq-trigger; sleep 1; echo survived", timeout=10)
    assert time.monotonic() - started < 30
    assert board.suspect_reason is not None
    board.ensure_ready()  # power cycle through the switch, U-Boot, login
    assert board.strategy.power_cycles == 2
    assert board.run("echo back").strip() == "back"


def _bounded_boot_error(env_changes: dict, target: str, rehearsal_env, *, within_s: float) -> str:
    board = role(rehearsal_env(**env_changes), target)
    started = time.monotonic()
    with pytest.raises((LabError, BoardTimeout)) as caught:
        board.ensure_ready()
    elapsed = time.monotonic() - started
    assert elapsed < within_s, f"{elapsed:.0f} s: {caught.value}"
    return str(caught.value)


def test_a_power_switch_answering_500_is_an_error_naming_the_switch(rehearsal_env, bench):
    bench_fault("pdu", "http500")
    try:
        message = _bounded_boot_error({}, "rboard", rehearsal_env, within_s=60)
    finally:
        bench_fault("pdu", "none")
    assert "power switch (NetworkPowerDriver, model=digitalloggers_restapi" in message and "500" in message
    assert "1234" not in message  # the switch's password stays out of reports


def test_a_power_switch_that_does_not_answer_is_an_error_within_the_power_timeout(rehearsal_env, bench):
    bench_fault("pdu", "silent")
    try:
        message = _bounded_boot_error(
            {"rboard": {"BootloaderStrategy": {"power_timeout": 5, "boot_attempts": 1}}},
            "rboard",
            rehearsal_env,
            within_s=40,
        )
    finally:
        bench_fault("pdu", "none")
    assert "did not switch off: SwitchSilent: no HTTP answer from 127.0.0.1:18380 within 5 s" in message, message


def test_a_serial_server_that_refuses_the_connection_is_an_error_naming_the_port(rehearsal_env, bench):
    bench_fault("serial", "down")
    try:
        message = _bounded_boot_error(
            {"rboard": {"BootloaderStrategy": {"boot_attempts": 1}}}, "rboard", rehearsal_env, within_s=30
        )
    finally:
        bench_fault("serial", "up")
    assert "at console (SerialDriver, host=127.0.0.1 port=18301)" in message and "refused" in message, message


def test_a_board_that_never_reaches_u_boot_is_an_error_within_the_boot_loaders_bound(rehearsal_env, bench):
    bench_fault("relay", "0")  # the switch says on, the board gets no power
    try:
        message = _bounded_boot_error(
            {"rboard": {"UBootDriver": {"login_timeout": 15}, "BootloaderStrategy": {"boot_attempts": 1}}},
            "rboard",
            rehearsal_env,
            within_s=60,
        )
    finally:
        bench_fault("pdu", "none")
    assert "no shell after 1 power cycles" in message and "at boot loader prompt (UBootDriver)" in message, message


def test_a_u_boot_that_never_boots_linux_is_an_error_within_the_boot_bound(rehearsal_env, bench):
    missing = "load virtio 0:1 ${kernel_addr_r} /no-such-Image && booti ${kernel_addr_r} - ${fdtcontroladdr}"
    message = _bounded_boot_error(
        {
            "rboard": {
                "UBootDriver": {"boot_command": missing, "boot_timeout": 15},
                "BootloaderStrategy": {"boot_attempts": 1},
            }
        },
        "rboard",
        rehearsal_env,
        within_s=60,
    )
    assert "at boot loader booting Linux (UBootDriver)" in message, message


def test_an_ssh_key_the_board_refuses_is_an_error_naming_ssh(rehearsal_env, bench, tmp_path: Path):
    stranger = tmp_path / "stranger"
    os.system(f"ssh-keygen -q -t ed25519 -N '' -f {stranger}")
    env = rehearsal_env(rboard={"SSHDriver": {"keyfile": str(stranger)}})
    board = role(env, "rboard")
    board.ensure_ready()
    started = time.monotonic()
    with pytest.raises(Exception, match=r"(?i)ssh|permission denied") as caught:
        board.target.activate(board.target.get_driver("SSHDriver"))
    assert time.monotonic() - started < 60, str(caught.value)


def bench_fault(kind: str, value: str) -> None:
    from hil.bench import bench as bench_service

    bench_service.fault(kind, value)
