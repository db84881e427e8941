"""`hil calibrate --runs 2` in a lab repository made by `hil init`: two sessions of the stock suite's MSC read on
the virtual lab pair vlab-msc (each its own boot), both stored in the lab's results database, and the pair's
band proposed from them as a diff of its boards.yaml."""

from __future__ import annotations

import subprocess
import sys

from hil.db.engine import open_db
from hil.db.read import history
from hil.labrepo import make
from tests.vlab.test_suite_run import REPO


def test_calibrate_runs_the_pair_twice_and_proposes_its_band_from_both(tmp_path, vlab_subprocess_env):
    lab = tmp_path / "lab"
    make(lab)
    env = {**vlab_subprocess_env, "PYTHONPATH": str(REPO)}  # this checkout's hil, in the lab's own directory
    selection = ["--samples", "3", "-k", "msc_throughput and read", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [sys.executable, "-m", "hil", "calibrate", "--board", "vlab-msc", "--runs", "2", *selection],
        cwd=lab,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    engine = open_db(f"sqlite:///{lab / 'reports' / 'hil.db'}", create=False)
    runs = history(engine)
    engine.dispose()
    assert len(runs) == 2 and all(r.run.command.count("--board vlab-msc") == 1 for r in runs)
    assert [[(x.board, x.metric) for x in r.results] for r in runs] == [[("vlab-msc", "usb.msc.read")]] * 2
    assert done.stdout.count("calibration run ") == 2 and "| `usb.msc.read[bs=1M]` |" in done.stdout
    diff = (lab / "reports" / "calibrate-vlab-msc.diff").read_text()
    for run in runs:
        assert run.run.id in diff
    assert "+        run_spread: " in diff and "-        min: 4\n" in diff
