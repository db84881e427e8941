"""docs/boards-yaml.md: boards.yaml "is validated before any board is touched". Each bad input the issues name is tried
in a real pytest run whose virtual board's QEMU is a probe: a script that records being started. The run
must stop with a usage error naming the key, the probe must never have run, and no process of the run
may be left in (or ever appear in) the process table.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import ENV_YAML, MISSING_QEMU

REPO = Path(__file__).resolve().parents[2]
TOKEN = "hil-inventory-probe-qemu"


def _token(lab: Path) -> str:
    """The probe's name in the process table, one per lab: the tests run in parallel (xdist), and the control
    run's probe must not count as one of a bad-inventory run next to it."""
    return f"{TOKEN}-{hashlib.sha256(str(lab).encode()).hexdigest()[:12]}"


VALID = """\
pairs:
  vpair:
    env: env.yaml
    roles:
      host: {target: vboard}
      device: {target: vboard}
    link: {type: usb, speed: high, udc: dummy_udc.0}
    settings:
      msc.backing_mb: 64
      msc.transfer_mb: 32
      msc.fs_transfer_mb: 32
    metrics:
      usb.msc.read: {unit: MB/s, min: 8}
"""

TEST_FILE = """
import pytest

@pytest.mark.hil_metrics("usb.msc.read")
def test_needs_a_pair(pair):
    pass
"""

BAD = {
    "misspelt metric": ("usb.msc.read: {", "usb.msc.raed: {", "metrics/usb.msc.raed: unknown metric"),
    "misspelt setting": ("msc.transfer_mb: 32", "msc.transfr_mb: 32", "settings/msc.transfr_mb: unknown setting"),
    "setting of the wrong type": ("msc.transfer_mb: 32", "msc.transfer_mb: lots", "settings/msc.transfer_mb"),
    "transfer larger than its backing store": (
        "msc.transfer_mb: 32",
        "msc.transfer_mb: 128",
        "msc.transfer_mb (128) is larger than msc.backing_mb (64)",
    ),
    "low-speed link": ("speed: high", "speed: low", "link/speed: USB speed 'low' has no ceiling"),
    "super-plus link": ("speed: high", "speed: super-plus", "USB speed 'super-plus' has no ceiling"),
    "band in an incompatible unit": ("unit: MB/s", "unit: fps", "'fps' does not measure a data rate"),
    "control character in a setting": ("msc.transfer_mb: 32", 'msc.transfer_mb: "3\\x152"', "control character"),
    "ambiguous max_cv": ("min: 8}", "min: 8, max_cv: 0.05}", "0.05 is ambiguous"),
}


@pytest.fixture
def probe_lab(tmp_path: Path) -> Path:
    """A lab whose QEMU is a probe: it notes that it was started, then idles where `ps` can see it."""
    marker = tmp_path / "qemu-started"
    probe = tmp_path / "qemu-probe"
    probe.write_text(f'#!/bin/bash\necho "$@" >> {marker}\nexec -a {_token(tmp_path)} sleep 20\n')
    probe.chmod(0o755)
    (tmp_path / "env.yaml").write_text(
        ENV_YAML.replace(MISSING_QEMU, str(probe)).replace("login_timeout: 5", "login_timeout: 2")
    )
    image = tmp_path / "image"
    image.mkdir()
    for name in ("vmlinuz", "initramfs.cpio"):  # present, so the driver gets as far as starting QEMU
        (image / name).write_bytes(b"")
    (tmp_path / "test_pair.py").write_text(TEST_FILE)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    return tmp_path


def _probes_running(lab: Path) -> list[int]:
    token = _token(lab).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def run_and_watch(lab: Path, boards: str) -> tuple[subprocess.CompletedProcess, int]:
    """Run pytest on the lab; return its result and how many probe processes were seen while it ran."""
    (lab / "boards.yaml").write_text(boards)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LG_"))}
    env["LG_HIL_VLAB_IMAGE"] = str(lab / "image")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--hil-reports={lab / 'reports'}"]
    proc = subprocess.Popen(
        [*command, "test_pair.py"], cwd=lab, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    seen: set[int] = set()
    while proc.poll() is None:
        seen.update(_probes_running(lab))
        time.sleep(0.02)
    output = proc.stdout.read() if proc.stdout else ""
    for pid in _probes_running(lab):  # a leftover from a failing control run: do not leak it
        os.kill(pid, 9)
    return subprocess.CompletedProcess(command, proc.returncode, output, ""), len(seen)


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_inventory_stops_the_run_before_any_qemu_starts(probe_lab, case):
    old, new, problem = BAD[case]
    assert VALID.count(old) == 1
    result, probes_seen = run_and_watch(probe_lab, VALID.replace(old, new))
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout
    assert "invalid board inventory" in result.stdout and problem in result.stdout, result.stdout
    assert not (probe_lab / "qemu-started").exists(), "the probe QEMU was started"
    assert probes_seen == 0 and _probes_running(probe_lab) == []


def test_control_the_same_lab_with_a_valid_inventory_starts_the_probe(probe_lab):
    """Without this, 'the probe never ran' above would prove nothing."""
    result, probes_seen = run_and_watch(probe_lab, VALID)
    assert (probe_lab / "qemu-started").exists(), result.stdout
    assert probes_seen >= 1, "the probe never showed in the process table while the run booted it"
