"""`hil init DIR`: the lab repository it makes validates with hil's own loader, pins this hil and never
overwrites a lab's files. tests/distribution/test_wheel.py runs it from an installed wheel on the virtual lab."""

from __future__ import annotations

import subprocess
import sys

from hil import __version__
from hil.inventory.loader import load_inventory
from hil.labrepo import make


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
    assert f"hil=={__version__}\n" in (lab / "requirements.txt").read_text()
    assert "@HIL_VERSION@" not in (lab / "README.md").read_text() + (lab / "requirements.txt").read_text()


def test_init_never_overwrites_a_lab_file(tmp_path):
    (tmp_path / "boards.yaml").write_text("ours\n")
    done = subprocess.run(
        [sys.executable, "-m", "hil", "init", str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 4 and "already has boards.yaml" in done.stderr and "nothing was written" in done.stderr
    assert (tmp_path / "boards.yaml").read_text() == "ours\n"
    assert not (tmp_path / "env.yaml").exists()


def test_make_returns_every_file_it_wrote(tmp_path):
    written = make(tmp_path / "new" / "lab")
    assert all(path.is_file() for path in written) and len(written) == 7
