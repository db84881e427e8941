"""Builds on the virtual lab: put on the board and checked after boot. Builds are the virtual lab image's kernel and
initramfs with kernel arguments of their own (here `nvme.io_queue_depth=2`, a BSP change to a driver's default).
The release gate comparing two builds' runs: tests/vlab/test_virtual_clock_vlab.py, on the virtual clock (the
NVMe candidate once compared here was measured on the real clock, whose run-to-run spread of 10-16% let it see
only the halved rate, after four reference runs: 330 s of CI).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from labgrid import Environment

from hil.build.manifest import load_build
from hil.errors import LabError
from hil.lab.board.provision import provision
from hil.lab.board.role import Role
from hil.vlab import ENV_FILE

QUEUE_DEPTH = "nvme.io_queue_depth=2"


def write_build(directory: Path, image, name: str, args: str = "", expect: str | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    manifest = directory / "build.yaml"
    lines = [
        f"name: {name}",
        f"images: {{kernel: '{image.kernel}', initramfs: '{image.initramfs}'}}",
        f"kernel_args: '{args}'",
    ]
    if expect:
        lines.append(f"expect: {{kernel_release: '{expect}'}}")
    manifest.write_text("\n".join(lines) + "\n")
    return manifest


def test_the_board_boots_the_build_and_a_board_that_runs_another_build_is_an_error(tmp_path, vlab_image):
    build = load_build(write_build(tmp_path / "b", vlab_image, "vlab-check", QUEUE_DEPTH))
    env = Environment(config_file=str(ENV_FILE))
    try:
        assert provision(env, build) == ["vboard"]
        role = Role("device", env.get_target("vboard"), "vlab-build")
        role.ensure_ready()
        assert role.run("cat /proc/cmdline").split()[-2:] == [QUEUE_DEPTH, "hil.build=vlab-check"]
        assert role.strategy.build_view.startswith(f"kernel {vlab_image.kernel_version};")
    finally:
        env.get_target("vboard").get_strategy().transition("off")
        env.cleanup()

    # A board that boots something else than the build hil holds it to (a stale image, a boot loader that fell
    # back): the board is given vlab-check, hil expects vlab-other of the same kernel.
    other = load_build(write_build(tmp_path / "o", vlab_image, "vlab-other"))
    env = Environment(config_file=str(ENV_FILE))
    try:
        provision(env, build)
        env.get_target("vboard").get_strategy().build = other
        role = Role("device", env.get_target("vboard"), "vlab-build")
        with pytest.raises(LabError, match="did not boot build vlab-other: its command line names build 'vlab-check'"):
            role.ensure_ready()
    finally:
        env.get_target("vboard").get_strategy().transition("off")
        env.cleanup()
