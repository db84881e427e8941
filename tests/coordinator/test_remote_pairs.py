"""Pairs on places: reserved through the coordinator, locked while their tests run, always released."""

from __future__ import annotations

import getpass
import signal
import socket
import time

import pytest

from hil.lab.board import holders

from .conftest import RECORDING_TEST, HilRun, remote_pair, wait_until

ME = f"{socket.gethostname()}/{getpass.getuser()}"  # how the coordinator names a client of this host

BOOT_TEST = """
import json, os

def test_uname(pair):
    kernel = pair.device.run("uname -r").strip()
    with open(os.environ["RECORD"], "a") as log:
        log.write(json.dumps({"kernel": kernel, "facts": pair.facts.to_dict()}) + "\\n")
"""


def test_a_pair_on_a_place_boots_and_runs_a_command(hil_run: HilRun):
    hil_run.write({"remote": remote_pair({"tags": {"kind": "vlab"}})}, BOOT_TEST)

    result = hil_run.run()

    assert result.returncode == 0, result.stdout + result.stderr
    [record] = hil_run.records()
    assert record["kernel"]
    assert record["facts"]["place.vboard"] in ("vboard-1 (exporter hil-vlab)", "vboard-2 (exporter hil-vlab)")
    assert record["facts"]["coordinator"] == hil_run.lab.address
    place = record["facts"]["place.vboard"]
    assert record["facts"]["lab"] == f"places {place} on coordinator {hil_run.lab.address}"  # the report's lab row


@pytest.fixture(scope="module")
def parallel_and_waiting(tmp_path_factory: pytest.TempPathFactory, lab) -> list[dict]:
    """Run A: two pairs with `-n 2`, each holding a place for a while; run C starts once both are held."""
    assert lab.acquired() == {}
    run_a = HilRun(tmp_path_factory.mktemp("run-a"), lab)
    run_c = HilRun(tmp_path_factory.mktemp("run-c"), lab)
    pairs = {name: remote_pair({"tags": {"kind": "vlab"}}) for name in ("pair-a1", "pair-a2")}
    run_a.write(pairs, RECORDING_TEST)
    run_c.write({"pair-c": remote_pair({"tags": {"kind": "vlab"}})}, RECORDING_TEST)
    run_c.records_path.unlink(missing_ok=True)

    first = run_a.start("-n", "2", RUN="A", HOLD_S="8")
    wait_until(lambda: len(lab.acquired()) == 2, 90, "run A holding both places")
    third = run_c.start(RUN="C")
    out_a, _ = first.communicate(timeout=300)
    out_c, _ = third.communicate(timeout=300)
    assert first.returncode == 0, out_a
    assert third.returncode == 0, out_c
    records = run_a.records() + [dict(r, run="C") for r in run_c.records()]
    assert lab.acquired() == {} and lab.reservations() == ""
    return records


def test_two_workers_run_in_parallel_each_on_its_own_place(parallel_and_waiting: list[dict]):
    a1, a2 = sorted((r for r in parallel_and_waiting if r["run"] == "A"), key=lambda r: r["pair"])
    assert {a1["worker"], a2["worker"]} == {"gw0", "gw1"}
    assert a1["place"] != a2["place"]
    assert max(a1["start"], a2["start"]) < min(a1["end"], a2["end"]), "the pairs did not overlap in time"


def test_a_third_run_waits_for_a_place_instead_of_sharing_it(parallel_and_waiting: list[dict]):
    run_a = [r for r in parallel_and_waiting if r["run"] == "A"]
    [c] = [r for r in parallel_and_waiting if r["run"] == "C"]
    # C's test began only after one of A's pairs had finished with its place (and released it).
    assert c["start"] >= min(r["end"] for r in run_a)
    assert c["place"] in {r["place"] for r in run_a}


def test_a_place_held_past_the_bound_is_an_error_naming_the_holder(hil_run: HilRun):
    lab = hil_run.lab
    lab.client("-p", "vboard-1", "acquire", user="colleague")
    try:
        hil_run.write({"remote": remote_pair({"name": "vboard-1"})}, RECORDING_TEST, wait_s=3)
        started = time.monotonic()
        result = hil_run.run(RUN="X")
        elapsed = time.monotonic() - started
    finally:
        lab.client("-p", "vboard-1", "release", user="colleague")
    assert result.returncode == 6, result.stdout  # an ERROR, no failed gate: a lab fault (docs/failures.md)
    assert "1 error" in result.stdout
    assert "no place matching name=vboard-1 became free within 3 s" in result.stdout
    assert "vboard-1 is acquired by " in result.stdout and "/colleague" in result.stdout
    assert hil_run.records() == []
    assert elapsed < 60


def test_places_are_free_again_after_a_failing_test(hil_run: HilRun):
    failing = RECORDING_TEST + "\n\ndef test_fails(board_pair):\n    assert False, 'the board said no'\n"
    hil_run.write({"remote": remote_pair({"tags": {"kind": "vlab"}})}, failing)

    result = hil_run.run(RUN="F")

    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 passed" in result.stdout
    # free_lab checks after the test that no place is held and no reservation is left


def test_places_are_free_again_after_sigterm_of_the_run(hil_run: HilRun):
    hil_run.write({"remote": remote_pair({"tags": {"kind": "vlab"}})}, RECORDING_TEST)
    run = hil_run.start(RUN="T", HOLD_S="120")
    wait_until(lambda: len(hil_run.lab.acquired()) == 1, 90, "the run holding a place")

    run.send_signal(signal.SIGTERM)
    output, _ = run.communicate(timeout=60)

    assert run.returncode == 2, output
    assert "KeyboardInterrupt" in output or "SIGTERM" in output
    # free_lab checks after the test that no place is held and no reservation is left


def test_places_are_free_again_after_sigterm_of_a_run_with_two_workers(hil_run: HilRun):
    # A pipeline abort signals the controller; pytest-xdist then shuts its workers down, which must still
    # release what they hold.
    pairs = {name: remote_pair({"tags": {"kind": "vlab"}}) for name in ("pair-1", "pair-2")}
    hil_run.write(pairs, RECORDING_TEST)
    run = hil_run.start("-n", "2", RUN="T2", HOLD_S="120")
    wait_until(lambda: len(hil_run.lab.acquired()) == 2, 90, "the run holding both places")

    run.send_signal(signal.SIGTERM)
    output, _ = run.communicate(timeout=90)

    assert run.returncode == 2, output
    # free_lab checks after the test that no place is held and no reservation is left


def test_the_place_of_a_killed_run_goes_to_the_next_run_of_this_host(hil_run: HilRun):
    # SIGKILL leaves no chance to release: labgrid keeps the place acquired. The next hil run of this host
    # and user finds the holder's process gone and releases it (docs/shared-lab.md).
    lab = hil_run.lab
    hil_run.write({"remote": remote_pair({"name": "vboard-1"})}, RECORDING_TEST, wait_s=60)
    killed = hil_run.start(RUN="K", HOLD_S="300")
    wait_until(lambda: "vboard-1" in lab.acquired(), 90, "the run holding vboard-1")
    killed.kill()
    killed.communicate(timeout=30)
    time.sleep(2)
    holder = lab.acquired()["vboard-1"]  # still acquired by the dead run

    started = time.monotonic()
    result = hil_run.run(RUN="N")
    elapsed = time.monotonic() - started

    assert result.returncode == 0, result.stdout
    [record] = hil_run.records()
    assert (record["run"], record["place"]) == ("N", "vboard-1 (exporter hil-vlab)")
    assert elapsed < 45  # a run of its own (about 10 s here), not the 60 s bound nor labgrid's expiry
    assert holder == ME
    assert holders.read(lab.address, "vboard-1") is None  # N's own record went with its release
    # free_lab checks after the test that no place is held and no reservation is left


def test_the_place_of_a_live_run_of_this_host_is_not_taken(hil_run: HilRun):
    lab = hil_run.lab
    hil_run.write({"remote": remote_pair({"name": "vboard-1"})}, RECORDING_TEST, wait_s=3)
    live = hil_run.start(RUN="L", HOLD_S="300")
    try:
        wait_until(lambda: "vboard-1" in lab.acquired(), 90, "the run holding vboard-1")
        result = hil_run.run(RUN="M")
        assert result.returncode == 6, result.stdout
        assert f"vboard-1 is acquired by {ME}" in result.stdout
        assert "vboard-1" in lab.acquired()
    finally:
        live.send_signal(signal.SIGTERM)
        live.communicate(timeout=60)
    assert [r["run"] for r in hil_run.records()] == []  # L was stopped while holding, M never got the place


def _token(printed: str) -> str:
    assert printed.startswith("export LG_TOKEN="), printed
    return printed.strip().split("=", 1)[1]


def test_a_reservation_made_with_labgrid_client_is_used_and_stays_the_users(hil_run: HilRun):
    # The labgrid way: `eval $(labgrid-client reserve --wait --shell ...)`, then the run on LG_TOKEN's place.
    lab = hil_run.lab
    token = _token(lab.client("reserve", "--wait", "--shell", "name=vboard-2"))
    try:
        hil_run.write({"remote": remote_pair({"tags": {"kind": "vlab"}})}, RECORDING_TEST)
        result = hil_run.run(RUN="T", LG_TOKEN=token)
        assert result.returncode == 0, result.stdout
        [record] = hil_run.records()
        assert record["place"] == "vboard-2 (exporter hil-vlab)"
        assert lab.acquired() == {}  # hil locked it for the run and released it
        assert f"Reservation '{token}'" in lab.reservations()  # the reservation is the user's to cancel
    finally:
        lab.client("cancel-reservation", token)


def test_a_place_acquired_by_hand_is_used_and_left_acquired(hil_run: HilRun):
    lab = hil_run.lab
    lab.client("-p", "vboard-1", "acquire")
    try:
        hil_run.write({"remote": remote_pair({"tags": {"kind": "vlab"}})}, RECORDING_TEST)
        result = hil_run.run(RUN="P", LG_PLACE="vboard-1")
        assert result.returncode == 0, result.stdout
        assert [r["place"] for r in hil_run.records()] == ["vboard-1 (exporter hil-vlab)"]
        assert lab.acquired() == {"vboard-1": ME}  # the user's lock, kept
    finally:
        lab.client("-p", "vboard-1", "release")


def test_lg_place_that_does_not_suit_the_pair_is_an_error_not_another_board(hil_run: HilRun):
    hil_run.write({"remote": remote_pair({"name": "vboard-1"})}, RECORDING_TEST)

    result = hil_run.run(RUN="W", LG_PLACE="vboard-2")

    assert result.returncode == 6, result.stdout
    assert "LG_PLACE=vboard-2 is place vboard-2" in result.stdout and "does not match name=vboard-1" in result.stdout
    assert hil_run.records() == []
