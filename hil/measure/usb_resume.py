"""USB runtime resume time (seed 003): how long an autosuspended USB device takes to come back.

The board autosuspends the device (and its subtree), waits for sysfs to say `suspended`, then resumes it
with power/control=on under the kernel's runtime-PM tracepoints. The time is the trace's own, from the
device's `rpm_resume` to that call's `rpm_return_int` (no console round trip in it), and includes the
port's and hub's work (resume signalling, recovery delays: the usbcore timings seed 003 is about).
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from hil.errors import Unavailable
from hil.lab.board import bound, shell
from hil.lab.board.role import Role
from hil.measure.parsing import ascii_float, output_lines, parser
from hil.verdict.errors import ParseError
from hil.verdict.measurement import Measurement, Quantity

TRACING = "/sys/kernel/debug/tracing"
USBCORE = "/sys/module/usbcore/parameters/"
RPM_ASYNC = 0x01  # include/linux/pm_runtime.h: the call only queues the resume and returns at once
# A USB device's resume talks to its port (resume signalling, a status read) for at least one high-speed
# microframe: a shorter one resumed nothing a USB bus saw, whatever the return value says.
LEAST_RESUME_US = 125
SUSPEND_WAIT_S = 30  # autosuspend delay plus the subtree going idle first (slow right after boot)
AWAKE = 4  # the command's exit status when the device did not suspend
# Seed 003's two timings: the kernel's resume delays, or the USB 2.0 specification's minima through the seed's
# usbcore patch (`usbcore.timing_minimum=1`). Mainline Linux has no such parameter: it hard-codes TDRSMDN 40 ms
# where the specification asks at least 20 and TRSTRCY 50 ms where it allows 0, so `minimum` needs a BSP kernel
# that carries the patch.
TIMINGS = ("default", "minimum")
TIMING_MINIMUM = USBCORE + "timing_minimum"

# One trace line, matched whole, printable ASCII only (a line with anything else is not the kernel's):
# "  dash-105  [000] d..1.  22.162246: rpm_resume: 2-1 flags-0 cnt-1  dep-0  auto-0 p-0 irq-0 child-0"
# "  dash-105  [000] d..1.  22.230722: rpm_return_int: rpm_resume+0x2e8/0x830:2-1 ret=0"
_LINE = re.compile(
    r" *[\x21-\x7e][\x20-\x7e]{0,15}-[0-9]+ +\[[0-9]+\] [\x21-\x7e]+ +(?P<ts>[0-9]+\.[0-9]{6}): "
    r"(?:rpm_resume: (?P<dev>[\x21-\x7e]+) flags-(?P<flags>[0-9a-f]+) [\x20-\x7e]*"
    r"|rpm_return_int: (?P<caller>[a-z_]+)\+0x[0-9a-f]+/0x[0-9a-f]+:(?P<rdev>[\x21-\x7e]+) ret=(?P<ret>-?[0-9]+))",
    re.ASCII,
)

# ftrace's mark where its ring buffer overwrote events ("CPU:0 [LOST 12 EVENTS]"): the resume's own lines
# may be among them, so the trace no longer says when it started or returned.
_LOST = re.compile(r"\[LOST [0-9]+ EVENTS\]", re.ASCII)


@dataclass(frozen=True)
class Resume:
    device: str
    started_s: float  # trace timestamps, seconds since boot
    returned_s: float

    @property
    def ms(self) -> float:
        return (self.returned_s - self.started_s) * 1000


def asked(command: str) -> dict[str, str]:
    """The device a resume command measures: the last part of its `d=/sys/bus/usb/devices/...`."""
    for word in shlex.split(command):
        if word.startswith("d=/sys/bus/usb/devices/"):
            return {"device": word.rsplit("/", 1)[1].rstrip(";")}
    raise ValueError(f"no d=/sys/bus/usb/devices/... in {command!r}")


@parser("usb_resume", asked=asked)
def parse(output: str, *, device: str) -> Resume:
    """The device's first runtime resume in the trace, up to the return of that same (outer) rpm_resume call,
    which must have returned 0: 1 (already active, nothing timed) or a failure is a ParseError."""
    depth = 0
    started: float | None = None
    lines = output_lines(output, "rpm trace")
    lost = next((line for line in lines if _LOST.search(line)), None)
    if lost is not None:
        raise ParseError(f"rpm trace: the trace lost events: {lost.strip()[:200]!r}", raw_output=output)
    for m in filter(None, (_LINE.fullmatch(line.rstrip()) for line in lines)):
        if m["dev"] == device:
            if started is None:
                started = ascii_float(m["ts"], "rpm_resume timestamp", output)
                if int(m["flags"], 16) & RPM_ASYNC:
                    raise ParseError(
                        f"rpm trace: the resume of {device} was asynchronous (flags-{m['flags']}): its return "
                        "times the queueing, not the resume",
                        raw_output=output,
                    )
            depth += 1
        elif m["caller"] == "rpm_resume" and m["rdev"] == device and started is not None:
            depth -= 1
            if depth > 0:
                continue
            ret = int(m["ret"])
            if ret != 0:
                what = "was already active (nothing resumed)" if ret == 1 else f"failed to resume (ret={ret})"
                raise ParseError(f"rpm trace: {device} {what}: {m[0].strip()[:200]!r}", raw_output=output)
            returned = ascii_float(m["ts"], "rpm_return_int timestamp", output)
            us = round(returned * 1e6) - round(started * 1e6)
            if us < LEAST_RESUME_US:
                least = f"less than the one microframe ({LEAST_RESUME_US} us) a USB resume exchanges with its port"
                raise ParseError(f"rpm trace: {device}'s resume took {us} us, {least}", raw_output=output)
            return Resume(device, started, returned)
    if started is None:
        raise ParseError(f"rpm trace: no rpm_resume of {device}", raw_output=output)
    raise ParseError(f"rpm trace: the rpm_resume of {device} never returned in the trace", raw_output=output)


def command(sysfs: str, *, autosuspend_ms: int, suspend_wait_s: int = SUSPEND_WAIT_S) -> str:
    """One board command: suspend the device (and its subtree), resume it under the rpm tracepoints, print
    the trace; the subtree's power/control is put back to `on` however it ends.

    The wait for the suspend runs by the board's own clock (/proc/uptime, read by shell builtins): 300 polls
    counted with a forked `cat` took 40.2 s of a 30 s wait on the virtual board."""
    if not isinstance(autosuspend_ms, int) or autosuspend_ms < 0:
        raise ValueError(f"autosuspend delay must be a non-negative number of ms, got {autosuspend_ms!r}")
    return (
        f"d={shlex.quote(sysfs)}; t={TRACING}; e=$t/events/rpm; "
        '[ -d "$e" ] || { echo "no rpm tracepoints under $e (CONFIG_PM, tracefs)"; exit 3; }; '
        'controls=$(find "$d/" -path "*/power/control"); '
        'restore() { for c in $controls; do echo on > "$c"; done; }; '
        'for a in $(find "$d/" -path "*/power/autosuspend_delay_ms"); do '
        f'echo {autosuspend_ms} > "$a" 2>/dev/null; done; '
        'for c in $controls; do echo auto > "$c"; done; '
        "read up _ < /proc/uptime; start=${up%.*}; "
        'while read s < "$d/power/runtime_status"; [ "$s" != suspended ]; do '
        "read up _ < /proc/uptime; up=${up%.*}; "
        f"[ $up -ge $((start + {suspend_wait_s})) ] && break; "
        "sleep 0.1; done; "
        'if [ "$s" != suspended ]; then '
        f'echo "$d did not runtime-suspend within {suspend_wait_s} s:"; '
        'grep -H . $(find "$d/" -path "*/power/runtime_status") "$d/power/runtime_active_kids"; '
        f"restore; exit {AWAKE}; fi; "
        'echo 0 > "$t/tracing_on"; echo > "$t/trace"; '
        'echo 1 > "$e/rpm_resume/enable"; echo 1 > "$e/rpm_return_int/enable"; echo 1 > "$t/tracing_on"; '
        'echo on > "$d/power/control"; '
        'echo 0 > "$t/tracing_on"; echo 0 > "$e/rpm_resume/enable"; echo 0 > "$e/rpm_return_int/enable"; '
        'restore; grep -v "^#" "$t/trace"'
    )


def run(
    role: Role, sysfs: str, *, autosuspend_ms: int, timeout: float = 60, suspend_wait_s: int = SUSPEND_WAIT_S
) -> Measurement:
    """Suspend, resume and time the device once; the trace is kept as the raw output.

    A device that did not suspend gets a second command: on the virtual board the Bulk-Only disk stays awake
    through the whole first wait after boot (however long: tests/data/usb_resume/vlab-bot-resume-after-boot.txt)
    and suspends in the next command. The first command's statuses stay in the raw output."""
    text = command(sysfs, autosuspend_ms=autosuspend_ms, suspend_wait_s=suspend_wait_s)
    started = time.time()
    # A sample's bound (20 s after a 1 s warm-up) must not cut the suspend waits short and call the board hung.
    waits = f"the device's runtime suspend may take up to {suspend_wait_s} s, twice"
    with bound.at_least(2 * suspend_wait_s + 30, waits):
        exitcode, output = role.run_status(text, timeout=timeout + suspend_wait_s)
        awake = output if exitcode == AWAKE else ""
        if exitcode == AWAKE:
            exitcode, output = role.run_status(text, timeout=timeout + suspend_wait_s)
    raw = f"{awake}\n--- the device did not suspend: a second command ---\n{output}" if awake else output
    if exitcode != 0:
        raise ParseError(f"resume measurement exited {exitcode}", raw_output=raw)
    resume = parse(output, device=sysfs.rstrip("/").rsplit("/", 1)[1])
    return Measurement(
        {"resume_time": Quantity(resume.ms, "ms")},
        raw=raw,
        started=started,
        details={
            "device": resume.device,
            "trace_start_s": resume.started_s,
            "suspended_in": "the second command" if awake else "the first command",
        },
    )


def usbcore_parameters(role: Role) -> dict[str, str]:
    """usbcore's module parameters in force (autosuspend, quirks, ...): they shape every resume."""
    output = role.run(f"grep -H . {USBCORE}* 2>/dev/null; true", timeout=30)
    found = (line.strip().partition(":") for line in output.splitlines())
    return {path.rsplit("/", 1)[1]: value for path, sep, value in found if sep and path.startswith(USBCORE)}


@contextmanager
def timing_in_force(role: Role, timing: str) -> Iterator[dict[str, str]]:
    """Resume under `timing`'s delays, usbcore's setting put back after; yields usbcore's parameters in force.
    Unavailable where the kernel has no usbcore.timing_minimum for `minimum`, or the other value read-only."""
    parameters = usbcore_parameters(role)
    before = parameters.get("timing_minimum")
    if before is None and timing == "minimum":
        mainline = "mainline Linux fixes its resume delays"
        raise Unavailable(f"{role.label}: the kernel has no usbcore.timing_minimum (seed 003's patch; {mainline})")
    change = before is not None and (before.strip() in ("1", "Y")) != (timing == "minimum")
    if change:
        if role.run_status(shell.cmd("test", "-w", TIMING_MINIMUM), timeout=30)[0] != 0:
            readonly = f"usbcore.timing_minimum is {before} and read-only: set it on the kernel command line"
            raise Unavailable(f"{role.label}: {readonly}")
        wanted = "1" if timing == "minimum" else "0"
        role.run(shell.write(TIMING_MINIMUM, wanted), timeout=30)
        parameters["timing_minimum"] = wanted  # as written: run raises where the kernel refuses it
    try:
        yield parameters
    finally:
        if change:
            role.run(shell.write(TIMING_MINIMUM, before), timeout=30)
