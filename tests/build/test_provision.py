"""Putting a build on the boards of a labgrid environment, before any of them is powered: the virtual board's
QEMU is given the build's kernel, initramfs and arguments; a board no driver can put a build on is refused."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import yaml
from labgrid import Environment
from labgrid.binding import StateError
from labgrid.step import steps

from hil.build.manifest import load_build
from hil.errors import LabError
from hil.lab.board.provision import provision
from hil.vlab import ENV_FILE
from hil.vlab.qemu import BUILD_KERNEL

REHEARSAL_ENV = Path(__file__).parent.parent.parent / "examples" / "rehearsal-env.yaml"


@pytest.fixture
def images(tmp_path, monkeypatch):
    monkeypatch.setenv("LG_HIL_VLAB_IMAGE", str(tmp_path / "vlab-image"))
    monkeypatch.setenv("LG_HIL_BENCH", str(tmp_path / "bench"))
    (tmp_path / "vmlinuz").write_bytes(b"kernel")
    (tmp_path / "initrd").write_bytes(b"initramfs")
    (tmp_path / "board.dtb").write_bytes(b"dtb")
    return tmp_path


def build_of(directory: Path, images: str, args: str = "nvme.io_queue_depth=2"):
    path = directory / "build.yaml"
    path.write_text(f"name: rc1\nimages: {images}\nkernel_args: '{args}'\n")
    return load_build(path)


def test_the_virtual_board_is_given_the_builds_kernel_initramfs_and_arguments(images):
    env = Environment(config_file=str(ENV_FILE))
    seen = []  # labgrid's step log: the driver found by its BootBuildProtocol leaves a step
    steps.subscribe(seen.append)
    try:
        assert provision(env, build_of(images, "{kernel: vmlinuz, initramfs: initrd}")) == ["vboard"]
        assert ("VlabQEMUDriver", "boot_build") in {(e.step.source.__class__.__name__, e.step.title) for e in seen}
        target = env.get_target("vboard")
        qemu = target.get_driver("VlabQEMUDriver", activate=False)
        assert qemu.kernel == BUILD_KERNEL and env.config.get_image_path(BUILD_KERNEL) == str(images / "vmlinuz")
        args = shlex.split(qemu.extra_args)
        assert args[args.index("-initrd") + 1] == str(images / "initrd")
        assert qemu.boot_args == "console=ttyS0 loglevel=3 panic=-1 nvme.io_queue_depth=2 hil.build=rc1"
        assert target.get_strategy().build.name == "rc1"
    finally:
        steps.unsubscribe(seen.append)
        env.cleanup()


def test_a_build_the_virtual_board_cannot_boot_is_refused_before_power_on(images):
    env = Environment(config_file=str(ENV_FILE))
    try:
        refused = r"vboard: the virtual board boots a kernel and an initramfs; build rc1 also has \['dtb'\]"
        with pytest.raises(LabError, match=refused):
            provision(env, build_of(images, "{kernel: vmlinuz, dtb: board.dtb}"))
    finally:
        env.cleanup()


def test_a_build_given_after_the_board_was_powered_is_refused(images):
    (images / "vlab-image").mkdir()
    (images / "vlab-image" / "vmlinuz").write_bytes(b"kernel")
    (images / "vlab-image" / "initramfs.cpio").write_bytes(b"initramfs")
    env = Environment(config_file=str(ENV_FILE))
    try:
        target = env.get_target("vboard")
        target.activate(target.get_driver("VlabQEMUDriver", activate=False))  # its command line is now fixed
        with pytest.raises(StateError, match=r"must be deactivated to call VlabQEMUDriver\.boot_build"):
            provision(env, build_of(images, "{kernel: vmlinuz, initramfs: initrd}"))
    finally:
        env.cleanup()


def _rehearsal_env(images: Path) -> Environment:
    """The bench's environment file as it is, but rboard-serial's outlet a command that leaves a mark (no
    bench runs here: its power switch is not there)."""
    config = yaml.safe_load(
        REHEARSAL_ENV.read_text().replace("!template ", "").replace("$LG_HIL_BENCH", str(images / "bench"))
    )
    serial = config["targets"]["rboard-serial"]
    del serial["resources"]["NetworkPowerPort"]
    del serial["drivers"]["NetworkPowerDriver"]
    off = shlex.quote(str(images / "switched-off"))
    serial["drivers"] = {"ExternalPowerDriver": {"cmd_on": "true", "cmd_off": f"touch {off}"}, **serial["drivers"]}
    (images / "bench").mkdir()
    path = images / "rehearsal-env.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))  # labgrid binds drivers in their order
    return Environment(config_file=str(path))


def test_a_u_boot_board_gets_the_build_over_tftp_and_one_without_network_in_its_boot_flash(images):
    env = _rehearsal_env(images)
    seen = []  # labgrid's step log: both drivers' boot_build are steps (BootBuildProtocol)
    steps.subscribe(seen.append)
    try:
        assert provision(env, build_of(images, "{kernel: vmlinuz, initramfs: initrd}")) == ["rboard", "rboard-serial"]
        booted = {(event.step.source.__class__.__name__, event.step.title) for event in seen}
        assert booted >= {("UBootTFTPBootDriver", "boot_build"), ("UBootFlashBootDriver", "boot_build")}
        served = images / "bench" / "tftp" / "rboard"  # the TFTP server's folder: links to the build's images
        assert (served / "vmlinuz").resolve() == images / "vmlinuz"
        uboot = env.get_target("rboard").get_driver("UBootDriver", activate=False)
        assert "tftpboot ${kernel_addr_r} /vmlinuz" in uboot.boot_command
        board_args = "root=/dev/vda2 rootwait console=ttyAMA0,115200 loglevel=3 panic=-1"
        assert f"setenv bootargs {board_args} nvme.io_queue_depth=2 hil.build=rc1;" in uboot.boot_command
        # rboard-serial: switched off, then its flash written by flashrom (the dummy programmer's chip file):
        # the kernel at 0, the initramfs on the next 64 KiB erase block, the rest erased.
        assert (images / "switched-off").exists()
        flash = (images / "bench" / "rboard-serial-flash.bin").read_bytes()
        assert len(flash) == 64 * 1024 * 1024
        assert flash[:6] == b"kernel" and flash[0x10000 : 0x10000 + 9] == b"initramfs"
        assert set(flash[6:0x10000]) == set(flash[0x10009:]) == {0xFF}
        uboot = env.get_target("rboard-serial").get_driver("UBootDriver", activate=False)
        assert uboot.boot_command == (
            "virtio scan; virtio dev 1; virtio read ${kernel_addr_r} 0x0 0x1; "
            "virtio scan; virtio dev 1; virtio read ${ramdisk_addr_r} 0x80 0x1; "
            f"setenv bootargs {board_args} nvme.io_queue_depth=2 hil.build=rc1; "
            "booti ${kernel_addr_r} ${ramdisk_addr_r}:0x9 ${fdtcontroladdr}"
        )
    finally:
        steps.unsubscribe(seen.append)
        env.cleanup()
