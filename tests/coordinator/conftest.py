"""The virtual lab behind a coordinator on loopback (`python -m hil.vlab.lab`), and nested hil runs on it.

The lab is started once per session with two places and stopped at the end; each test checks that it
left both places free, so a test that leaks a lock fails where it leaked. Tests on scheduling use
`board_pair` alone (reservation and lock, no boot): only the test that proves a pair boots on a
place and the MSC timing start QEMU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from hil.services import read_state

REPO = Path(__file__).resolve().parents[2]
REMOTE_ENV = REPO / "hil" / "vlab" / "remote-env.yaml"
LINK = {
    "type": "usb",
    "speed": "high",
    "udc": "dummy_udc.0",
    "driver": {"module": "dummy_hcd", "params": {"is_super_speed": False}},
    "emulated": True,
}


def lab_command(run_dir: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hil.vlab.lab", "--run-dir", str(run_dir), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@dataclass
class Lab:
    run_dir: Path
    address: str

    def client(self, *args: str, user: str | None = None) -> str:
        """labgrid-client against this lab, as another user when `user` is given (a colleague)."""
        env = dict(os.environ)
        if user:
            env["LG_USERNAME"] = user
        result = subprocess.run(
            [str(Path(sys.executable).parent / "labgrid-client"), "-x", self.address, *args],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def acquired(self) -> dict[str, str]:
        """Place -> who holds it, for the places held now."""
        held = {}
        for name in ("vboard-1", "vboard-2"):
            for line in self.client("-p", name, "show").splitlines():
                if line.startswith("  acquired:") and line.split(":", 1)[1].strip() != "None":
                    held[name] = line.split(":", 1)[1].strip()
        return held

    def reservations(self) -> str:
        return self.client("reservations").strip()


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    run_dir = tmp_path_factory.mktemp("lab")
    started = lab_command(run_dir, "start", "--places", "2")
    assert started.returncode == 0, started.stdout + started.stderr
    state = read_state(run_dir)
    assert state is not None
    try:
        yield Lab(run_dir, state["coordinator"])
    finally:
        lab_command(run_dir, "stop")


@pytest.fixture
def free_lab(lab: Lab) -> Iterator[Lab]:
    """The lab, checked to have both places free and no reservation before and after the test."""
    assert lab.acquired() == {} and lab.reservations() == ""
    yield lab
    assert lab.acquired() == {}, "a place is still held after the test"
    assert lab.reservations() == "", "a reservation is left after the test"


def remote_pair(place: dict) -> dict:
    return {
        "env": str(REMOTE_ENV),
        "roles": {"host": {"target": "vboard", "place": place}, "device": {"target": "vboard", "place": place}},
        "link": LINK,
    }


# A test file for nested runs: logs which place each test ran on, when, on which worker.
RECORDING_TEST = """
import json, os, time

def test_hold(board_pair):
    start = time.time()
    time.sleep(float(os.environ.get("HOLD_S", "0")))
    record = {"run": os.environ["RUN"], "pair": board_pair.name, "worker": os.environ.get("PYTEST_XDIST_WORKER"),
              "place": board_pair.facts.board("vboard").identity.place, "start": start, "end": time.time()}
    with open(os.environ["RECORD"], "a") as log:
        log.write(json.dumps(record) + "\\n")
"""


@dataclass
class HilRun:
    directory: Path
    lab: Lab

    def write(self, pairs: dict, tests: str, wait_s: float = 60) -> None:
        inventory = {"coordinator": {"wait_s": wait_s}, "pairs": pairs}
        (self.directory / "boards.yaml").write_text(yaml.safe_dump(inventory))
        (self.directory / "test_remote.py").write_text(tests)

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LG_"))}
        env.update(LG_COORDINATOR=self.lab.address, RECORD=str(self.records_path), **extra)
        return env

    @property
    def records_path(self) -> Path:
        return self.directory / "records.jsonl"

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--boards", "boards.yaml", *args]

    def start(self, *args: str, **env: str) -> subprocess.Popen:
        return subprocess.Popen(
            self.command(*args),
            cwd=self.directory,
            env=self.env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def run(self, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            self.command(*args),
            cwd=self.directory,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def records(self) -> list[dict]:
        if not self.records_path.is_file():
            return []
        return [json.loads(line) for line in self.records_path.read_text().splitlines()]


@pytest.fixture
def hil_run(tmp_path: Path, free_lab: Lab) -> HilRun:
    return HilRun(tmp_path, free_lab)


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.3)
