"""The android gadget backend: Android's init owns the gadget, hil switches its functions with sys.usb.config.

`setprop sys.usb.config mtp,adb` makes init link those functions into its configfs gadget, bind it to
`sys.usb.controller` and set `sys.usb.state` to the same value. hil switches as Android's UsbDeviceManager
does (`none` first, waiting for the host to drop the device, then the new value, each state waited for) and
switches back to the previous value on every way out. With `keep_adb` every value ends in `,adb`.
The previous value is also kept in hil's own property (`debug.hil.usb_config_before`) until it is restored,
so a run killed mid-test is undone by the next one instead of being taken for the board's resting state.

What each function needs on Android (`HOOKS`: prepare, bound, release, cleanup, by function type):
- mass storage: Android's LUN binds without a medium; hil sets `lun.0/file` once bound, force-ejects it after;
- network: init's function cannot take hil's MAC and queue attributes: refused;
- MTP: the responder is the board's own; the buffer length is f_mtp's `mtp_tx_req_len`/`mtp_rx_req_len`
  module parameters (seed 000, "USB MTP"), set before the function binds and restored after.
HID and UVC have no sys.usb.config function hil could configure: refused before touching the board.
"""

from __future__ import annotations

import logging
import re
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hil.errors import LabError
from hil.inventory.schema import AndroidGadgetConfig
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.usb_gadget.gadget import Function, GadgetBackend, GadgetIdentity, MassStorage, NetworkFunction
from hil.lab.usb_gadget.mtp import MtpResponder

log = logging.getLogger(__name__)

CONFIG = "sys.usb.config"
STATE = "sys.usb.state"
CONTROLLER = "sys.usb.controller"
SERIAL = "ro.serialno"
BEFORE = "debug.hil.usb_config_before"  # the value to restore, while hil holds the board's USB
NONE = "none"
ADB = "adb"
POLL_S = 0.1
# Where init mounts configfs on Android (/config), and where a Linux system has it.
CONFIGFS_GADGETS = ("/config/usb_gadget", "/sys/kernel/config/usb_gadget")
_VALUE = re.compile(r"[a-z0-9_,]*", re.ASCII)
# f_mtp of Android's kernels (seed 000): request lengths, read when the function binds.
MTP_PARAMETERS = "/sys/module/usb_f_mtp/parameters"
MTP_BUFFER_PARAMETERS = ("mtp_tx_req_len", "mtp_rx_req_len")


def usb_config(functions: list[Function], *, keep_adb: bool) -> str:
    """The sys.usb.config value for these functions: their Android names in order, `adb` last if kept."""
    names = [function.android_name or "" for function in functions]
    return ",".join([*names, ADB] if keep_adb else names)


def refusal(functions: list[Function], config: AndroidGadgetConfig) -> str | None:
    """Why the android backend cannot run these functions on this board (None: it can)."""
    for function in functions:
        if function.android_name is None:
            return (
                f"{function.dirname} cannot run on the android gadget backend: Android's sys.usb.config selects "
                f"the BSP's own functions and has no {function.kind} function hil could configure "
                "(use link.gadget: configfs on a board where hil may build its own gadget)"
            )
        if function.android_name not in config.functions:
            return (
                f"{function.android_name} is not among the sys.usb.config functions this board's init provides "
                f"({', '.join(config.functions)}; boards.yaml link.android.functions)"
            )
    if len({function.android_name for function in functions}) != len(functions):
        return "sys.usb.config names each function once: two functions of one kind cannot run on the android backend"
    return None


def getprop(role: Role, name: str) -> str:
    value = role.run(shell.cmd("getprop", name), timeout=30).strip()
    if "\n" in value:
        raise LabError(f"{role.label}: `getprop {name}` printed more than a value:\n{value}")
    return value


def setprop(role: Role, name: str, value: str) -> None:
    role.run(shell.cmd("setprop", name, value), timeout=30)


def wait_for_state(role: Role, wanted: str, *, timeout_s: float) -> None:
    """Poll sys.usb.state on the board itself until it equals `wanted`; LabError after `timeout_s`."""
    want = shlex.quote(wanted)
    started = time.monotonic()
    code, output = role.run_status(
        shell.until(f'[ "$(getprop {STATE})" = {want} ]', timeout_s, interval_s=POLL_S, on_timeout=f"getprop {STATE}"),
        timeout=timeout_s + 30,
    )
    if code != 0:
        seen = output.strip().splitlines()[-1] if output.strip() else ""
        raise LabError(
            f"{role.label}: {STATE} is {seen!r} {time.monotonic() - started:.1f} s after `setprop {CONFIG} "
            f"{wanted}` (bound {timeout_s:g} s), expected {wanted!r} (does the board's init have a trigger for "
            f"{CONFIG}={wanted}?)"
        )


@dataclass
class AndroidGadget(GadgetBackend):
    """Android's gadget, switched to `functions` for the `with` block.

    on_disconnect(serial): called once the board dropped the previous configuration, before the new one binds
    (the host must let go of the old device, which has the same serial).
    """

    backend = "android"

    role: Role
    udc: str
    functions: list[Function]
    config: AndroidGadgetConfig = field(default_factory=AndroidGadgetConfig)
    on_disconnect: Callable[[str], None] | None = None
    previous: str | None = field(default=None, init=False)  # what the board had before hil's switch
    gadget_path: str | None = field(default=None, init=False)  # init's configfs gadget, once bound
    _dirs: dict[int, str] = field(default_factory=dict, init=False, repr=False)
    identity: GadgetIdentity | None = field(default=None, init=False)  # init's VID:PID and serial, once bound
    _saved: dict[str, str] = field(default_factory=dict, init=False, repr=False)  # parameters to restore

    @property
    def wanted(self) -> str:
        return usb_config(self.functions, keep_adb=self.config.keep_adb)

    def function_dir(self, function: Function) -> str:
        try:
            return self._dirs[id(function)]
        except KeyError:
            raise LabError(f"{self.role.label}: {function.dirname} is not bound by this gadget") from None

    def describe(self) -> str:
        return f"android {CONFIG}={self.wanted} (was {self.previous}), init's gadget {self.gadget_path or 'not found'}"

    def __enter__(self) -> AndroidGadget:
        if (reason := refusal(self.functions, self.config)) is not None:
            raise LabError(f"{self.role.label}: {reason}")
        controller = getprop(self.role, CONTROLLER)
        if controller != self.udc:
            raise LabError(
                f"{self.role.label}: Android binds its gadget to {CONTROLLER}={controller!r}, boards.yaml says "
                f"udc {self.udc!r}"
            )
        self.previous = self._previous()
        try:
            self._switch(NONE)  # as UsbDeviceManager does: the host sees a disconnect, then the new device
            serial = getprop(self.role, SERIAL)
            if self.on_disconnect is not None and serial:
                self.on_disconnect(serial)
            for function in self.functions:
                _hook("prepare", function, self)
            self._switch(self.wanted)
            self._find_functions()
            for function in self.functions:
                _hook("bound", function, self)
        except BaseException:
            self.release_quietly()
            raise
        return self

    def release(self) -> None:
        """Release the functions, switch back to the previous configuration, clean up: every step tried."""
        errors: list[BaseException] = []
        for step in (
            *(lambda f=f: _hook("release", f, self) for f in self.functions),
            lambda: self._switch(NONE),
            self._back_to_previous,
            *(lambda f=f: _hook("cleanup", f, self) for f in self.functions),
        ):
            try:
                step()
            except Exception as exc:  # the next steps still run: a LUN left open must not keep adb down
                errors.append(exc)
        if errors:
            raise errors[0]

    def _previous(self) -> str:
        """The configuration to restore: the one a killed run recorded, else the board's current one."""
        recorded = getprop(self.role, BEFORE)
        current = recorded or getprop(self.role, CONFIG)
        if not _VALUE.fullmatch(current):
            raise LabError(f"{self.role.label}: unexpected {CONFIG} value {current!r}")
        if recorded:
            log.warning("%s: restoring %s=%s left by an interrupted run", self.role.label, CONFIG, recorded)
        else:
            setprop(self.role, BEFORE, current or NONE)
        return current or NONE

    def _back_to_previous(self) -> None:
        if self.previous is None:
            return
        if self.previous != NONE:
            self._switch(self.previous)
        setprop(self.role, BEFORE, "")
        self.previous = None

    def _switch(self, value: str) -> None:
        setprop(self.role, CONFIG, value)
        wait_for_state(self.role, value, timeout_s=self.config.state_timeout_s)

    def _find_functions(self) -> None:
        """init's gadget bound to the UDC, its serial, and the configfs directory of each function."""
        udc = shlex.quote(self.udc)
        globs = " ".join(f"{root}/*/UDC" for root in CONFIGFS_GADGETS)
        output = self.role.run(
            f'for u in {globs}; do [ "$(cat "$u" 2>/dev/null)" = {udc} ] || continue; g="${{u%/UDC}}"; '
            'echo "gadget $g"; echo "serial $(cat "$g/strings/0x409/serialnumber")"; '
            'echo "vendor $(cat "$g/idVendor")"; echo "product $(cat "$g/idProduct")"; '
            'for l in "$g"/configs/*/*; do [ -L "$l" ] && echo "function $(readlink -f "$l")"; done; exit 0; done',
            timeout=30,
        )
        found: dict[str, list[str]] = {}
        for line in output.splitlines():
            key, _, value = line.strip().partition(" ")
            found.setdefault(key, []).append(value)
        if not found.get("gadget") or not found.get("serial", [""])[0]:
            raise LabError(
                f"{self.role.label}: {STATE}={self.wanted}, yet no configfs gadget with a serial number is bound to "
                f"{self.udc}: {output.strip() or 'none found'}"
            )
        self.gadget_path, serial, linked = found["gadget"][0], found["serial"][0], found.get("function", [])
        try:  # what a PC's pyusb check looks for (init's VID:PID, e.g. Google's 18d1:4ee1 for MTP)
            ids = int(found["vendor"][0], 16), int(found["product"][0], 16)
        except (KeyError, ValueError):
            problem = f"{self.gadget_path} has no readable idVendor/idProduct: {output}"
            raise LabError(f"{self.role.label}: {problem}") from None
        self.identity = GadgetIdentity(vendor_id=ids[0], product_id=ids[1], serial=serial)
        for function in self.functions:
            matches = [path for path in linked if _is_function(path, function.android_name or "")]
            if len(matches) != 1:
                raise LabError(
                    f"{self.role.label}: {CONFIG}={self.wanted} but {self.gadget_path}'s configuration links "
                    f"{len(matches)} {function.android_name} function(s): {', '.join(linked) or 'none'}"
                )
            self._dirs[id(function)] = matches[0]


def _is_function(path: str, android_name: str) -> bool:
    """functions/<type>.<instance>: the type is the name (rndis.gs4), or FunctionFS names it (ffs.mtp)."""
    kind, _, instance = path.rsplit("/", 1)[-1].partition(".")
    return kind == android_name or (kind == "ffs" and instance == android_name)


# --- What each function needs around the switch --------------------------------------------------------
# prepare: before the configuration that holds the function is set (the board is at `none`); bound: once
# sys.usb.state says the function is bound, before the host uses it; release: before the previous
# configuration is restored; cleanup: after it was restored. HOOKS gives each function type's, the most
# specific type's first (as its class's MRO); a stage no type names does nothing.


def _hook(stage: str, function: Function, gadget: AndroidGadget) -> None:
    hook = next((hooks[stage] for kind in type(function).__mro__ if stage in (hooks := HOOKS.get(kind, {}))), None)
    if hook is not None:
        hook(function, gadget)


def _msc_bound(function: MassStorage, gadget: AndroidGadget) -> None:
    lun = f"{gadget.function_dir(function)}/lun.0"
    ro = int(function.read_only)
    # `ro` cannot change while a file is open (a run killed mid-test leaves one): write it only if it differs.
    gadget.role.run(
        f'[ "$(cat {shlex.quote(lun + "/ro")})" = {ro} ] || {shell.write(f"{lun}/ro", ro)}; '
        + shell.write(f"{lun}/file", function.backing_file)
    )


def _msc_release(function: MassStorage, gadget: AndroidGadget) -> None:
    if id(function) not in gadget._dirs:
        return
    # forced_eject closes the file even while the host holds the medium (prevent-removal set); a kernel
    # without it closes on an empty name once the host is gone.
    lun = shlex.quote(f"{gadget.function_dir(function)}/lun.0")
    gadget.role.run(f"if [ -e {lun}/forced_eject ]; then echo 1 > {lun}/forced_eject; else echo > {lun}/file; fi")


def _network_prepare(function: NetworkFunction, gadget: AndroidGadget) -> None:
    if function.attributes:
        raise LabError(
            f"{gadget.role.label}: {', '.join(function.attributes)} of {function.kind} cannot be set on the android "
            "backend: the function is init's, configured by the board's init.*.usb.rc"
        )


def _mtp_prepare(function: MtpResponder, gadget: AndroidGadget) -> None:
    if function.buffer_bytes is None:
        return
    params = shlex.quote(MTP_PARAMETERS)
    current = gadget.role.run(
        f"cd {params} 2>/dev/null && cat {' '.join(MTP_BUFFER_PARAMETERS)}", check=False, timeout=30
    ).split()
    if len(current) != len(MTP_BUFFER_PARAMETERS) or not all(value.isdigit() for value in current):
        raise LabError(
            f"{gadget.role.label}: the board exposes no MTP buffer length ({MTP_PARAMETERS}/"
            f"{{{','.join(MTP_BUFFER_PARAMETERS)}}} of Android's f_mtp, seed 000): cannot run buffer "
            f"{function.buffer_bytes} B"
        )
    gadget._saved.update(zip(MTP_BUFFER_PARAMETERS, current, strict=True))
    gadget.role.run(
        shell.all_of(shell.write(f"{MTP_PARAMETERS}/{name}", function.buffer_bytes) for name in MTP_BUFFER_PARAMETERS)
    )


def _mtp_bound(function: MtpResponder, gadget: AndroidGadget) -> None:
    function.storage = gadget.config.mtp_storage
    function.board_responder = f"the board's own MTP responder (android {CONFIG}={gadget.wanted})"


def _mtp_cleanup(function: MtpResponder, gadget: AndroidGadget) -> None:
    saved = {name: gadget._saved.pop(name) for name in MTP_BUFFER_PARAMETERS if name in gadget._saved}
    if saved:
        gadget.role.run(shell.all_of(shell.write(f"{MTP_PARAMETERS}/{name}", value) for name, value in saved.items()))


HOOKS: dict[type[Function], dict[str, Callable[[Any, AndroidGadget], None]]] = {
    Function: {
        "prepare": lambda function, gadget: function.prepare(gadget.role),
        "cleanup": lambda function, gadget: function.cleanup(gadget.role),
    },
    MassStorage: {"bound": _msc_bound, "release": _msc_release},
    NetworkFunction: {"prepare": _network_prepare},
    MtpResponder: {"prepare": _mtp_prepare, "bound": _mtp_bound, "cleanup": _mtp_cleanup},
}
