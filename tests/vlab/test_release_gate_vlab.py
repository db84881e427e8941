"""The release gate on the virtual lab: builds put on the board, checked after boot, and compared.

Builds are the virtual lab image's kernel and initramfs with kernel arguments of their own. The candidate
carries `nvme.io_queue_depth=2`: the NVMe driver's I/O queues shrink to 2 entries (1 request in flight per
queue), the way a BSP change to the driver's defaults would; every NVMe figure crosses those queues (a quiet
run, 2026-11-25: sequential 1M reads 3030 MB/s instead of 6268-6623; 2026-11-26: 2208 against 3639-4361),
still inside the virtual lab's wide bands: the band passes it, the comparison must not. (A
usb-storage quirk capping commands at 64 sectors was tried first: mass storage on dummy_hcd did not move.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from labgrid import Environment

from hil.build import load_build
from hil.errors import LabError
from hil.lab.board.provision import provision
from hil.lab.board.role import Role
from hil.report.compare import main as compare
from hil.vlab import ENV_FILE
from tests.vlab.test_suite_run import run_pytest

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


def test_a_candidate_with_shallow_nvme_queues_is_blocked_inside_its_band(tmp_path, vlab_image, vlab_subprocess_env):
    selection = ["testcases/storage/test_nvme.py", "-k", "seq1m and read", "--samples", "5"]

    def measure(index: int, name: str, args: str = "") -> None:
        manifest = write_build(tmp_path / f"{name}-{index}", vlab_image, name, args)
        for _ in range(3):  # a run the lab PC's other work made UNSTABLE is measured again, as a user would
            proc = run_pytest([*selection, "--build", str(manifest)], vlab_subprocess_env, tmp_path / "reports")
            if proc.returncode == 0 or "the lab PC was busy with other work" not in proc.stdout:
                break
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
        stored = json.loads((tmp_path / "reports" / "results.json").read_text())
        assert stored["run"]["build"]["name"] == name and stored["run"]["inventory"]["sha256"]
        (result,) = stored["results"]
        assert result["facts"]["build"] == name and f"hil.build={name}" in result["facts"]["build.vboard"]

    def gate() -> tuple[int, dict]:
        status = compare(["ref", "rc", "--hil-reports", str(tmp_path / "reports"), "--json", str(tmp_path / "g.json")])
        (row,) = json.loads((tmp_path / "g.json").read_text())["rows"]
        return status, row

    # Four reference runs: the virtual lab's runs of one build differ by up to 13% (boards.yaml run_spread 14%),
    # and a halved rate must stand out of that with the few degrees of freedom one metric gives.
    for index in range(4):
        measure(index, "ref")
    measure(4, "rc", QUEUE_DEPTH)
    status, row = gate()
    # The drop the queues cost follows the machine (-50% here, -27.4% on CI's on 2026-11-28): one candidate run
    # that the runs' spread cannot confirm leaves the gate INCOMPLETE asking for more, as a release manager does.
    for index in (5, 6):
        if not (row["gate"] == "INCOMPLETE" and "cannot tell: a " in row["why"]):
            break
        assert status == 6 and "measure the candidate more times" in row["why"] and row["change"] < -0.2, row
        measure(index, "rc", QUEUE_DEPTH)
        status, row = gate()
    if row["gate"] == "INCOMPLETE":
        # A loaded machine (CI's two workers, each with a QEMU) spread the reference runs 21% on 2026-11-27:
        # wider than the pair's calibrated 14%, the gate says it cannot tell instead of letting the drop pass.
        assert status == 6 and "cannot tell: the reference runs spread" in row["why"] and row["change"] < -0.2, row
        return
    assert status == 1 and row["gate"] == "BLOCKED" and row["regression"] and row["change"] < -0.2, row
    # Inside the band: the band lets it through (PASS, or MARGINAL when the interval straddles an edge with the
    # median inside; a CI run on 2026-11-26 gave MARGINAL), only the comparison with the reference catches it.
    assert row["band_verdict"] in ("PASS", "MARGINAL"), row
