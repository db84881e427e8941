"""Bring a pair's link into the configuration boards.yaml specifies: on the virtual board the link is a kernel
module (dummy_hcd) whose parameters set its speed; on real boards the UDC driver is built in."""

from __future__ import annotations

import shlex

from hil.inventory.schema import UsbLink
from hil.lab.board import shell
from hil.lab.board.role import Role

_TRUE = {"1", "y", "yes", "true", "on"}
_FALSE = {"0", "n", "no", "false", "off"}


def _same(current: str, wanted: str) -> bool:
    current, wanted = current.strip().lower(), wanted.strip().lower()
    if current in _TRUE | _FALSE and wanted in _TRUE | _FALSE:
        return (current in _TRUE) == (wanted in _TRUE)
    return current == wanted


def _parameters(role: Role, module: str) -> dict[str, str]:
    """The parameters `module` runs with, in one round trip ({} when it is not loaded; an empty value is left
    out, as a parameter never set reads)."""
    directory = shlex.quote(f"/sys/module/{module.replace('-', '_')}/parameters")
    listing = role.run(f"cd {directory} 2>/dev/null && grep -H . * 2>/dev/null; true", check=False)
    return dict(line.partition(":")[::2] for line in listing.splitlines() if ":" in line)


def _load(role: Role, module: str, params: dict[str, str]) -> None:
    role.run(shell.cmd("modprobe", module, *(f"{name}={value}" for name, value in params.items())), timeout=60)


def ensure_module(role: Role, module: str, params: dict[str, str]) -> bool:
    """Load `module` with `params`, reloading it when it runs with other values. Returns True if (re)loaded."""
    sysfs = f"/sys/module/{module.replace('-', '_')}"
    loaded = role.run_status(f"[ -d {shlex.quote(sysfs)} ]")[0] == 0
    if loaded:
        current = _parameters(role, module)
        mismatched = [name for name, value in params.items() if not _same(current.get(name, ""), str(value))]
        if not mismatched:
            return False
        # Gadgets bound to the old instance vanish with it; hil removes its own before each test anyway.
        role.run(shell.cmd("rmmod", module), timeout=60)
    _load(role, module, params)
    return True


def ensure_link_driver(role: Role, link: UsbLink) -> str | None:
    """The link's UDC driver (boards.yaml's `driver`) loaded with its parameters: what was (re)loaded, or None."""
    if link.driver is None:
        return None
    params = {name: str(value).lower() for name, value in link.driver.params.items()}
    return f"{link.driver.module} {params}" if ensure_module(role, link.driver.module, params) else None


def reload_udc_module(role: Role, udc: str) -> str | None:
    """Reload the kernel module that drives `udc` with its parameters; its name, or None when built in. A failed
    gadget bind leaves dummy_hcd unable to attach the next gadget (verified on Linux 6.1): a reload fixes it."""
    link = shlex.quote(f"/sys/class/udc/{udc}/device/driver/module")
    module = role.run(f'[ -e {link} ] && basename "$(readlink -f {link})"; true', check=False).strip()
    if not module:
        return None
    params = _parameters(role, module)
    role.run(shell.cmd("rmmod", module), timeout=60)
    _load(role, module, params)
    return module
