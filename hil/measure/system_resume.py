"""A USB device's resume when the whole board suspends and wakes (seed 003's timings, beside runtime resume).

The board sleeps (`deep` or `s2idle`) and its RTC wakes it, as `rtcwake -m mem -s N` does. With
`pm_print_times` the kernel logs each device's resume callback's time: the USB device's `usb_dev_resume`
line is the figure, and the whole devices phase (with `pm_debug_messages`) goes with it.

The device is kept active (power/control=on) for the cycle: a runtime-suspended device may skip its
system resume callbacks altogether (direct_complete), and then there is nothing to time.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass

from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.measure.parsing import ascii_float, ascii_int, parser, span
from hil.verdict.errors import MeasurementError, ParseError
from hil.verdict.measurement import Measurement, Quantity

SLEEP_STATES = ("deep", "s2idle")  # /sys/power/mem_sleep's names; `mem` in /sys/power/state enters it
RTC = "/sys/class/rtc/rtc0"
POWER = "/sys/power"
MARK = "hil-system-resume"

# Every kernel line is read whole: "[    4.820031] " and then exactly one of these. A line that carries one's
# words but not its form (cut by another message, a character changed) is an error, never skipped.
_TS = r"\[ *(?P<ts>[0-9]+\.[0-9]{6})\] "
# "usb 1-3: PM: usb_dev_resume+0x0/0x10 [usbcore] returned 0 after 314420 usecs"
_DEVICE = (
    r"usb (?P<dev>usb[0-9]+|[0-9][0-9.-]*): PM: usb_dev_resume\+0x[0-9a-f]+/0x[0-9a-f]+ (?:\[usbcore\] )?"
    r"returned (?P<ret>-?[0-9]+) after (?P<us>[0-9]+) usecs"
)
_DEVICES = r"PM: resume of devices complete after (?P<ms>[0-9]+\.[0-9]+) msecs"
_ENTRY = r"PM: suspend entry \((?P<state>[a-z0-9]+)\)"
_SLEPT = r"Timekeeping suspended for (?P<s>[0-9]+\.[0-9]+) seconds"
_RESET = r"usb (?P<dev>usb[0-9]+|[0-9][0-9.-]*): reset [A-Za-z0-9 -]*USB device number [0-9]+ using [a-z0-9_-]+"
_MARK = rf"{MARK}-[0-9a-f]{{8}}"
_KEPT = (
    f"{MARK}|PM: suspend (entry|exit)|Timekeeping suspended|usb_dev_resume|reset .*USB device number|"
    "resume of devices complete"
)
_RC = re.compile(rf"^{MARK}-rc=(?P<rc>[0-9]+)$", re.ASCII)


@dataclass(frozen=True)
class SystemResume:
    device: str
    state: str  # the sleep state the kernel entered (deep, s2idle)
    device_ms: float  # the device's usb_dev_resume callback
    devices_ms: float | None  # every device's resume phase, when the kernel printed it
    slept_s: float | None
    reset: bool  # the device was reset, not resumed (its controller lost power: a reset-resume)


def asked(command: str) -> dict[str, str]:
    """The device and sleep state a command asks for (its `dev=` and `state=` assignments)."""
    found = dict(re.findall(r"\b(dev|state)=([A-Za-z0-9.-]+);", command))
    if set(found) != {"dev", "state"}:
        raise ValueError(f"no dev=...; state=...; in {command!r}")
    return {"device": found["dev"], "state": found["state"]}


@parser("system_resume", asked=asked)
def parse(output: str, *, device: str, state: str) -> SystemResume:
    """The cycle's figures, from the kernel log lines printed after hil's mark. Refused: a sleep not entered or
    in another state than asked, no line of the device's resume, a callback's error, a device resume longer
    than the whole devices phase."""
    # The kernel's lines are the data here: not filtered out as console noise (parsing.output_lines does).
    lines = [line.strip() for line in output.replace("\r\n", "\n").replace("\r", "\n").split("\n")]

    def matching(words: str, pattern: str, what: str) -> list[re.Match[str]]:
        found = []
        for line in (line for line in lines if words in line):
            m = re.fullmatch(_TS + pattern, line, re.ASCII)
            if m is None:
                raise ParseError(f"system resume: a garbled {what} line: {line[:200]!r}", raw_output=output)
            found.append(m)
        return found

    rc = next((m for m in map(_RC.match, lines) if m), None)
    if rc is None:
        raise ParseError("system resume: no exit status of the sleep (the board did not finish it)", raw_output=output)
    if not matching(f"] {MARK}-", _MARK, "mark"):
        raise ParseError(
            "system resume: the kernel log no longer holds hil's mark: the cycle's lines overflowed the log "
            "buffer before they were read (raise log_buf_len on the kernel command line)",
            raw_output=output,
        )
    if rc["rc"] != "0":
        raise ParseError(f"system resume: the kernel refused to sleep (exit {rc['rc']})", raw_output=output)
    entries = matching("PM: suspend entry", _ENTRY, "suspend entry")
    if not entries:
        raise ParseError("system resume: no 'PM: suspend entry' in the kernel log: the board never slept",
                         raw_output=output)  # fmt: skip
    if len(entries) > 1:
        raise ParseError("system resume: two suspend entries after hil's mark: two cycles' lines", raw_output=output)
    entry = entries[0]
    wanted = "s2idle" if state == "s2idle" else "deep"
    if entry["state"] != wanted:
        raise ParseError(f"system resume: the kernel slept in {entry['state']}, {wanted} was asked", raw_output=output)
    found = [m for m in matching("PM: usb_dev_resume+", _DEVICE, "device resume") if m["dev"] == device]
    if not found:
        raise ParseError(
            f"system resume: no usb_dev_resume of {device} in the kernel log (pm_print_times): its system "
            "resume was skipped or it was not on the bus",
            raw_output=output,
        )
    if len(found) > 1:  # one cycle resumes a device once: a second line is another cycle's, or not the kernel's
        raise ParseError(f"system resume: {len(found)} usb_dev_resume lines of {device} in one cycle", output)
    line = found[0]
    if line["ret"] != "0":
        raise ParseError(f"system resume: {device} failed to resume (returned {line['ret']})", raw_output=output)
    if _us(line) < _us(entry):
        raise ParseError(f"system resume: {device}'s resume line is dated before the suspend entry", output)
    # pm_print_times counts microseconds: 0 or 1 is no callback's time a clock of that resolution can tell.
    device_ms = (
        span(0, ascii_int(line["us"], "usecs", output), resolution=1, what=f"{device} resume (us)", raw=output) / 1000
    )
    phase = matching("PM: resume of devices complete", _DEVICES, "devices resume")
    devices_ms = ascii_float(phase[0]["ms"], "msecs", output) if phase else None
    if devices_ms is not None and device_ms > devices_ms + 1:  # one device is part of the whole phase
        raise ParseError(
            f"system resume: {device} took {device_ms:.3f} ms, more than every device's resume "
            f"({devices_ms:.3f} ms): these lines are not of one cycle",
            raw_output=output,
        )
    slept = matching("Timekeeping suspended", _SLEPT, "timekeeping")
    slept_s = ascii_float(slept[0]["s"], "seconds", output) if slept else None
    reset = any(m["dev"] == device for m in matching(": reset ", _RESET, "reset"))
    return SystemResume(device, entry["state"], device_ms, devices_ms, slept_s, reset)


def _us(line: re.Match[str]) -> int:
    """A kernel line's timestamp in microseconds (its six decimals), exact."""
    return int(line["ts"].replace(".", ""))


def command(sysfs: str, *, state: str, wake_s: int) -> str:
    """One board command: keep the device active, arm the RTC, sleep, print the kernel log from hil's mark."""
    if state not in SLEEP_STATES:
        raise ValueError(f"sleep state {state!r} must be one of {', '.join(SLEEP_STATES)}")
    if not isinstance(wake_s, int) or not 2 <= wake_s <= 600:
        raise ValueError(f"wake_s must be 2..600 s, got {wake_s!r}")
    mark = f"{MARK}-{secrets.token_hex(4)}"
    device = sysfs.rstrip("/").rsplit("/", 1)[1]
    return (
        f"d={shell.quote(sysfs)}; dev={shell.quote(device)}; state={state}; p={POWER}; r={RTC}; "
        '[ -e "$d/power/control" ] || { echo "no USB device at $d"; exit 3; }; '
        '[ -e "$r/wakealarm" ] || { echo "no RTC wake alarm at $r/wakealarm"; exit 3; }; '
        'grep -qw "$state" "$p/mem_sleep" || { echo "sleep state $state not in $(cat "$p/mem_sleep")"; exit 3; }; '
        'c=$(cat "$d/power/control"); pt=$(cat "$p/pm_print_times"); pd=$(cat "$p/pm_debug_messages"); '
        "ms=$(sed -n 's/.*\\[\\(.*\\)\\].*/\\1/p' \"$p/mem_sleep\"); "
        'echo on > "$d/power/control"; echo 1 > "$p/pm_print_times"; echo 1 > "$p/pm_debug_messages"; '
        'echo "$state" > "$p/mem_sleep"; echo 0 > "$r/wakealarm"; '
        f'echo +{wake_s} > "$r/wakealarm"; echo {mark} > /dev/kmsg; '
        'echo mem > "$p/state"; rc=$?; '
        'echo "$c" > "$d/power/control"; echo "$pt" > "$p/pm_print_times"; echo "$pd" > "$p/pm_debug_messages"; '
        '[ -z "$ms" ] || echo "$ms" > "$p/mem_sleep"; '
        # The cycle's lines from hil's mark, only those the figures come from (the whole log is ~100 KB).
        f'dmesg | sed -n "/{mark}/,\\$p" | grep -E {shell.quote(_KEPT)}; echo {MARK}-rc=$rc'
    )


def run(role: Role, sysfs: str, *, state: str, wake_s: int) -> Measurement:
    """Sleep, wake and time the device's resume once; the kernel log of the cycle is kept as the raw output."""
    started = time.time()
    exitcode, output = role.run_status(command(sysfs, state=state, wake_s=wake_s), timeout=wake_s + 120)
    if exitcode != 0:
        raise MeasurementError(f"system suspend not possible here (exit {exitcode})", raw_output=output)
    resume = parse(output, device=sysfs.rstrip("/").rsplit("/", 1)[1], state=state)
    details: dict[str, object] = {
        "device": resume.device,
        "state": resume.state,
        "how": "reset-resume (the controller lost power)" if resume.reset else "resumed",
    }
    optional = {"devices_resume_ms": resume.devices_ms, "slept_s": resume.slept_s}
    details |= {key: value for key, value in optional.items() if value is not None}
    return Measurement({"system_resume": Quantity(resume.device_ms, "ms")}, raw=output, started=started,
                       details=details)  # fmt: skip
