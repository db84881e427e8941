"""A command left running on a role while the test measures from elsewhere: an iperf3 server, an MTP
responder, a UVC frame source, a CPU-load sampler.

    with device.background(shell.cmd("iperf3", "-s", "-1"), ready=r"Server listening") as server:
        sample = iperf3.tcp(host, ...)
    server.output, server.exit_status      # what it printed, how it ended

The command runs through the role's own commands (a board's console, the lab PC) in a session of its own;
a wrapper writes <dir>/pgid (its process group, signalled as a whole), <dir>/out (the command's output)
and <dir>/status (its exit status, once it ends). Starting, waiting for readiness and stopping are each one
bounded round trip; on every way out of the `with` block the group gets TERM, then KILL after a grace
period. A role that no longer answers is left to the power cycle: exit status None, `lost` says why.
"""

from __future__ import annotations

import logging
import re
import secrets
import shlex

from hil.errors import BoardTimeout, LabError
from hil.lab.board.shell import Shell

log = logging.getLogger(__name__)

POLL_S = 0.1  # readiness and stop polling interval, on the role itself
MAX_OUTPUT = 1_000_000  # bytes of the command's output read back: a chatty responder must not flood the console


def _poll_until(condition: str, timeout_s: float) -> str:
    """A shell loop polling `condition` every POLL_S until it holds, for about `timeout_s`."""
    tries = max(1, round(timeout_s / POLL_S))
    return f"i=0; while ! {condition} && [ $i -lt {tries} ]; do sleep {POLL_S}; i=$((i+1)); done"


class BackgroundError(LabError):
    """A background command exited before it was ready, or never became ready within its bound."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message + (f"\n--- its output ---\n{output}" if output else ""))
        self.output = output


class Background:
    """One command running in the background on a role; a context manager.

    Ready once it printed `ready` (a `grep -E` pattern) and `ready_command` succeeds on the role (those given);
    `stop_timeout_s` is the grace between TERM and KILL.
    """

    def __init__(
        self,
        role: Shell,
        command: str,
        *,
        ready: str | None = None,
        ready_command: str | None = None,
        ready_timeout_s: float = 30.0,
        stop_timeout_s: float = 5.0,
        name: str | None = None,
    ) -> None:
        if ready is not None:
            re.compile(ready)  # a broken pattern is a bug in the caller: fail before anything starts
        self.role = role
        self.command = command
        self.ready = ready
        self.ready_command = ready_command
        self.ready_timeout_s = ready_timeout_s
        self.stop_timeout_s = stop_timeout_s
        self.name = name or command.split(" ", 1)[0].strip("'")
        self.directory = f"/tmp/.hil-bg-{secrets.token_hex(4)}"
        self.output = ""
        self.exit_status: int | None = None
        self.lost: str | None = None  # why output and status are unknown (the role stopped answering)
        self._power_cycles_at_start: int | None = None
        self.running = False

    def __repr__(self) -> str:
        return f"Background({self.name!r} on {self.role.label})"

    # --- the context manager ------------------------------------------------------------------

    def __enter__(self) -> Background:
        self.start()
        try:
            self.wait_ready()
        except BaseException:
            self.stop(quiet=True)
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop(quiet=exc_info[0] is not None)

    # --- steps ------------------------------------------------------------------------------------

    def start(self) -> None:
        d = shlex.quote(self.directory)
        # The wrapper's new session (setsid) holds everything the command starts. TERM to the group reaches the
        # wrapper too: its trap (an action, not "ignore", so the command does not inherit it) keeps it alive.
        # A trapped signal makes `wait` return 128+15 at once, so a cut-short wait is waited again (127: already
        # collected); checking whether the command still ran lost a TERM-handling command's exit 1 to 143.
        wrapper = (
            "trap 't=1; kill -TERM $c 2>/dev/null' TERM; "
            'echo $$ > "$0/pgid"; '
            f"( {self.command} ) & c=$!; "
            "t=; wait $c; s=$?; "
            'while [ -n "$t" ]; do t=; wait $c; r=$?; [ $r -ne 127 ] && s=$r; done; '
            'echo $s > "$0/status"'
        )
        line = (
            f"mkdir -p {d} && "
            f"setsid sh -c {shlex.quote(wrapper)} {d} > {d}/out 2>&1 < /dev/null & "
            # Return once the wrapper has written its group: from then on it can be stopped.
            f"{_poll_until(f'[ -s {d}/pgid ]', 10)}; [ -s {d}/pgid ]"
        )
        self._power_cycles_at_start = self.role.power_cycles
        self.running = True
        self.role.register_background(self)
        exitcode, output = self.role.run_status(line, timeout=30)
        if exitcode != 0:
            self.stop(quiet=True)
            raise BackgroundError(f"{self.role.label}: could not start {self.name} (`{self.command}`)", output)
        log.info("%s: started %s in the background", self.role.label, self.name)

    def wait_ready(self) -> None:
        """Wait until the command is ready (at once without `ready` and `ready_command`); BackgroundError if it
        exits first or the bound passes."""
        if self.ready is None and self.ready_command is None:
            return
        d = shlex.quote(self.directory)
        checks, waited_for = [], []
        if self.ready is not None:
            checks.append(f"grep -Eq {shlex.quote(self.ready)} {d}/out")
            waited_for.append(f"output matching {self.ready!r}")
        if self.ready_command is not None:
            checks.append(f"{{ {self.ready_command}; }} >/dev/null 2>&1")
            waited_for.append(f"`{self.ready_command}`")
        condition = " && ".join(checks)
        tries = max(1, round(self.ready_timeout_s / POLL_S))
        script = (
            f"i=0; while [ $i -lt {tries} ]; do "
            f"[ -e {d}/status ] && exit 3; "
            f"if {condition}; then exit 0; fi; "
            f"sleep {POLL_S}; i=$((i+1)); done; exit 4"
        )
        exitcode, _ = self.role.run_status(script, timeout=self.ready_timeout_s + 30)
        if exitcode == 0:
            return
        output = self._peek()
        if exitcode == 3:
            raise BackgroundError(f"{self.role.label}: {self.name} exited before it was ready", output)
        raise BackgroundError(
            f"{self.role.label}: {self.name} not ready within {self.ready_timeout_s:g} s "
            f"(waited for {' and '.join(waited_for)})",
            output,
        )

    def stop(self, *, quiet: bool = False) -> None:
        """Stop the command (TERM, then KILL after the grace period), collect output and exit status.

        quiet=True never raises; otherwise a role that does not answer raises after recording it in `lost`.
        """
        if not self.running:
            return
        self.running = False
        self.role.unregister_background(self)
        if self._power_cycles_at_start is not None and self.role.power_cycles != self._power_cycles_at_start:
            self.lost = "the board was power-cycled while it ran"
            return
        if self.role.suspect_reason is not None:  # its console already failed: the power cycle ends it
            self.lost = f"the board stopped answering ({self.role.suspect_reason})"
            log.warning("%s: %s: %s (the next power cycle ends it)", self.role.label, self.name, self.lost)
            return
        d = shlex.quote(self.directory)
        script = (
            f"by=itself; if [ -s {d}/pgid ] && [ ! -e {d}/status ]; then by=stop; "
            f'pg=$(cat {d}/pgid); kill -TERM "-$pg" 2>/dev/null; '
            f"{_poll_until(f'[ -e {d}/status ]', self.stop_timeout_s)}; "
            "fi; "
            # Whatever survived TERM (or was left by a wrapper that already finished) goes now.
            f'[ -s {d}/pgid ] && kill -KILL "-$(cat {d}/pgid)" 2>/dev/null; '
            f"echo status=$(cat {d}/status 2>/dev/null) ended=$by; "
            f"head -c {MAX_OUTPUT} {d}/out 2>/dev/null; "
            f"rm -rf {d}; true"
        )
        try:
            output = self.role.run(script, timeout=self.stop_timeout_s + 30)
        except (BoardTimeout, LabError) as exc:
            self.lost = f"could not stop it: {exc}"
            log.warning("%s: %s: %s (the next power cycle ends it)", self.role.label, self.name, self.lost)
            if not quiet:
                raise
            return
        first, _, rest = output.partition("\n")
        fields = dict(field.partition("=")[::2] for field in first.split())
        status = fields.get("status", "")
        self.exit_status = int(status) if status.isdigit() else None
        self.output = rest
        # Whatever status a command ends with after stop()'s TERM is no failure of its own (iperf3 -s
        # exits 1 on TERM); one that had ended before stop() came and not with 0 failed on its own.
        if fields.get("ended") == "stop" or self.exit_status in (0, None):
            log.info("%s: stopped %s (exit status %s)", self.role.label, self.name, self.exit_status)
        else:  # it failed on its own, before the test stopped it: what it said is the clue
            tail = "\n".join(rest.strip().splitlines()[-20:])
            log.warning(
                "%s: stopped %s (exit status %s); its last lines:\n%s",
                self.role.label,
                self.name,
                self.exit_status,
                tail,
            )

    def wait(self, *, timeout_s: float) -> None:
        """Let a command that ends on its own finish (bounded; then stopped), and collect output and status."""
        if self.running and self.role.suspect_reason is None:
            status = f"{shlex.quote(self.directory)}/status"
            self.role.run_status(_poll_until(f"[ -e {status} ]", timeout_s), timeout=timeout_s + 30)
        self.stop()

    def _peek(self) -> str:
        try:
            return self.role.run(f"head -c {MAX_OUTPUT} {shlex.quote(self.directory)}/out", timeout=30, check=False)
        except LabError as exc:
            return f"(output unavailable: {exc})"
