"""The virtual board booting through a real U-Boot: BootloaderStrategy with labgrid's UBootDriver.

QEMU runs u-boot-qemu's U-Boot as its firmware; the strategy stops autoboot at the prompt, boots the
kernel and initramfs from fw_cfg (`qfw load`, `zboot`) and logs in, as on a board with a boot loader.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from labgrid import Environment
from labgrid.step import steps

from hil.errors import LabError
from hil.lab.board.role import Role
from hil.lab.board.strategy import BootloaderStrategy
from hil.vlab import ENV_FILE
from hil.vlab.image import VlabImage

UBOOT_ENV_FILE = ENV_FILE.with_name("env-uboot.yaml")


class ConsoleCapture:
    """Everything the board wrote on its serial console, from labgrid's console read steps."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def __call__(self, event) -> None:
        result = event.data.get("result")
        if event.step.tag == "console" and event.step.title == "read" and isinstance(result, bytes):
            self.chunks.append(result)

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def console() -> Iterator[ConsoleCapture]:
    capture = ConsoleCapture()
    steps.subscribe(capture)
    yield capture
    steps.unsubscribe(capture)


@pytest.fixture(scope="module")
def uboot_env(vlab_image: VlabImage, console: ConsoleCapture) -> Iterator[Environment]:
    env = Environment(config_file=str(UBOOT_ENV_FILE))
    rom = Path(env.config.get_image_path("uboot"))
    if not rom.is_file():
        pytest.skip(f"no U-Boot for QEMU at {rom}: apt-get install u-boot-qemu")
    yield env
    env.get_target("vboard").get_strategy().transition("off")
    env.cleanup()


@pytest.fixture
def uboot_board(uboot_env: Environment) -> Role:
    role = Role("device", uboot_env.get_target("vboard"), "vlab-uboot-test")
    role.ensure_ready()
    return role


def test_boots_through_the_uboot_prompt_to_a_linux_shell(uboot_board, vlab_image, console):
    strategy = uboot_board.strategy
    assert isinstance(strategy, BootloaderStrategy)
    assert "U-Boot 20" in console.text, "U-Boot's banner is on the console"
    assert "Hit any key to stop autoboot" in console.text
    assert "=> qfw load" in console.text, "the boot command was typed at U-Boot's prompt"
    assert "Starting kernel" in console.text
    assert uboot_board.run("uname -r") == vlab_image.kernel_version
    assert uboot_board.run("echo hello from $(hostname)") == "hello from hil-vlab"
    assert len(strategy.boot_times_s) == strategy.power_cycles == 1


def test_hung_board_is_power_cycled_through_uboot(uboot_board, console):
    strategy = uboot_board.strategy
    cycles = strategy.power_cycles
    boots = console.text.count("Hit any key to stop autoboot")
    uboot_board.target.get_driver("VlabQEMUDriver").pause()  # CPUs frozen, as a hung board's
    strategy.mark_suspect("test: the board hung")
    uboot_board.ensure_ready()
    assert strategy.power_cycles == cycles + 1
    assert strategy.suspect_reason is None
    assert console.text.count("Hit any key to stop autoboot") == boots + 1, "the new boot went through U-Boot"
    assert uboot_board.run("echo alive") == "alive"


def test_missing_uboot_rom_is_a_clear_error(tmp_path, vlab_image):
    text = UBOOT_ENV_FILE.read_text()
    path = tmp_path / "env-uboot.yaml"
    path.write_text(text.replace("uboot: /usr/lib/u-boot/", "uboot: /nonexistent/"))
    env = Environment(config_file=str(path))
    with pytest.raises(LabError, match=r"bios image /nonexistent/\S+ does not exist \(apt-get install u-boot-qemu\)"):
        env.get_target("vboard").get_strategy().transition("shell")
    env.cleanup()
