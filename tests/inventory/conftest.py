"""A scratch lab for inventory tests: a labgrid env file shaped like the virtual lab's, and boards files next to it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

# A QEMU that does not exist: nothing in these tests may get as far as starting it.
MISSING_QEMU = "/nonexistent/hil-test/qemu-system-x86_64"

# The structure of hil/vlab/env.yaml. Its !template values need LG_HIL_VLAB_IMAGE only when a target is
# instantiated, so the inventory loader (which only parses the file) must not need it.
ENV_YAML = f"""\
targets:
  vboard:
    drivers:
      VlabQEMUDriver:
        qemu_bin: qemu
        machine: q35
        cpu: max
        memory: 2048M
        kernel: kernel
        extra_args: !template "-accel tcg -initrd $LG_HIL_VLAB_IMAGE/initramfs.cpio -nic none -no-reboot"
        boot_args: "console=ttyS0"
        display: none
      ShellDriver:
        prompt: 'hil-vlab# '
        login_prompt: 'hil-vlab login: '
        username: root
        login_timeout: 5
      BoardStrategy: {{}}
tools:
  qemu: {MISSING_QEMU}
images:
  kernel: !template "$LG_HIL_VLAB_IMAGE/vmlinuz"
imports:
  - hil.vlab.qemu
  - hil.lab.board.strategy
"""

# A valid inventory for that env. Tests derive broken ones from it by replacing one line.
BOARDS_YAML = """\
defaults:
  max_cv: 5%
  min_samples: 5
pairs:
  vpair:
    env: env.yaml
    roles:
      host: {target: vboard}
      device: {target: vboard}
    link: {type: usb, speed: high, udc: dummy_udc.0}
    metrics:
      usb.msc.read:
        unit: MB/s
        min: 8
        params:
          bs=64K: {max: 10}
"""


@pytest.fixture
def boards_yaml() -> str:
    return BOARDS_YAML


@pytest.fixture
def missing_qemu() -> str:
    return MISSING_QEMU


@pytest.fixture
def lab(tmp_path: Path) -> Path:
    (tmp_path / "env.yaml").write_text(ENV_YAML)
    return tmp_path


@pytest.fixture
def write_boards(lab: Path) -> Callable[[str], Path]:
    def write(text: str, name: str = "boards.yaml") -> Path:
        path = lab / name
        path.write_text(text)
        return path

    return write


@dataclass(frozen=True)
class ScratchSettings:
    backing_mb: int
    transfer_mb: int
    ratio: float
    mode: str
    enabled: bool


def _family():
    from hil.catalogue import Family, Metric, Setting, UsbBus
    from hil.verdict.ceilings import Transfer
    from hil.verdict.spec import Direction

    def fits(values):
        if values["test.transfer_mb"] > values["test.backing_mb"]:
            return "test.transfer_mb is larger than test.backing_mb"
        return None

    return Family(
        name="test",
        title="metrics of the inventory tests",
        metrics=(
            Metric("test.rate", "MB/s", Direction.HIGHER, "throughput", "tests", "a rate", UsbBus(Transfer.BULK)),
            Metric("test.latency", "ms", Direction.LOWER, "latency", "tests", "a latency"),
            Metric("test.fps", "fps", Direction.HIGHER, "fps", "tests", "a frame rate"),
            Metric("test.loss", "%", Direction.LOWER, "loss", "tests", "a loss", check_cv=False),
        ),
        settings=(
            Setting("test.backing_mb", int, 64, "backing store", 1, 1024),
            Setting("test.transfer_mb", int, 32, "per sample", 1, 1024),
            Setting("test.ratio", float, 0.5, "a fraction", 0.0, 1.0),
            Setting("test.mode", str, "fast", "a choice", choices=("fast", "slow")),
            Setting("test.enabled", bool, True, "a switch"),
        ),
        checks=(fits,),
        view=ScratchSettings,
    )


@pytest.fixture
def catalogue():
    """The real catalogue plus a family of test metrics (hil.catalogue.load() builds a fresh one)."""
    from hil.catalogue import Catalogue, load

    return Catalogue((*load().families, _family()))
