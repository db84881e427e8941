"""A command left running on a role while the test measures from elsewhere: an iperf3 server, an MTP
responder, a UVC frame source, a CPU-load sampler.

    with device.background(shell.cmd("iperf3", "-s", "-1"), ready=r"Server listening") as server:
        sample = iperf3.tcp(host, ...)
    server.output, server.exit_status      # what it printed, how it ended

Everything runs through the role's own commands, so it works the same on a board's serial console
and on the lab PC (LocalShellDriver). The command runs in a session of its own on the role, its output
goes to a file there, and a small wrapper records its exit status:

    <dir>/pgid     the wrapper's process group (the whole tree is signalled through it)
    <dir>/out      stdout and stderr of the command
    <dir>/status   its exit status, written when it ends

Starting, waiting for readiness and stopping are each one round trip with a bound. The process is
stopped on every way out of the `with` block (TERM, then KILL for the whole group after a grace
period). When the role does not answer any more (a hung board), stopping it is the power cycle's
job: the role is marked suspect, the exit status stays None and `lost` says why; the test's own
exception is never hidden by a failing cleanup.
"""

from __future__ import annotations

import logging
import re
import secrets
import shlex
from types import TracebackType

from hil.errors import BoardTimeout, LabError
from hil.lab.board.shell import Shell

log = logging.getLogger(__name__)

POLL_S = 0.1  # readiness and stop polling interval, on the role itself
MAX_OUTPUT = 1_000_000  # bytes of the command's output read back: a chatty responder must not flood the console


class BackgroundError(LabError):
    """A background command exited before it was ready, or never became ready within its bound."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message + (f"\n--- its output ---\n{output}" if output else ""))
        self.output = output


class Background:
    """One command running in the background on a role; a context manager (see the module docstring).

    Args:
        role: where it runs.
        command: a shell command line built with `hil.lab.board.shell` (every value quoted).
        ready: a regular expression (extended, as `grep -E` reads it) that the command prints once it
            is ready; None to only check that it is still running.
        ready_command: a shell command that succeeds once the command is ready (a device node exists,
            a port answers); checked on the role, together with `ready` if both are given.
        ready_timeout_s: bound for readiness; the command is stopped and BackgroundError raised after it.
        stop_timeout_s: grace between TERM and KILL when stopping.
        name: what log lines and errors call it.
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
        self._running = False

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

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop(quiet=exc_type is not None)

    # --- steps ------------------------------------------------------------------------------------

    def start(self) -> None:
        d = shlex.quote(self.directory)
        # The wrapper runs in a new session (setsid), so its process group holds everything the command
        # starts; it records that group, runs the command in the background, and writes its exit status.
        # TERM to the group reaches the wrapper too: its trap (an action, not "ignore", so the command does
        # not inherit it) keeps it alive to wait for the command's real exit status. A trapped signal makes
        # `wait` return 128+15 at once; the command's own status is then still the shell's to collect, so a
        # wait that a TERM cut short is waited again (127: it had been collected already). Checking whether
        # the command still ran instead lost a command that handled TERM (exit 1) to 143 on a loaded machine.
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
            f"i=0; while [ ! -s {d}/pgid ] && [ $i -lt 100 ]; do sleep {POLL_S}; i=$((i+1)); done; [ -s {d}/pgid ]"
        )
        self._power_cycles_at_start = self.role.power_cycles
        self._running = True
        self.role.register_background(self)
        exitcode, output = self.role.run_status(line, timeout=30)
        if exitcode != 0:
            self.stop(quiet=True)
            raise BackgroundError(f"{self.role.label}: could not start {self.name} (`{self.command}`)", output)
        log.info("%s: started %s in the background", self.role.label, self.name)

    def wait_ready(self) -> None:
        """Wait until the command is ready; BackgroundError if it exits first or the bound passes.

        Without `ready` and `ready_command` there is nothing to wait for (a command that may well finish
        on its own, such as a client run alongside): it returns at once.
        """
        if self.ready is None and self.ready_command is None:
            return
        d = shlex.quote(self.directory)
        checks = []
        if self.ready is not None:
            checks.append(f"grep -Eq {shlex.quote(self.ready)} {d}/out")
        if self.ready_command is not None:
            checks.append(f"{{ {self.ready_command}; }} >/dev/null 2>&1")
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
        waited_for = " and ".join(
            part
            for part in (
                f"output matching {self.ready!r}" if self.ready else "",
                f"`{self.ready_command}`" if self.ready_command else "",
            )
            if part
        )
        raise BackgroundError(
            f"{self.role.label}: {self.name} not ready within {self.ready_timeout_s:g} s (waited for {waited_for})",
            output,
        )

    @property
    def running(self) -> bool:
        return self._running

    def stop(self, *, quiet: bool = False) -> None:
        """Stop the command (TERM, then KILL after the grace period), collect output and exit status.

        quiet=True never raises (cleanup on the way out of a failing test); otherwise a role that does
        not answer raises its BoardTimeout after recording it in `lost`.
        """
        if not self._running:
            return
        self._running = False
        self.role.unregister_background(self)
        if self._power_cycles_at_start is not None and self.role.power_cycles != self._power_cycles_at_start:
            self.lost = "the board was power-cycled while it ran"
            return
        if self.role.suspect_reason is not None:  # its console already failed: the power cycle ends it
            self.lost = f"the board stopped answering ({self.role.suspect_reason})"
            log.warning("%s: %s: %s (the next power cycle ends it)", self.role.label, self.name, self.lost)
            return
        d = shlex.quote(self.directory)
        tries = max(1, round(self.stop_timeout_s / POLL_S))
        script = (
            f"by=itself; if [ -s {d}/pgid ] && [ ! -e {d}/status ]; then by=stop; "
            f'pg=$(cat {d}/pgid); kill -TERM "-$pg" 2>/dev/null; '
            f"i=0; while [ ! -e {d}/status ] && [ $i -lt {tries} ]; do sleep {POLL_S}; i=$((i+1)); done; "
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
        """Let a command that ends on its own finish (bounded), then collect its output and exit status.

        Still running after the bound, it is stopped as `stop` does, and its exit status shows that.
        """
        if self._running and self.role.suspect_reason is None:
            d = shlex.quote(self.directory)
            tries = max(1, round(timeout_s / POLL_S))
            self.role.run_status(
                f"i=0; while [ ! -e {d}/status ] && [ $i -lt {tries} ]; do sleep {POLL_S}; i=$((i+1)); done",
                timeout=timeout_s + 30,
            )
        self.stop()

    def _peek(self) -> str:
        try:
            return self.role.run(f"head -c {MAX_OUTPUT} {shlex.quote(self.directory)}/out", timeout=30, check=False)
        except LabError as exc:
            return f"(output unavailable: {exc})"
