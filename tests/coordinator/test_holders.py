"""hil.lab.board.holders: which process of this host holds a place, and whether it is still alive."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess

import pytest

from hil.lab.board import holders


@pytest.fixture(autouse=True)
def records_in(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again


def test_this_process_is_alive_and_its_record_round_trips():
    record = holders.HolderRecord.mine("127.0.0.1:1234", "vboard-1", "pc/alice", "TOKEN")
    holders.write(record)
    assert holders.read("127.0.0.1:1234", "vboard-1") == record
    assert holders.read("127.0.0.1:9999", "vboard-1") is None  # records are per coordinator
    assert record.pid == os.getpid() and record.alive()
    assert holders.records_dir().stat().st_mode & 0o777 == 0o700


def test_a_killed_process_is_dead_as_a_zombie_and_once_reaped():
    child = subprocess.Popen(["sleep", "60"])
    record = dataclasses.replace(
        holders.HolderRecord.mine("c", "p", "pc/alice", "T"), pid=child.pid, start=holders.process_start(child.pid)
    )
    assert record.start is not None and record.alive()
    os.kill(child.pid, signal.SIGKILL)
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # dead, not reaped: a zombie
    assert not record.alive()
    child.wait()
    assert not record.alive()


def test_a_reused_pid_is_not_the_holder():
    record = dataclasses.replace(holders.HolderRecord.mine("c", "p", "pc/alice", "T"), start="1")
    assert not record.alive()  # this pid, but started at another time


def test_remove_leaves_a_later_holders_record():
    first = holders.HolderRecord.mine("c", "vboard-1", "pc/alice", "T1")
    later = dataclasses.replace(first, token="T2")
    holders.write(first)
    holders.write(later)
    holders.remove(first)
    assert holders.read("c", "vboard-1") == later
    holders.remove(later)
    assert holders.read("c", "vboard-1") is None


def test_a_record_hil_did_not_write_proves_nothing():
    holders.records_dir().mkdir()
    path = holders.records_dir() / "c--vboard-1.json"
    path.write_text('{"pid": 1}')
    assert holders.read("c", "vboard-1") is None
    path.write_text("not json")
    assert holders.read("c", "vboard-1") is None
