"""requirements.lock is what hil is tested with: it satisfies pyproject.toml's ranges, pins every file by
hash, names nothing of the machine that wrote it, and is what this environment runs (scripts/setup.sh
installs from it, so the whole test suite tests the lock)."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^ \\]+)")


def _locked(lock: str = "requirements.lock") -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) of every package in the lock."""
    locked: dict[str, tuple[str, int]] = {}
    name = None
    for line in (REPO / lock).read_text().splitlines():
        match = PIN.match(line)
        if match:
            name = canonicalize_name(match.group(1))
            locked[name] = (match.group(2), 0)
        elif name and line.strip().startswith("--hash=sha256:"):
            version, hashes = locked[name]
            locked[name] = (version, hashes + 1)
    return locked


def _requirements() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return [Requirement(text) for text in [*project["dependencies"], *project["optional-dependencies"]["dev"]]]


def test_the_lock_satisfies_every_range_of_pyproject():
    locked = _locked()
    unmet = []
    for requirement in _requirements():
        version = locked.get(canonicalize_name(requirement.name), (None, 0))[0]
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            unmet.append(f"{requirement} (locked: {version})")
    assert not unmet, (
        "requirements.lock does not satisfy pyproject.toml (run pip-compile, see docs/running.md): " + ", ".join(unmet)
    )


def test_every_locked_package_is_pinned_by_hash_and_the_lock_names_no_machine():
    locked = _locked()
    assert len(locked) > 20
    assert all(hashes > 0 for _, hashes in locked.values()), [n for n, (_, h) in locked.items() if h == 0]
    text = (REPO / "requirements.lock").read_text()
    assert not re.search(r"(/tmp/|/home/|/root/|/work/|--find-links|--index-url|--constraint)", text)


def test_this_environment_runs_the_locked_versions():
    wrong = []
    for name, (version, _) in _locked().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            wrong.append(f"{name} not installed")
            continue
        if installed != version:
            wrong.append(f"{name} {installed} (locked {version})")
    assert not wrong, "the environment was not installed from requirements.lock (scripts/setup.sh): " + ", ".join(wrong)


def test_a_labs_lock_is_the_same_versions_without_the_development_extra():
    """requirements-run.lock (pip-compile of pyproject.toml constrained by requirements.lock, no extra) is what
    a lab's runs load: the tested versions, every file by hash, and no test-only package as a pytest plugin."""
    full, run = _locked(), _locked("requirements-run.lock")
    assert all(hashes > 0 for _, hashes in run.values())
    assert {name: version for name, (version, _) in run.items()} == {name: full[name][0] for name in run}
    dev_only = {canonicalize_name(Requirement(text).name) for text in ("hypothesis", "pytest-postgresql", "selenium")}
    assert not dev_only & run.keys()
    text = (REPO / "requirements-run.lock").read_text()
    assert not re.search(r"(/tmp/|/home/|/root/|/work/|--find-links|--index-url)", text)
