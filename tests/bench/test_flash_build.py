"""A build put on the rehearsal board without network by writing its boot flash, the way a lab flashes a
board it cannot boot over TFTP: labgrid's FlashromDriver writes the chip while the board is off (flashrom's
dummy programmer emulating it on the file the board reads as its flash), U-Boot copies the kernel and the
initramfs from there on every boot (hil.lab.board.flashboot), and the board then says itself that it runs
the build (hil.build=NAME is on its command line, which only the flash's boot command gives it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.build.manifest import load_build
from hil.lab.board.provision import provision

from .conftest import role

pytestmark = pytest.mark.timeout(900)


def test_the_build_written_to_the_boot_flash_is_what_the_board_without_network_runs(rehearsal_env, bench, tmp_path):
    image = Path(bench["image"])
    manifest = tmp_path / "flashed.yaml"
    manifest.write_text(
        "name: rehearsal-flashed\n"
        f"images: {{kernel: '{image / 'Image'}', initramfs: '{image / 'initrd.img'}'}}\n"
        "kernel_args: 'usbcore.autosuspend=7'\n"
        f"expect: {{kernel_release: '{bench['kernel_version']}'}}\n"
    )
    build = load_build(manifest)
    env = rehearsal_env(only=("rboard-serial",))
    assert provision(env, build) == ["rboard-serial"]
    flash = (Path(bench["run_dir"]) / "rboard-serial-flash.bin").read_bytes()
    kernel = build.images["kernel"].path.read_bytes()
    assert flash[: len(kernel)] == kernel  # written by flashrom before the board was powered
    board = role(env, "rboard-serial")
    board.ensure_ready()
    assert board.run("cat /proc/cmdline").split()[-2:] == ["usbcore.autosuspend=7", "hil.build=rehearsal-flashed"]
    assert board.strategy.build_view.startswith(f"kernel {bench['kernel_version']};")
