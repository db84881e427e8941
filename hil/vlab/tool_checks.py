"""Each tool the virtual board runs for hil, exercised once the way hil uses it, when its image is built.

The image copies the lab PC's binaries, so running them here is running the board's: a tool that does not behave
(a security update that makes `rz` refuse hil's file name, a `date` without nanoseconds, a fio without JSON) is
named at build time with its Debian package and version, not found later as one ERROR per case that needs it.
"""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import xmodem

from hil.errors import VlabImageError
from hil.lab.board.console_transfer import receive_command
from hil.services import free_port

Check = Callable[[Path], str | None]  # run in a scratch directory; None when the tool behaved, else what it did


def _run(argv: list[str], cwd: Path, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


def _said(proc: subprocess.CompletedProcess[str]) -> str:
    return f"exit {proc.returncode}: {(proc.stdout + proc.stderr).strip()[-400:]}"


def _rz(scratch: Path) -> str | None:
    """XMODEM-1K into hil's programs directory, with the command hil sends a board (hil.lab.board.deploy)."""
    directory = scratch / "var/lib/hil/programs"
    directory.mkdir(parents=True)
    data = os.urandom(20 * 1024 + 7)
    sent, status = send_over_pipes(receive_command("rz", str(directory), ".check.xmodem"), data)
    received = directory / ".check.xmodem"
    if sent and status == 0 and received.is_file() and received.read_bytes()[: len(data)] == data:
        return None
    said = (directory / ".check.xmodem.err").read_text(errors="replace").strip()
    return f"did not receive a file sent by XMODEM-1K (exit {status}): {said or 'it said nothing'}"


def send_over_pipes(command: str, data: bytes) -> tuple[bool, int]:
    """XMODEM-1K as hil sends it (the xmodem package, 1K blocks) to `command` run by sh on a pair of pipes;
    (sent, the receiver's exit status)."""
    receiver = subprocess.Popen(["sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert receiver.stdin is not None and receiver.stdout is not None
    out, into = receiver.stdout.fileno(), receiver.stdin

    def getc(size: int, timeout: float = 1) -> bytes | None:
        ready, _, _ = select.select([out], [], [], timeout)
        return os.read(out, size) if ready else None

    def putc(chunk: bytes, timeout: float = 1) -> int:
        into.write(chunk)
        into.flush()
        return len(chunk)

    try:
        sent = xmodem.XMODEM(getc, putc, mode="xmodem1k").send(io.BytesIO(data), retry=4)
        into.close()
    except BrokenPipeError:  # the receiver quit
        sent = False
    try:
        return sent, receiver.wait(timeout=30)
    except subprocess.TimeoutExpired:
        receiver.kill()
        return False, receiver.wait()


def _date(scratch: Path) -> str | None:
    proc = _run(["date", "+%s%N"], scratch)
    if proc.returncode == 0 and proc.stdout.strip().isdigit() and len(proc.stdout.strip()) >= 19:
        return None
    return f"`date +%s%N` gave no nanoseconds ({_said(proc)})"


def _dd(scratch: Path) -> str | None:
    proc = _run(["dd", "if=/dev/zero", "of=/dev/null", "bs=1M", "count=4"], scratch)
    return None if proc.returncode == 0 and "copied" in proc.stderr else f"dd printed no transfer rate ({_said(proc)})"


def _mkfs(tool: str, size_mib: int, *options: str) -> Check:
    def check(scratch: Path) -> str | None:
        disk = scratch / f"{tool}.img"
        with disk.open("wb") as file:
            file.truncate(size_mib << 20)
        proc = _run([tool, *options, str(disk)], scratch, timeout=60)
        if proc.returncode == 0:
            return None
        return f"could not make a file system on a {size_mib} MiB file ({_said(proc)})"

    return check


def _fio(scratch: Path) -> str | None:
    argv = ["fio", "--name=check", f"--filename={scratch / 'fio.dat'}", "--size=1M", "--rw=write", "--bs=64k"]
    proc = _run([*argv, "--ioengine=psync", "--output-format=json"], scratch, timeout=60)
    try:
        written = json.loads(proc.stdout)["jobs"][0]["write"]["io_bytes"]
    except (ValueError, KeyError, IndexError):
        return f"gave no JSON with the job's bytes ({_said(proc)})"
    return None if written == 1 << 20 else f"wrote {written} bytes of 1 MiB"


def _iperf3(scratch: Path) -> str | None:
    port = str(free_port())
    server = subprocess.Popen(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", port], stdout=subprocess.DEVNULL)
    try:
        for _ in range(20):
            proc = _run(["iperf3", "-c", "127.0.0.1", "-p", port, "-t", "1", "-J"], scratch)
            if "unable to connect" not in proc.stdout:
                break
        try:
            received = json.loads(proc.stdout)["end"]["sum_received"]["bytes"]
        except (ValueError, KeyError):
            return f"gave no JSON with the bytes received over loopback ({_said(proc)})"
        return None if received > 0 else "received nothing over loopback"
    finally:
        server.kill()
        server.wait()


def _iperf2(scratch: Path) -> str | None:
    port = str(free_port())
    server = subprocess.Popen(
        ["iperf", "-s", "-u", "-B", "127.0.0.1", "-p", port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        proc = _run(["iperf", "-c", "127.0.0.1", "-u", "-p", port, "-t", "1", "-b", "10M", "-y", "C"], scratch)
        rows = [line.split(",") for line in proc.stdout.splitlines() if line.count(",") >= 8]
        return None if rows else f"gave no CSV report over loopback ({_said(proc)})"
    finally:
        server.kill()
        server.wait()


def _mpstat(scratch: Path) -> str | None:
    proc = _run(["mpstat", "-P", "ALL", "-o", "JSON", "1", "1"], scratch)
    try:
        json.loads(proc.stdout)["sysstat"]["hosts"][0]["statistics"][0]["cpu-load"]
    except (ValueError, KeyError, IndexError):
        return f"gave no JSON per-CPU load ({_said(proc)})"
    return None


def _starts(*argv: str, expect: str) -> Check:
    """A tool that needs the board's devices to do its work starts and answers as hil expects (a daemon such
    as umtprd keeps retrying its device: it is stopped after a few seconds)."""

    def check(scratch: Path) -> str | None:
        proc = subprocess.Popen(argv, cwd=scratch, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            output, _ = proc.communicate(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            output, _ = proc.communicate()
        return None if expect in output else f"`{' '.join(argv)}` did not answer {expect!r}: {output.strip()[-400:]}"

    return check


# tool -> how hil uses it (the tools of hil.vlab.image.TOOLS that hil runs on the board)
CHECKS: dict[str, Check] = {
    "rz": _rz,
    "date": _date,
    "dd": _dd,
    "mkfs.ext4": _mkfs("mkfs.ext4", 16, "-q", "-F"),
    "mkfs.f2fs": _mkfs("mkfs.f2fs", 64, "-q", "-f"),
    "fio": _fio,
    "hdparm": _starts("hdparm", "-V", expect="hdparm v"),
    "iperf3": _iperf3,
    "iperf": _iperf2,
    "mpstat": _mpstat,
    "umtprd": _starts("umtprd", "-help", expect="uMTP Responder"),
    "v4l2-ctl": _starts("v4l2-ctl", "--help-streaming", expect="--stream-mmap"),
    "ip": _starts("ip", "-j", "link", "show", "lo", expect='"ifname":"lo"'),
}


def check_tools(packages_of: dict[str, str], versions: dict[str, str]) -> None:
    """Run every check; one VlabImageError naming each tool that misbehaved with its package and version."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="hil-tool-checks-") as scratch:
        for tool, check in CHECKS.items():
            place = Path(scratch) / tool
            place.mkdir()
            try:
                wrong = check(place)
            except (OSError, subprocess.SubprocessError) as exc:
                wrong = f"could not run: {exc}"
            if wrong:
                package = packages_of[tool]
                failures.append(f"{tool} ({package} {versions.get(package, '?')}): {wrong}")
    if failures:
        raise VlabImageError("tools of the virtual board do not behave as hil uses them:\n  " + "\n  ".join(failures))
