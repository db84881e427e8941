"""An MTP responder on the device role: umtprd (umtp-responder) on a FunctionFS function of a configfs gadget.

umtprd writes the USB descriptors to FunctionFS itself, so it starts in `before_bind` and stops in
`after_unbind`. Its storage is in RAM (tmpfs) so the board's storage does not limit the USB path. Its buffer
lengths are seed 000 table 3-1's MTP Tx/Rx buffer length.

umtprd ends a transfer of whole packets with a zero-length packet judged by `usb_max_packet_size`, so that
must be the bulk packet size of the link's speed. Debian 12's umtprd writes no SuperSpeed descriptors, so
at super speed it runs with hil's LD_PRELOAD library ffs_superspeed (hil/tools/preload/), which adds them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import ClassVar

from hil.errors import LabError
from hil.lab.board import shell
from hil.lab.board.background import Background
from hil.lab.board.role import Role
from hil.lab.usb_gadget.gadget import Function

UMTPRD = "umtprd"
READY_TIMEOUT_S = 30.0
_VERSION = re.compile(r"Version: (v[0-9][0-9.]*)", re.ASCII)
# hil/tools/preload/ffs_superspeed.c, deployed with hil's programs (hil.lab.board.deploy).
SUPERSPEED_SHIM = "ffs_superspeed"
_SHIM_LINE = re.compile(r"^ffs_superspeed: (?P<what>.*)$", re.MULTILINE | re.ASCII)
BULK_MAXPACKET = {"full": 64, "high": 512, "super": 1024}  # bytes, per USB speed


def _quote_conf(value: str) -> str:
    """A value for umtprd.conf: its parser reads "..." strings without escapes, so none may hold a quote."""
    if '"' in value or "\n" in value:
        raise ValueError(f"umtprd.conf cannot hold {value!r} (quote or newline)")
    return f'"{value}"'


@dataclass
class MtpResponder(Function):
    """FunctionFS function served by umtprd; `storage` is the directory the host sees as the device's storage."""

    kind: str = "ffs"
    module: str = "usb_f_fs"
    instance: str = "mtp"
    android_name: ClassVar[str | None] = "mtp"
    storage: str = "/tmp/hil-mtp/store"
    buffer_bytes: int | None = None  # umtprd's USB read and write buffer length; None: its default
    workdir: str = "/tmp/hil-mtp"
    serial: str = "hil-mtp"
    speed: str = "high"  # the link's USB speed (full, high, super): umtprd's packet size, the shim at super
    superspeed_shim: str | None = None  # a path on the board; None: the deployed ffs_superspeed library
    descriptor_dump: str | None = None  # a file on the board: the shim copies umtprd's descriptors there
    responder: Background | None = field(default=None, repr=False)
    # Set by a backend whose board runs its own responder (Android's): what version() reports.
    board_responder: str | None = None
    descriptors: str | None = field(default=None, repr=False)  # what the shim did, as it said it

    def __post_init__(self) -> None:
        if self.speed not in BULK_MAXPACKET:
            raise ValueError(f"MTP over USB {self.speed!r} speed: known speeds are {', '.join(BULK_MAXPACKET)}")

    @property
    def uses_shim(self) -> bool:
        """ffs_superspeed runs at super speed, and when a descriptor dump is asked (it writes the dump)."""
        return self.speed == "super" or self.descriptor_dump is not None

    @property
    def mountpoint(self) -> str:
        return f"/dev/ffs-{self.instance}"

    @property
    def config_path(self) -> str:
        return f"{self.workdir}/umtprd.conf"

    def config(self) -> str:
        """umtprd.conf: one storage, FunctionFS endpoints, no inotify (with it, umtprd 1.3.10 under dummy_hcd
        never answers after a SendObject: measured on the virtual board)."""
        ep = self.mountpoint
        lines = [
            "loop_on_disconnect 1",
            f"storage {_quote_conf(self.storage)} {_quote_conf('hil')} {_quote_conf('rw')}",
            f"manufacturer {_quote_conf('hil')}",
            f"product {_quote_conf('hil MTP responder')}",
            f"serial {_quote_conf(self.serial)}",
            f"interface {_quote_conf('MTP')}",
            "usb_vendor_id 0x1D6B",
            "usb_product_id 0x0100",
            "usb_class 0x6",
            "usb_subclass 0x1",
            "usb_protocol 0x1",
            "usb_dev_version 0x3008",
            "no_inotify 0x1",
            "usb_functionfs_mode 0x1",
            f"usb_dev_path {_quote_conf(ep + '/ep0')}",
            f"usb_epin_path {_quote_conf(ep + '/ep1')}",
            f"usb_epout_path {_quote_conf(ep + '/ep2')}",
            f"usb_epint_path {_quote_conf(ep + '/ep3')}",
            f"usb_max_packet_size {BULK_MAXPACKET[self.speed]:#x}",
        ]
        if self.buffer_bytes is not None:
            if self.buffer_bytes <= 0 or self.buffer_bytes % 512:
                raise ValueError(f"MTP buffer length {self.buffer_bytes} is not a positive multiple of 512")
            # The read cache must be a power of two larger than the USB read buffer (umtprd.conf's rule).
            cache = max(0x100000, 1 << (2 * self.buffer_bytes - 1).bit_length())
            lines += [
                f"usb_max_rd_buffer_size {self.buffer_bytes:#x}",
                f"usb_max_wr_buffer_size {self.buffer_bytes:#x}",
                f"read_buffer_cache_size {cache:#x}",
            ]
        return "\n".join(lines) + "\n"

    def prepare(self, role: Role) -> None:
        role.run(shell.cmd("mkdir", "-p", self.workdir, self.storage))

    def before_bind(self, role: Role, gadget_path: str) -> None:
        self.descriptors = None
        ep = shlex.quote(self.mountpoint)
        steps = [
            shell.cmd("mkdir", "-p", self.mountpoint),
            f"mountpoint -q {ep} || {shell.cmd('mount', '-t', 'functionfs', self.instance, self.mountpoint)}",
            f"printf %s {shlex.quote(self.config())} > {shlex.quote(self.config_path)}",
        ]
        role.run(shell.all_of(steps))
        argv = [UMTPRD, "-conf", self.config_path]
        if self.uses_shim:
            argv = ["env", *self._shim_environment(role), *argv]
        self.responder = role.background(
            shell.cmd(*argv),
            # Ready once it has written its descriptors: FunctionFS then creates the data endpoints.
            ready_command=f"[ -e {shlex.quote(self.mountpoint + '/ep1')} ]",
            ready_timeout_s=READY_TIMEOUT_S,
            name="umtprd",
        )
        self.responder.__enter__()  # start and wait; stopped in after_unbind, on every way out of the gadget
        if self.uses_shim:
            self.descriptors = self._shim_said(role)

    def _shim_environment(self, role: Role) -> list[str]:
        """What runs umtprd under ffs_superspeed; a board without the library is an error (ld.so would only warn,
        and the gadget would never enumerate at super speed)."""
        shim = self.superspeed_shim
        if shim is None:
            if role.deployment is None:
                raise LabError(f"{role.label}: hil's programs are not deployed there (hil.lab.board.deploy)")
            shim = role.deployment.library(SUPERSPEED_SHIM)
        if role.run_status(shell.cmd("test", "-f", shim))[0] != 0:
            raise LabError(f"{role.label}: {shim} is missing: umtprd needs it for SuperSpeed descriptors")
        env = [f"LD_PRELOAD={shim}"]
        if self.descriptor_dump is not None:
            env.append(f"HIL_FFS_DUMP={self.descriptor_dump}")
        return env

    def _shim_said(self, role: Role) -> str:
        """The shim's line about umtprd's descriptors; an error unless they have a SuperSpeed set now."""
        assert self.responder is not None
        out = role.run(shell.cmd("cat", f"{self.responder.directory}/out"), check=False, timeout=30)
        said = [match["what"] for match in _SHIM_LINE.finditer(out)]
        if not said or not (said[-1].startswith("added ") or "already has SuperSpeed" in said[-1]):
            raise LabError(
                f"{role.label}: umtprd's descriptors have no SuperSpeed set "
                f"(ffs_superspeed: {said[-1] if said else 'said nothing: not loaded?'})\n--- umtprd's output ---\n{out}"
            )
        return said[-1]

    def after_unbind(self, role: Role, gadget_path: str) -> None:
        if self.responder is not None:
            responder, self.responder = self.responder, None
            responder.stop()
        ep = shlex.quote(self.mountpoint)
        role.run(f"! mountpoint -q {ep} || umount {ep}", timeout=30)

    def cleanup(self, role: Role) -> None:
        role.run(shell.cmd("rm", "-rf", self.workdir), check=False, timeout=60)

    def version(self, role: Role) -> str:
        """umtprd's version as it printed it at start, the board's own responder, or why it is unknown."""
        if self.board_responder is not None:
            return self.board_responder
        if self.responder is None:
            return "umtprd (not running)"
        out = role.run(shell.cmd("cat", f"{self.responder.directory}/out"), check=False, timeout=30)
        match = _VERSION.search(out)
        version = f"umtprd {match[1]}" if match else "umtprd (version not printed)"
        return f"{version}, ffs_superspeed: {self.descriptors}" if self.descriptors else version

    def stored_bytes(self, role: Role, name: str) -> int | None:
        """Size of an object in the storage directory as the board's filesystem sees it; None if absent."""
        path = shlex.quote(f"{self.storage}/{name}")
        # stat, not wc: busybox wc reads the whole object to count it (seconds for 256 MiB on the virtual board).
        out = role.run(f"[ -f {path} ] && stat -c %s {path} || echo none", timeout=60).strip()
        return int(out) if out.isdigit() else None

    def remove_object(self, role: Role, name: str) -> None:
        role.run(shell.cmd("rm", "-f", f"{self.storage}/{name}"), timeout=60)
