"""A pair's tuning profile (boards.yaml `tuning:`) applied on its roles around a measurement, restored after.

One command per role applies everything and reports, per file, `set` with the value it replaced, `failed`
(the kernel refused it) or `missing` (no cpufreq under QEMU TCG, no ASPM policy without PCIe). A board
power-cycled since booted with its defaults: there is nothing to restore.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from hil.errors import LabError, Unavailable
from hil.inventory.tuning import TuningConfig
from hil.lab.board import shell
from hil.lab.board.console import without_kernel_messages
from hil.lab.board.role import Role, one_per_board

log = logging.getLogger(__name__)

CPUS = "/sys/devices/system/cpu"
ASPM_POLICY = "/sys/module/pcie_aspm/parameters/policy"
MARK = "hil-tuning"
_CPU = re.compile(r"/cpu(?P<n>[0-9]+)/")


# t FILE VALUE: write VALUE to FILE and say what it replaced. tb: the same for a file that shows its
# choices with the current one in brackets ("[default] performance powersave", the ASPM policy).
# Values are read with newlines and tabs turned into spaces (tcp_rmem reads "4096\t131072\t6291456").
_READ_OLD = {"t": "o=$(tr '\\t\\n' '  ' < \"$1\"); o=${o% }", "tb": "o=$(sed -n 's/.*\\[\\(.*\\)\\].*/\\1/p' \"$1\")"}
_FUNCTIONS = "".join(
    f'{name}() {{ if [ ! -e "$1" ]; then echo "{MARK}|missing|$1|"; return; fi; {read_old}; '
    f'if printf \'%s\\n\' "$2" 2>/dev/null > "$1"; then echo "{MARK}|set|$1|$o"; '
    f'else echo "{MARK}|failed|$1|$o"; fi; }}; '
    for name, read_old in _READ_OLD.items()
)


@dataclass(frozen=True)
class Step:
    status: str  # set, failed, missing
    path: str
    old: str


@dataclass
class Applied:
    """What a profile did on one role: the writes to undo, and the lines for the result's facts."""

    role: Role
    steps: list[Step] = field(default_factory=list)
    power_cycles: int = 0  # the role's count when the profile was applied

    @property
    def changed(self) -> list[Step]:
        return [step for step in self.steps if step.status == "set"]

    def describe(self, root: str = "") -> str:
        """'applied: .../cpu{0,1}/cpufreq/scaling_governor (was schedutil); not available: ...'."""
        parts = []
        for status, word in (("set", "applied"), ("failed", "refused"), ("missing", "not available")):
            # The same file of several CPUs with the same old value is one entry: cpu{0,1,2,3}.
            groups: dict[tuple[str, str], list[str]] = {}
            for step in self.steps:
                if step.status == status:
                    match = _CPU.search(step.path.removeprefix(root))
                    key = (_CPU.sub("/cpu{}/", step.path.removeprefix(root), count=1), step.old)
                    groups.setdefault(key, []).append(match["n"] if match else "")
            shown = []
            for (path, old), cpus in groups.items():
                path = path.replace("{}", "{" + ",".join(cpus) + "}" if len(cpus) > 1 else cpus[0])
                shown.append(path + (f" (was {old})" if old else ""))
            if shown:
                parts.append(f"{word}: " + ", ".join(shown))
        return "; ".join(parts) or "nothing to apply"


def script(profile: TuningConfig, root: str = "") -> str:
    """The one command line that applies `profile` (paths under `root`: '' on a board, a tree in tests)."""
    cpus, lines = f"{root}{CPUS}", [_FUNCTIONS]

    # The CPUs the profile takes offline are left out of every per-CPU loop (an offline CPU's cpufreq refuses).
    offline = "|".join(f"cpu{n}" for n in profile.cpus_offline)
    skip = f'case "${{c##*/}}" in {offline}) continue;; esac; ' if offline else ""

    def each_cpu(leaf: str, body: str) -> str:
        # A glob that matches nothing stays as it is: t then reports the pattern as missing.
        file = f'"$c/{leaf}"'
        return f"for c in {shell.cmd(cpus)}/cpu[0-9]*; do {skip}{body.replace('$F', file)}; done; "

    for n in profile.cpus_offline:
        lines.append(f"t {shell.cmd(f'{cpus}/cpu{n}/online')} 0; ")
    if profile.cpus_online:
        # cpu0 often has no `online` file; a CPU that is online already is left alone (nothing to restore).
        lines.append(each_cpu("online", '[ ! -e $F ] || [ "$(cat $F)" = 1 ] || t $F 1'))
    if profile.cpu_governor is not None:
        lines.append(each_cpu("cpufreq/scaling_governor", f"t $F {shell.cmd(profile.cpu_governor)}"))
    if profile.cpu_freq is not None:
        # max to the top first, so that min can be raised to the fixed value, then max down to it; the userspace
        # governor also takes the speed itself (seed 000: scaling_setspeed).
        fixed = '"$(cat "$c/cpufreq/cpuinfo_max_freq")"' if profile.cpu_freq == "max" else str(profile.cpu_freq)
        top, low, high = (f'"$c/cpufreq/{leaf}_freq"' for leaf in ("cpuinfo_max", "scaling_min", "scaling_max"))
        setspeed = f't "$c/cpufreq/scaling_setspeed" {fixed}; ' if profile.cpu_governor == "userspace" else ""
        body = (
            f'if [ -e "$c/cpufreq" ]; then t {high} "$(cat {top})"; t {low} {fixed}; t {high} {fixed}; {setspeed}'
            'else t "$c/cpufreq" -; fi'
        )
        lines.append(each_cpu("cpufreq", body))
    if profile.pcie_aspm is not None:
        lines.append(f"tb {shell.cmd(root + ASPM_POLICY)} {shell.cmd(profile.pcie_aspm)}; ")
    for name, value in profile.sysctl.items():
        lines.append(f"t {shell.cmd(root + '/proc/sys/' + name.replace('.', '/'))} {shell.cmd(str(value))}; ")

    def each_match(directory: str, pattern: str, body: str) -> str:
        # The glob stays unquoted to expand: BlockName and DevfreqName allow no shell character beyond it.
        return f"for d in {shell.cmd(root + directory)}/{pattern}; do {body}done; "

    for pattern, disk in profile.block_queue.items():
        body = ""
        if disk.scheduler is not None:
            body += f'tb "$d/queue/scheduler" {shell.cmd(disk.scheduler)}; '
        if disk.max_sectors_kb is not None:
            body += f't "$d/queue/max_sectors_kb" {disk.max_sectors_kb}; '
        lines.append(each_match("/sys/block", pattern, body))
    for pattern, device in profile.devfreq.items():
        body = ""
        if device.governor is not None:
            body += f't "$d/governor" {shell.cmd(device.governor)}; '
        if device.freq is not None:
            # max to the highest available first, so that min can be raised to the fixed value, then max down.
            top = "\"$(tr ' ' '\\n' < \"$d/available_frequencies\" | sort -n | tail -n 1)\""
            fixed = top if device.freq == "max" else str(device.freq)
            body += f't "$d/max_freq" {top}; t "$d/min_freq" {fixed}; t "$d/max_freq" {fixed}; '
        lines.append(each_match("/sys/class/devfreq", pattern, body))
    for interface, mask in profile.rps_cpus.items():
        # Every rx queue; no such interface (or no RPS in the kernel) leaves the glob as it is: not available.
        queues = shell.cmd(f"{root}/sys/class/net/{interface}/queues")
        lines.append(f'for q in {queues}/rx-*; do t "$q/rps_cpus" {shell.cmd(mask)}; done; ')
    return "".join(lines) + "true"


def parse(output: str, role: Role) -> list[Step]:
    """The script's report lines; anything else from it means the board did not run it as written."""
    steps = []
    for line in without_kernel_messages(output).splitlines():  # a board's console may print printk lines
        line = line.strip()
        if not line:
            continue
        mark, _, rest = line.partition("|")
        status, _, rest = rest.partition("|")
        path, sep, old = rest.partition("|")
        if mark != MARK or status not in ("set", "failed", "missing") or not sep:
            raise LabError(f"{role.label}: the tuning profile printed {line[:200]!r}:\n{output[:2000]}")
        steps.append(Step(status, path, old.strip()))
    return steps


def apply(role: Role, profile: TuningConfig, root: str = "") -> Applied:
    steps = parse(role.run(script(profile, root), timeout=60), role)
    return Applied(role, steps, role.power_cycles)


def restore(applied: Applied) -> None:
    """Write the replaced values back, last change first; skipped on a board that was power-cycled since."""
    role = applied.role
    if role.power_cycles != applied.power_cycles or role.suspect_reason is not None:
        log.info("%s: tuning not restored: the board was (or will be) power-cycled", role.label)
        return
    undo = [shell.write(step.path, step.old) for step in reversed(applied.changed) if step.old]
    if undo:
        # Each write on its own: one refused value must not keep the others from being restored.
        role.run("; ".join(f"{{ {command}; }} 2>/dev/null" for command in undo) + "; true", timeout=60)


def _require_available(done: list[Applied], profile: TuningConfig, root: str) -> None:
    """With `unavailable: skip` or `error`, a knob a board lacks or refused stops the case (restored after)."""
    if profile.unavailable == "record":
        return
    lacking = [
        f"{applied.role.label}: " + applied.describe(root)
        for applied in done
        if any(step.status != "set" for step in applied.steps)
    ]
    if lacking:
        stop = Unavailable if profile.unavailable == "skip" else LabError  # Unavailable: the case skips
        raise stop(
            f"the tuning profile cannot be applied (tuning.unavailable: {profile.unavailable}): " + " | ".join(lacking)
        )


def roles_of(profile: TuningConfig, pair_roles: Mapping[str, Role]) -> list[Role]:
    """The distinct boards of the roles the profile names (one target under two roles is tuned once)."""
    names = profile.roles if profile.roles is not None else list(pair_roles)
    for name in names:
        if name not in pair_roles:
            raise LabError(f"the tuning profile names a role {name!r} the pair has not ({', '.join(pair_roles)})")
    return one_per_board(pair_roles[name] for name in names)


@contextmanager
def tuned(profile: TuningConfig | None, roles: Mapping[str, Role], *, root: str = "") -> Iterator[dict[str, str]]:
    """Apply a pair's profile (if any) to its `roles` for the `with` block, restored after; yield what it did on
    each board, by target name. `root`: where /sys and /proc are ('' on a board; a tree in the tests)."""
    if profile is None:
        yield {}
        return
    done: list[Applied] = []
    try:
        for role in roles_of(profile, roles):
            done.append(apply(role, profile, root))
        _require_available(done, profile, root)
        yield {applied.role.target.name: applied.describe(root) for applied in done}
    finally:
        for applied in reversed(done):
            try:
                restore(applied)
            except Exception as exc:  # never hide the measurement's own error; the board is suspect now
                log.warning("%s: could not restore its tuning: %s", applied.role.label, exc)
                applied.role.mark_suspect(f"tuning not restored ({exc})")
