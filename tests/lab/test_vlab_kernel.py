"""The virtual board's kernel booted without its decompressor (hil.vlab.kernel), on the Debian kernel the virtual
lab's image is built from: its ELF taken out once and reused, and every kernel it cannot boot so left as given."""

from __future__ import annotations

import pytest
from labgrid import Environment
from labgrid.driver.qemudriver import QEMUDriver

from hil.vlab import ENV_FILE, kernel
from hil.vlab.image import find_kernel
from hil.vlab.qemu import VlabQEMUDriver


@pytest.fixture
def bzimage(tmp_path, monkeypatch):
    monkeypatch.setenv("HIL_VLAB_CACHE", str(tmp_path / "cache"))
    return find_kernel()[1]


def test_the_elf_inside_the_bzimage_is_taken_out_once_and_has_the_pvh_entry(bzimage, tmp_path):
    elf = kernel.direct_boot(bzimage)
    assert elf.parent == tmp_path / "cache" / "direct-kernels" and elf.suffix == ".elf"
    data = elf.read_bytes()
    assert data.startswith(b"\x7fELF") and len(data) > 4 * bzimage.stat().st_size
    assert kernel._has_pvh_entry(data)
    written = elf.stat().st_mtime_ns
    assert kernel.direct_boot(bzimage) == elf and elf.stat().st_mtime_ns == written  # reused, not written again
    assert [path.name for path in elf.parent.iterdir()] == [elf.name]  # no staging file left


def test_a_kernel_it_cannot_boot_directly_is_booted_as_given(bzimage, tmp_path, monkeypatch):
    data = bzimage.read_bytes()
    damaged = tmp_path / "damaged"
    at = data.index(b"\xfd7zXZ\x00") + 4096
    damaged.write_bytes(data[:at] + bytes(64) + data[at + 64 :])  # the xz stream's check fails
    not_a_kernel = tmp_path / "initramfs.cpio"
    not_a_kernel.write_bytes(b"070701" + bytes(4096))
    missing = tmp_path / "missing"
    for given in (damaged, not_a_kernel, missing):
        assert kernel.direct_boot(given) == given
    # no ELF kept for either, and what was learnt is not learnt again at the next power-on
    assert sorted(path.suffix for path in (tmp_path / "cache" / "direct-kernels").iterdir()) == [".plain", ".plain"]
    monkeypatch.setattr(kernel, "_payload", lambda data: pytest.fail("decompressed again"))
    for given in (damaged, not_a_kernel, missing):
        assert kernel.direct_boot(given) == given


def test_an_elf_without_the_pvh_note_is_not_booted_directly(bzimage):
    elf = bytearray(kernel.direct_boot(bzimage).read_bytes())
    # A note's header: name size 4, description size, type 18, then its name "Xen": make the type another one.
    name, kind = kernel.PVH_NOTE
    at = elf.index(kind.to_bytes(4, "little") + name)
    elf[at : at + 4] = (17).to_bytes(4, "little")
    assert kernel.PVH_NOTE[1].to_bytes(4, "little") + name not in elf
    assert not kernel._has_pvh_entry(bytes(elf))


def test_the_board_powers_on_with_the_kernels_elf(bzimage, tmp_path, monkeypatch):
    monkeypatch.setenv("LG_HIL_VLAB_IMAGE", str(tmp_path))
    env = Environment(config_file=str(ENV_FILE))
    started: list[list[str]] = []
    monkeypatch.setattr(QEMUDriver, "on", lambda self: started.append(list(self._cmd)))
    qemu = env.get_target("vboard").get_driver(VlabQEMUDriver, activate=False)
    qemu._cmd = ["qemu-system-x86_64", "-kernel", str(bzimage), "-append", "console=ttyS0"]
    qemu.on()
    qemu.use_clock("real", suspends=True)  # a test that suspends it to RAM: QEMU would rewrite the ELF at the wake
    qemu.on()
    qemu.use_clock("real")
    qemu.bios = "uboot"  # env-uboot.yaml: U-Boot loads the kernel over fw_cfg and wants the bzImage
    qemu.on()
    env.cleanup()
    assert started[0][:3] == ["qemu-system-x86_64", "-kernel", str(kernel.direct_boot(bzimage))]
    assert started[1][2] == started[2][2] == qemu._cmd[2] == str(bzimage)  # per power-on: a build brings its own
