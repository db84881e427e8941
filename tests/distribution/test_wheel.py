"""A BSP team keeps its own inventory and suite in its own repository and installs a released hil: the wheel
`python -m build` makes installs into a clean environment and runs, as a pytest plugin, a suite and an
inventory that live outside hil's repository (here: one MSC case on the virtual lab, whose labgrid
environment the inventory takes from the installed package, `env: hil:vlab/env.yaml`)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import readme

REPO = Path(__file__).resolve().parents[2]
# docs/lab-repository.md's commands, from a released hil to a first run on the virtual lab.
FIRST_RUN = ("**From a released hil to a first run**", "Your lab repository")


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with hil installed from the wheel built from this checkout (dependencies: a lab's lock,
    requirements-run.lock: the tested versions without the development extra)."""
    work = tmp_path_factory.mktemp("wheel")
    built = _run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(work / "dist"), str(REPO)]
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheels = list((work / "dist").glob("hil-*.whl"))
    assert len(wheels) == 1, wheels
    release = work / "release"  # where a lab keeps the release's wheel it installed (hil init copies it from there)
    release.mkdir()
    wheels = [Path(shutil.move(wheels[0], release))]
    venv = work / "venv"
    assert _run(["/usr/bin/python3", "-m", "venv", str(venv)]).returncode == 0
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    for step in (
        [*pip, "--require-hashes", "-r", str(REPO / "requirements-run.lock")],
        [*pip, "--no-deps", str(wheels[0])],
    ):
        done = _run(step)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    shutil.rmtree(work / "dist")
    return venv


def test_the_wheel_carries_the_stock_suite_the_virtual_lab_the_board_programs_and_its_license(installed):
    site = next((installed / "lib").glob("python3*/site-packages/hil"))
    for name in ("vlab/env.yaml", "vlab/init.sh", "tools/Makefile", "tools/uvc_frames.h", "tools/v4l2_fps.c"):
        assert (site / name).is_file(), name
    # The stock suite ships as hil_testcases (testcases/ of the repository), its conftest files with it.
    for name in ("__init__.py", "usb_device/test_msc.py", "usb_host/conftest.py", "pcie/conftest.py"):
        assert (site.parent / "hil_testcases" / name).is_file(), name
    assert not (site.parent / "testcases").exists() and not (site.parent / "tests").exists()
    (dist_info,) = site.parent.glob("hil-*.dist-info")
    metadata = (dist_info / "METADATA").read_text()
    assert "License-Expression: MIT" in metadata and "Classifier: Framework :: Pytest" in metadata
    # The long description is the page a user of the released package follows: hil init, hil run.
    assert "Description-Content-Type: text/markdown" in metadata and "hil init lab" in metadata
    assert (dist_info / "licenses" / "LICENSE").is_file()


def test_the_hil_command_answers_help_for_every_subcommand(installed):
    from hil.cli import COMMANDS

    top = _run([str(installed / "bin" / "hil"), "--help"])
    assert top.returncode == 0 and all(name in top.stdout for name in COMMANDS), top.stdout
    for name in COMMANDS:
        sub = _run([str(installed / "bin" / "hil"), name, "--help"])
        assert sub.returncode == 0 and sub.stdout.startswith(f"usage: hil {name}"), (name, sub.stdout, sub.stderr)


def test_a_lab_made_by_hil_init_runs_the_stock_suite_and_its_own_case(installed, tmp_path):
    """The one test that boots the virtual board from the installed package: docs/lab-repository.md's
    commands as written (`hil setup`, `hil init lab` outside the checkout, nothing edited, `cd lab`, `hil run`): the
    stock suite's MSC read case and the lab's own case in one run (one boot)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LG_", "VIRTUAL_ENV"))}
    env["PATH"] = f"{installed / 'bin'}:{env['PATH']}"
    commands = readme.commands_after(*FIRST_RUN)
    assert [argv[:2] for argv in commands if argv[0] == "hil"] == [["hil", "setup"], ["hil", "init"], ["hil", "run"]]
    cwd = tmp_path
    for argv in commands:
        if argv[0] == "cd":
            cwd = cwd / argv[1]
        elif argv[0] == "hil":
            run = _run(argv, cwd=cwd, env=env, timeout=900)
            assert run.returncode == 0, f"{argv}: " + run.stdout[-4000:] + run.stderr[-2000:]
    lab = tmp_path / "lab"
    reports = lab / "reports"
    assert (reports / "report.html").is_file() and (reports / "junit.xml").is_file()  # without a pytest.ini of hil's
    assert (reports / "hil.db").is_file()  # the run stored in the results database's default
    results = json.loads((reports / "results.json").read_text())["results"]
    # Measured and judged by the installed plugin: PASS, or MARGINAL when three samples on a loaded machine
    # leave a confidence interval that straddles the floor (CI, 2026-11-26); both exit 0.
    assert sorted((r["board"], r["metric"], r["test_id"].split("::")[-1].split("[")[0]) for r in results) == [
        ("vlab-msc", "usb.msc.read", "test_msc_throughput"),
        ("vlab-msc", "usb.msc.read", "test_own_msc_read"),
    ], results
    assert all(r["verdict"] in ("PASS", "MARGINAL") for r in results), [r["reason"] for r in results]
    # Only hil's runtime loads: no test-only plugin of hil's development (hypothesis, pytest-postgresql), and
    # nothing pytest had to leave unrewritten.
    said = run.stdout + run.stderr
    plugins = [line for line in said.splitlines() if line.startswith("plugins:")]
    assert plugins and not any(name in plugins[0] for name in ("hypothesis", "postgresql")), plugins
    assert "PytestAssertRewriteWarning" not in said, said[-3000:]
    assert str(REPO) not in (reports / "results.json").read_text()  # nothing came from the checkout
    # The lab installs this hil from its wheel, copied into wheels/, every file checked by its SHA-256 (a bare
    # `hil==0.1.0` installed whatever an index serves as hil); pip takes the file as written, and refuses another.
    (wheel,) = (lab / "wheels").glob("hil-*.whl")
    sha256 = hashlib.sha256(wheel.read_bytes()).hexdigest()
    requirements = (lab / "requirements.txt").read_text()
    assert f"\n./wheels/{wheel.name} --hash=sha256:{sha256}\n" in requirements and "\nhil==" not in requirements
    # hil's line alone (the lock's lines installed this venv, --require-hashes, in the fixture)
    (lab / "hil-line.txt").write_text(next(line for line in requirements.splitlines() if line.startswith("./wheels/")))
    pip = [str(installed / "bin" / "python"), "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-deps"]
    taken = _run([*pip, "-r", "hil-line.txt"], cwd=lab)
    assert taken.returncode == 0 and "Would install hil-" in taken.stdout, taken.stdout[-3000:] + taken.stderr[-3000:]
    wheel.write_bytes(wheel.read_bytes() + b"\0")  # another file under its name
    refused = _run([*pip, "-r", "hil-line.txt"], cwd=lab)
    assert refused.returncode != 0 and "DO NOT MATCH THE HASHES" in refused.stderr, refused.stderr[-3000:]
