"""`python -m hil.vlab.lab`: a coordinator with tagged places whose resources the exporter serves."""

from __future__ import annotations

import time
import urllib.request
from pathlib import Path

from hil.services import read_state

from .conftest import Lab, lab_command


def test_places_are_tagged_and_match_the_exporters_console_and_power(lab: Lab):
    for name in ("vboard-1", "vboard-2"):
        shown = lab.client("-p", name, "show")
        assert "tags: board=" + name + ", kind=vlab" in shown
        assert f"hil-vlab/{name}/NetworkSerialPort" in shown
        assert f"hil-vlab/{name}/NetworkPowerPort" in shown
        assert "'model': 'simplerest'" in shown and "'protocol': 'raw'" in shown


def test_a_second_start_is_refused_while_the_lab_runs(lab: Lab):
    again = lab_command(lab.run_dir, "start", "--places", "2")
    assert again.returncode == 1
    assert "already running" in again.stderr


def test_stop_leaves_nothing_running_even_a_powered_board(tmp_path: Path):
    assert lab_command(tmp_path, "start", "--places", "1").returncode == 0
    state = read_state(tmp_path)
    power = f"http://127.0.0.1:{state['power_port']}/power/vboard-1"
    assert urllib.request.urlopen(power + "/1", timeout=10).read() == b"1"  # QEMU started
    deadline = time.monotonic() + 30  # the service answers once it has spawned QEMU, which then execs
    while not (qemu := [pid for pid in _pids() if str(tmp_path) in _cmdline(pid)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert qemu, "the board's QEMU did not start"
    # A pid may be reused at once on a busy machine (pid_max can be 32768): a process is its pid and command.
    started = {pid: _cmdline(pid) for pid in state["pids"].values()}

    stopped = lab_command(tmp_path, "stop")

    assert stopped.returncode == 0
    assert "exporter, power, coordinator" in stopped.stdout
    still = [pid for pid, command in started.items() if command and _cmdline(pid) == command]
    leftover = [pid for pid in _pids() if str(tmp_path) in _cmdline(pid)] + still
    assert leftover == []
    assert lab_command(tmp_path, "status").returncode == 1


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
