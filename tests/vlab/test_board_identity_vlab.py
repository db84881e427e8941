"""Every result names the board that measured it: a run on the virtual board stores what the board said it is
(hil.lab.board.identify) in results.json's facts and in the results database's board_identity."""

from __future__ import annotations

from sqlalchemy import select

from hil.db.engine import open_db
from hil.db.schema import Result
from tests.vlab.test_suite_run import run_pytest


def test_a_result_on_the_virtual_board_carries_its_identity_into_the_database(tmp_path, vlab_subprocess_env):
    out, db = tmp_path / "reports", f"sqlite:///{tmp_path / 'runs.db'}"
    selection = ["testcases/usb_device/test_msc.py", "-k", "read and 1M", "--samples", "2", "--board", "vlab-hs"]
    proc = run_pytest([*selection, "--hil-db", db], vlab_subprocess_env, out)
    # 1: a gate verdict (on a busy lab PC the rate is UNSTABLE): the identity goes with any verdict
    assert proc.returncode in (0, 1), proc.stdout[-6000:] + proc.stderr[-2000:]

    with open_db(db, create=False).connect() as connection:
        identities = connection.execute(select(Result.metric, Result.board_identity)).all()
    assert identities, "no result stored"
    for metric, identity in identities:
        # QEMU's q35 machine: its DMI product; no serial (QEMU sets none) and no Ethernet at boot: both absent
        assert identity["model.vboard"] == "Standard PC (Q35 + ICH9, 2009)", metric
        assert identity["arch.vboard"] == "x86_64" and identity["kernel.vboard"], metric
        assert "serial.vboard" not in identity and "mac.vboard" not in identity, identity
        assert all(isinstance(value, str) for value in identity.values()), identity
