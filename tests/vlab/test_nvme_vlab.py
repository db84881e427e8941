"""The NVMe suite on the virtual board's QEMU NVMe, end to end: one short RND4K read case measured from
fio's JSON (rate, IOPS and p99 from the same runs), and a pair whose link is specified above what the
board trains at, which is an error naming both before anything is measured.
"""

from __future__ import annotations

import json

import pytest

from hil.vlab import ENV_FILE
from tests.vlab.test_suite_run import junit_cases, run_pytest

BOARDS = """
pairs:
  vlab-nvme:
    env: {env}
    vlab: true
    roles: {{rc: {{target: vboard}}}}
    link: {{type: pcie, gen: 1, lanes: 1, emulated: true}}
    settings: {{nvme.size_mb: 128, nvme.runtime_s: 2}}
    metrics:
      nvme.rnd4k_q32t1.read: {{min: 0.1, max: 100000, max_cv: 90%}}
      nvme.rnd4k_q32t1.read_iops: {{min: 10, max: 100000000, max_cv: 90%}}
      nvme.rnd4k_q32t1.read_p99: {{unit: s, max: 10, max_cv: 90%}}
  vlab-nvme-gen3:
    env: {env}
    vlab: true
    roles: {{rc: {{target: vboard}}}}
    # a real board's declaration (not emulated): QEMU's NVMe trains at 2.5 GT/s x1
    link: {{type: pcie, gen: 3, lanes: 4}}
    settings: {{nvme.size_mb: 128, nvme.runtime_s: 2}}
    metrics:
      nvme.rnd4k_q32t1.read: {{min: 0.1}}
"""


def test_rnd4k_read_is_measured_from_fio_json_and_a_slow_link_is_an_error(tmp_path, vlab_subprocess_env):
    boards = tmp_path / "boards.yaml"
    boards.write_text(BOARDS.format(env=ENV_FILE))
    out = tmp_path / "reports"
    args = ["--boards", str(boards), "testcases/storage/test_nvme.py", "-k", "rnd4k and read", "--samples", "3"]
    proc = run_pytest(args, vlab_subprocess_env, out)
    log = proc.stdout[-8000:] + proc.stderr[-2000:]
    assert proc.returncode == 6, log  # the slow link is a lab fault (ERROR) and no gate failed

    results = json.loads((out / "results.json").read_text())["results"]
    measured = {r["metric"]: r for r in results}
    assert [r["board"] for r in results] == ["vlab-nvme"] * 3, log
    assert set(measured) == {"nvme.rnd4k_q32t1.read", "nvme.rnd4k_q32t1.read_iops", "nvme.rnd4k_q32t1.read_p99"}
    rate, iops = measured["nvme.rnd4k_q32t1.read"], measured["nvme.rnd4k_q32t1.read_iops"]
    assert all(len(r["samples"]) == 3 for r in results), log
    # Rate and IOPS pass; a p99 of three 2 s runs spreads by up to 92% (a CI run, 2026-11-25): MARGINAL then.
    assert rate["verdict"] == iops["verdict"] == "PASS", log
    assert measured["nvme.rnd4k_q32t1.read_p99"]["verdict"] in ("PASS", "MARGINAL"), log
    for mb_s, ios in zip(rate["samples"], iops["samples"], strict=True):
        assert '"fio version"' in mb_s["raw"] and mb_s["details"]["engine"] == "libaio"
        assert mb_s["value"] * 1e6 / ios["value"] / 4096 == pytest.approx(1, abs=0.02), "rate and IOPS of one run"
    assert measured["nvme.rnd4k_q32t1.read_p99"]["unit"] == "ms"
    facts = rate["facts"]
    assert facts["fio_engine"] == "libaio (queue depth 32)"
    assert facts["link_speed"].startswith("Gen1 x1 (2.5 GT/s") and "emulated: not checked" in facts["link_speed"]
    assert facts["nvme_drive"].startswith("QEMU NVMe Ctrl (serial hil-vlab-nvme")

    case = "test_nvme_crystaldiskmark[target=raw-vlab-nvme-gen3-rnd4k_q32t1-read]"
    error = junit_cases(out / "junit.xml")[case].find("error")
    assert error is not None, log
    assert "trained at Gen1 x1" in error.get("message") and "below the specified Gen3 x4" in error.get("message"), log
