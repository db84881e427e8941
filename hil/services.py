"""Background services a lab on this PC runs (the virtual lab's coordinator and board service, the
rehearsal bench): started detached, waited for, and stopped with a bound, by the pids their state records.

A process is recorded with its start time (`/proc/<pid>/stat`), so a pid the kernel gave to someone else
after a reboot or a long time is never taken for the service and never signalled.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# The process name (comm) of a lab service's board emulator, which the PC's load guard (hil.measure.pcload) counts
# as the lab's own boards, not as foreign load.
EMULATOR_PREFIX = "hil-emu"


def emulator_name(board: str) -> str:
    """QEMU's `-name` for the lab service's emulator of `board`: the board's name, its process named as the lab's."""
    return f"{board},process={EMULATOR_PREFIX}-{board}"


class ServiceError(RuntimeError):
    """A service cannot be started or stopped as asked; the message says why."""


def default_run_dir(name: str) -> Path:
    return Path(tempfile.gettempdir()) / f"{name}-{os.getuid()}"


def read_state(run_dir: Path) -> dict | None:
    """The state.json a lab service's command keeps in its run directory, None when it has none."""
    path = run_dir / "state.json"
    return json.loads(path.read_text()) if path.is_file() else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def spawn(command: list[str], run_dir: Path, log_name: str, cwd: Path | None = None) -> int:
    """A process in its own session (process group = its pid), detached from this command's terminal."""
    with (run_dir / log_name).open("ab") as logfile:
        process = subprocess.Popen(
            command,
            cwd=cwd or run_dir,
            stdin=subprocess.DEVNULL,
            stdout=logfile,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return process.pid


def wait_for(what: str, ready: Callable[[], bool], timeout: float, logs: Path) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise ServiceError(f"{what} not ready within {timeout:.0f} s (see {logs})")
        time.sleep(0.2)


def started(pid: int) -> str | None:
    """The start time of a process (clock ticks since boot, /proc/<pid>/stat field 22), None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def alive(pid: int, start_time: str | None = None) -> bool:
    """Whether the process group `pid` still runs (and, given its start time, is still the same process)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reap it when it is our child (start and stop in one process)
    if start_time is not None and started(pid) != start_time:
        return False
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def terminate(process: subprocess.Popen | None, timeout: float, on_kill: Callable[[], None] | None = None) -> bool:
    """SIGTERM to a child, SIGKILL after `timeout` (a frozen one answers nothing; `on_kill` says so first); False
    when it was not running."""
    if process is None or process.poll() is not None:
        return False
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        if on_kill is not None:
            on_kill()
        process.kill()
        process.wait(timeout=timeout)
    return True


def stop_recorded(run_dir: Path, processes: list[tuple[str, int, str | None]], timeout: float) -> list[str]:
    """Stop each (what, pid, start time) in turn (`stop`), then forget run_dir's state; what was running."""
    stopped = [what for what, pid, start_time in processes if stop(pid, timeout=timeout, start_time=start_time)]
    (run_dir / "state.json").unlink(missing_ok=True)
    return stopped


def stop(pid: int, *, timeout: float, start_time: str | None = None) -> bool:
    """SIGTERM to the process group, SIGKILL after `timeout`; False when it was not running."""
    if not alive(pid, start_time):
        return False
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        while alive(pid):
            time.sleep(0.1)
    return True
