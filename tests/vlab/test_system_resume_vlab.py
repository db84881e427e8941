"""A suspend to RAM on the virtual board, end to end: the board wakes from S3 on its RTC and the USB disk's resume is
measured, then the next test's board boots the quick way again (hil.vlab.qemu: QEMU rewrites a kernel ELF it loaded
itself at the wake's reset, so a test that suspends the board boots its bzImage)."""

from __future__ import annotations

import json

from hil.vlab import ENV_FILE
from tests.vlab.test_suite_run import run_pytest

BOARDS = """
defaults: {{warmup: 0, min_samples: 2}}
pairs:
  vlab-sleeper:
    env: {env}
    vlab: true
    roles: {{host: {{target: vboard}}, device: {{target: vboard}}}}
    link: {{type: usb, speed: super, driver: {{module: xhci-pci}}, emulated: true}}
    settings: {{resume.serial: hil-vlab-bot, resume.wake_s: 2}}
    metrics:
      usb.resume.system: {{unit: ms, max: 60000, max_cv: 90%}}
      usb.resume.time: {{unit: ms, max: 60000, max_cv: 90%}}
"""


def test_the_board_wakes_from_a_suspend_to_ram_and_the_next_test_boots_it_the_quick_way(tmp_path, vlab_subprocess_env):
    boards = tmp_path / "boards.yaml"
    boards.write_text(BOARDS.format(env=ENV_FILE))
    out = tmp_path / "reports"
    case = "testcases/usb_host/test_usb_resume.py"
    args = ["--boards", str(boards), f"{case}::test_usb_system_resume", f"{case}::test_usb_runtime_resume"]
    proc = run_pytest([*args, "-k", "system or default", "--samples", "2"], vlab_subprocess_env, out)
    log = proc.stdout[-8000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, log

    results = {r["metric"]: r for r in json.loads((out / "results.json").read_text())["results"]}
    assert set(results) == {"usb.resume.system", "usb.resume.time"}, log
    assert all(r["verdict"] in ("PASS", "MARGINAL") and len(r["samples"]) == 2 for r in results.values()), log
    assert results["usb.resume.system"]["facts"]["sleep"].startswith("deep"), log
