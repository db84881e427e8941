"""A build put on the rehearsal board the way labs boot a kernel under test: labgrid's TFTP provider serves the
build's images, U-Boot fetches them over the board's Ethernet on every boot (hil.lab.board.tftpboot), and the
board then says itself that it runs the build (its command line carries hil.build=NAME, which only the TFTP
boot command gives it: the SD card's own boot entry has no such argument)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.build.manifest import load_build
from hil.errors import LabError
from hil.lab.board.provision import provision

from .conftest import role

pytestmark = pytest.mark.timeout(900)


def _manifest(directory: Path, bench: dict, name: str, release: str) -> Path:
    image = Path(bench["image"])
    path = directory / f"{name}.yaml"
    path.write_text(
        f"name: {name}\n"
        f"images: {{kernel: '{image / 'Image'}', initramfs: '{image / 'initrd.img'}'}}\n"
        "kernel_args: 'usbcore.autosuspend=5'\n"
        f"expect: {{kernel_release: '{release}'}}\n"
    )
    return path


def test_u_boot_fetches_the_build_over_tftp_and_the_board_runs_it(rehearsal_env, bench, tmp_path):
    build = load_build(_manifest(tmp_path, bench, "rehearsal-rc", bench["kernel_version"]))
    env = rehearsal_env(only=("rboard",))
    assert provision(env, build) == ["rboard"]
    served = Path(bench["run_dir"]) / "tftp" / "rboard"
    assert (served / "Image").resolve() == build.images["kernel"].path  # the provider links, the server serves
    board = role(env, "rboard")
    board.ensure_ready()
    assert board.run("cat /proc/cmdline").split()[-2:] == ["usbcore.autosuspend=5", "hil.build=rehearsal-rc"]
    assert board.strategy.build_view.startswith(f"kernel {bench['kernel_version']};")
    assert board.run("uname -m").strip() == "aarch64"


def test_a_board_that_boots_another_kernel_than_the_builds_is_an_error(rehearsal_env, bench, tmp_path):
    build = load_build(_manifest(tmp_path, bench, "rehearsal-wrong", "6.1.0-9-arm64"))
    env = rehearsal_env(only=("rboard",))
    provision(env, build)
    with pytest.raises(LabError, match=f"did not boot build rehearsal-wrong: it runs kernel {bench['kernel_version']}"):
        role(env, "rboard").ensure_ready()
