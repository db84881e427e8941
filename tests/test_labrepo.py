"""`hil init DIR`: the lab repository it makes validates with hil's own loader, pins this hil and never
overwrites a lab's files. tests/distribution/test_wheel.py runs it from an installed wheel on the virtual lab."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from hil import __version__
from hil.inventory.loader import load_inventory
from hil.labrepo import make
from tests.pipeline.jenkinsfile import Jenkinsfile

REPO = Path(__file__).resolve().parents[1]


def test_init_makes_a_lab_repository_that_validates_and_pins_this_hil(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "hil", "init", str(tmp_path / "lab")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    lab = tmp_path / "lab"
    names = {p.relative_to(lab).as_posix() for p in lab.rglob("*") if p.is_file()}
    assert names == {
        "boards.yaml", "env.yaml", "pytest.ini", "Jenkinsfile", "requirements.txt", "README.md", "cases/test_own_msc.py"
    }  # fmt: skip
    inventory = load_inventory(lab / "boards.yaml")
    assert set(inventory.boards) == {"vlab-msc", "my-board"}
    assert "seed 000" in inventory.boards["my-board"].config.metrics["usb.msc.read"].source
    # From a checkout, no wheel: its line has no hash, which pip refuses (it prints the hash once the file is there);
    # installed from a wheel, tests/distribution/test_wheel.py checks the wheel copied and its hash.
    requirements = (lab / "requirements.txt").read_text()
    assert f"\n./wheels/hil-{__version__}-py3-none-any.whl\n" in requirements and "\nhil==" not in requirements
    assert "NOTE: this hil was not installed from a wheel" in done.stdout
    # every package hil needs, pinned with hashes (the run lock): pip's hash-checking mode takes nothing else
    lock = (REPO / "requirements-run.lock").read_text()
    assert requirements.endswith(lock) and "--hash=sha256:" in lock
    assert "@HIL_VERSION@" not in (lab / "README.md").read_text() + requirements


def test_init_copies_the_wheel_it_is_given_and_pins_its_hash(tmp_path):
    content = b"a wheel's bytes"
    wheel = tmp_path / f"hil-{__version__}-py3-none-any.whl"
    wheel.write_bytes(content)
    written = make(tmp_path / "lab", wheel)
    assert tmp_path / "lab" / "wheels" / wheel.name in written
    assert (tmp_path / "lab" / "wheels" / wheel.name).read_bytes() == content
    line = f"./wheels/{wheel.name} --hash=sha256:{hashlib.sha256(content).hexdigest()}\n"
    assert line in (tmp_path / "lab" / "requirements.txt").read_text()


def test_init_never_overwrites_a_lab_file(tmp_path):
    (tmp_path / "boards.yaml").write_text("ours\n")
    done = subprocess.run(
        [sys.executable, "-m", "hil", "init", str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 4 and "already has boards.yaml" in done.stderr and "nothing was written" in done.stderr
    assert (tmp_path / "boards.yaml").read_text() == "ours\n"
    assert not (tmp_path / "env.yaml").exists()


def test_init_never_writes_through_a_symbolic_link_dangling_or_not(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    for name, target in {"README.md": outside / "readme.txt", "cases": outside, "env.yaml": outside / "env"}.items():
        lab = tmp_path / f"lab-{name}"
        lab.mkdir()
        (lab / name).symlink_to(target)
        done = subprocess.run([sys.executable, "-m", "hil", "init", str(lab)], capture_output=True, text=True)
        assert done.returncode == 4 and f"{name} (a symbolic link)" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and not list(outside.iterdir())
        assert [path.name for path in lab.iterdir()] == [name]  # nothing written


def test_make_returns_every_file_it_wrote(tmp_path):
    written = make(tmp_path / "new" / "lab")
    assert all(path.is_file() for path in written) and len(written) == 7


def test_the_lab_jenkinsfile_locks_each_branch_s_boards_from_hil_s_own_grouping(tmp_path):
    """The Jenkinsfile `hil init` writes groups the selected pairs and names their board locks with hil's pipeline
    helper (its 'Install hil' step, run here after the venv is made), and locks those in each branch: before, it
    locked `hil-pair-<pair>`, so two builds whose pairs share a board drove it at once."""
    lab = tmp_path / "lab"
    make(lab)
    (lab / ".venv").symlink_to(Path(sys.prefix))  # the step's .venv/bin/hil: this environment's
    jenkinsfile = Jenkinsfile.read(lab / "Jenkinsfile", step_names=("sh", "lock"))
    install = next(step for step in jenkinsfile.steps if step.stage == "Install hil")
    script = str(install.args["script"])
    grouping = script[script.index("hil --version") + len("hil --version") :]
    env = {**os.environ, "PAIRS": "vlab-msc my-board"}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", grouping], cwd=lab, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert (lab / "reports/branches.txt").read_text() == "my-board\nvlab-msc\n"
    assert (lab / "reports/locks.txt").read_text() == "hil-board-lab-pc hil-board-my-board\nhil-pair-vlab-msc\n"
    lock = next(step for step in jenkinsfile.steps if step.name == "lock")
    assert lock.function == "runBranch" and "hil-pair-" not in (lab / "Jenkinsfile").read_text()
    env["PAIRS"] = "no-such-pair"
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", grouping], cwd=lab, env=env, capture_output=True, text=True
    )
    assert done.returncode == 4 and "no pair matches no-such-pair" in done.stderr
