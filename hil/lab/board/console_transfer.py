"""A file onto a board through its serial console (labgrid's ShellDriver), for a board without network.

First choice: XMODEM-1K to the board's own receiver (lrzsz's `lrz`/`rz`, or busybox `rx`) through the
ShellDriver's helpers (labgrid's own `put` sends 128-byte blocks: 32 KiB took 6.5 s, 2.3 s in 1K blocks).
The receiver gets a bare file name: lrzsz 0.12.21-10+deb12u1 answers a name with a directory in it (what
labgrid's `put` gives it) with "rz: Security Violation". When the receiver refuses, or the board has none,
the file goes as base64 in shell commands, checked by SHA-256 on the board.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
import posixpath

import xmodem

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.shell import Shell

log = logging.getLogger(__name__)

# The receivers labgrid's ShellDriver looks for, in its order, with their XMODEM-1K arguments: -X XMODEM,
# -c CRC-16, -b binary, -y overwrite. busybox rx takes 1K blocks and CRC without being asked.
RECEIVERS = {"lrz": ("-X", "-y", "-c", "-b"), "rz": ("-X", "-y", "-c", "-b"), "rx": ()}
# Room on a command line for what surrounds a chunk of base64 besides the file's name (the role's PATH prefix
# of hil's programs, `printf %s '' | base64 -d >> ''`).
_LINE_OVERHEAD = 120
_XMODEM_HELPERS = ("_start_xmodem_transfer", "_xmodem_getc", "_xmodem_putc", "console", "prompt")
# A board whose idle time passes in an instant (the virtual board on its instruction-counted clock: a driver with
# `idle_time_warps`, hil.vlab.qemu) would see the receiver's timeouts (lrzsz's: 10 s per block) run out while
# it waits for the PC's next block; a busy loop beside the receiver keeps it from idling, so its time passes
# with the instructions it runs (lrzsz NAKed block 3 17 times and gave up without it, 2026-11-29).
_KEEP_BUSY = "(while :; do :; done) & hil_busy=$!; "


def receive_command(receiver: str, directory: str, name: str, *, keep_busy: bool = False) -> str:
    """The command that makes `receiver` take one XMODEM-1K file as `name` in `directory`, in a subshell; its
    messages go to `name`.err, not to the console the XMODEM stream runs on. `keep_busy`: with _KEEP_BUSY."""
    if receiver not in RECEIVERS:
        raise LabError(f"no XMODEM receiver named {receiver!r} (hil knows {', '.join(RECEIVERS)})")
    receive = shell.cmd(receiver, *RECEIVERS[receiver], name)
    command = f"(cd {shell.quote(directory)} && exec {receive} 2>{shell.quote(name + '.err')})"
    return f"({_KEEP_BUSY}{command}; kill $hil_busy)" if keep_busy else command


def put(role: Shell, data: bytes, remote: str) -> str:
    """`data` into the file `remote` on the role's board through its ShellDriver; returns how it went."""
    try:
        console = role.target.get_driver("ShellDriver")
    except Exception as exc:
        raise LabError(f"{role.label}: no file transfer (neither SSHDriver nor ShellDriver): {exc}") from exc
    if not all(hasattr(console, name) for name in _XMODEM_HELPERS):
        why = "this labgrid's ShellDriver has no XMODEM helpers"
    else:
        receiver = role.run("command -v lrz || command -v rz || command -v rx || true", timeout=30).strip()
        receiver = posixpath.basename(receiver.splitlines()[-1]) if receiver else ""
        if receiver not in RECEIVERS:
            why = "the board has no XMODEM receiver (lrz, rz or rx)"
        else:
            try:
                why = _over_xmodem(role, console, receiver, data, remote)
            except Exception as exc:  # the console is in an unknown state: the next test power-cycles
                role.mark_suspect("a file transfer over the console broke off")
                raise LabError(f"{role.label}: XMODEM-1K to {receiver} over the console broke off: {exc}") from exc
            if why is None:
                return f"ShellDriver (XMODEM-1K to {receiver} over the serial console)"
    log.warning("%s: %s; sending %d bytes as base64 through the shell instead", role.label, why, len(data))
    _through_the_shell(role, data, remote)
    return f"ShellDriver (base64 through the shell over the serial console, SHA-256 checked: {why})"


def _over_xmodem(role: Shell, console: object, receiver: str, data: bytes, remote: str) -> str | None:
    """XMODEM-1K to `receiver`, the padding trimmed with `head -c` (labgrid's `dd bs=1` trim has a fixed 30 s
    bound a slow board misses); None when the file arrived, else why not."""
    directory, name = posixpath.split(remote)
    staged = f".{name}.xmodem"
    warps = any(getattr(driver, "idle_time_warps", False) for driver in role.target.drivers)
    receive = receive_command(receiver, directory, staged, keep_busy=warps)
    console._start_xmodem_transfer(receive)  # type: ignore[attr-defined]
    modem = xmodem.XMODEM(console._xmodem_getc, console._xmodem_putc, mode="xmodem1k")  # type: ignore[attr-defined]
    sent = modem.send(io.BytesIO(data), retry=16)
    console.console.expect(console.prompt, timeout=30)  # type: ignore[attr-defined]
    in_dir = f"cd {shell.quote(directory)} && "
    if sent:
        role.run(in_dir + f"head -c {len(data)} {shell.quote(staged)} > {shell.quote(name)}", timeout=120)
        role.run_status(in_dir + shell.cmd("rm", "-f", staged, staged + ".err"), timeout=30)
        return None
    _, said = role.run_status(in_dir + shell.cmd("cat", staged + ".err"), timeout=30)
    role.run_status(in_dir + shell.cmd("rm", "-f", staged, staged + ".err"), timeout=30)
    answer = "; ".join(line.strip() for line in said.splitlines() if line.strip())[:300]
    return f"{receiver} refused the XMODEM-1K transfer of {len(data)} bytes ({answer or 'it said nothing'})"


def _through_the_shell(role: Shell, data: bytes, remote: str) -> None:
    """`data` as base64 in shell commands of one line each (shell.MAX_LINE), appended to a part file, checked by
    SHA-256 on the board and moved into place."""
    part = f"{remote}.part"
    encoded = base64.b64encode(data).decode("ascii")
    size = (shell.MAX_LINE - _LINE_OVERHEAD - len(shell.quote(part))) // 4 * 4  # each chunk decodes on its own
    if size < 4:
        raise LabError(f"{role.label}: the path {remote!r} leaves no room for data on a command line")
    role.run(f": > {shell.quote(part)}", timeout=30)
    for start in range(0, len(encoded), size):
        chunk = encoded[start : start + size]
        role.run(f"printf %s {shell.quote(chunk)} | base64 -d >> {shell.quote(part)}", timeout=30)
    expected = hashlib.sha256(data).hexdigest()
    found = role.run(shell.cmd("sha256sum", part), timeout=120).split()[:1]
    if found != [expected]:
        role.run_status(shell.cmd("rm", "-f", part), timeout=30)
        raise LabError(f"{role.label}: {remote} arrived through the shell with sha256 {found}, sent {expected}")
    role.run(shell.cmd("mv", part, remote), timeout=30)
