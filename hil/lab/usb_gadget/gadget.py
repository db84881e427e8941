"""USB gadgets on the device role: the functions a test asks for, and the backends that run them.

The pair's `link.gadget` in boards.yaml picks the backend (hil.lab.usb_gadget.on_link), a `GadgetBackend`:
`Gadget` (configfs, the default: hil builds, binds and removes its own gadget; the virtual lab, Linux BSPs)
or hil.lab.usb_gadget.android.AndroidGadget (Android's init owns the gadget; hil switches sys.usb.config).
Either way, whatever happens inside the `with` block, the next test finds the UDC free of what this one used.
"""

from __future__ import annotations

import abc
import logging
import re
import secrets
import shlex
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import ClassVar

from hil.errors import CommandFailed, LabError
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.usb_gadget import udc

CONFIGFS = "/sys/kernel/config/usb_gadget"
log = logging.getLogger(__name__)

# A function's bind failing because the sysfs directory it adds to was gone (ENOENT): seen on the virtual lab
# in 3 of 7 cold runs, f_ecm bound right after the MTP gadget was removed ("kobject_add_internal failed for
# usb1 (error: -2 parent: net)"): the earlier gadget's sysfs entries were still being torn down. Only this
# failure is tried once more, with a new gadget after a pause; every other one is the error at once.
SYSFS_RACE = re.compile(r"kobject_add_internal failed for \S+ \(error: -2 ")
SYSFS_RACE_WAIT_S = 2


@dataclass
class Function:
    """One configfs function instance: `functions/<kind>.<instance>` with its attributes."""

    kind: str  # configfs function type: mass_storage, ecm, ncm, rndis, ffs, uvc, hid
    module: str  # kernel module providing it
    instance: str = "0"
    attributes: dict[str, object] = field(default_factory=dict)  # path below the function dir -> value
    # Its name in Android's sys.usb.config (hil.lab.usb_gadget.android); None: Android offers no such function that
    # hil could configure, so the android backend refuses it.
    android_name: ClassVar[str | None] = None

    @property
    def dirname(self) -> str:
        return f"{self.kind}.{self.instance}"

    def prepare(self, role: Role) -> None:
        """Create what the function needs on the device before it is configured (backing files, ...)."""

    def attribute_commands(self, fdir: str) -> list[str]:
        """Shell commands writing the function's attributes into its configfs directory `fdir`."""
        return [shell.write(f"{fdir}/{attr}", value) for attr, value in self.attributes.items()]

    def cleanup(self, role: Role) -> None:
        """Remove what `prepare` created."""

    def tree(self, fdir: str) -> list[str]:
        """Shell steps that build what the function needs below its directory (before its attributes)."""
        return []

    def untree(self, fdir: str) -> str | None:
        """A shell script that removes what `tree` built, so the function directory itself can go."""
        return None

    def before_bind(self, role: Role, gadget_path: str) -> None:
        """Before the UDC is bound: FunctionFS daemons start here (they write the descriptors the bind needs)."""

    def after_unbind(self, role: Role, gadget_path: str) -> None:
        """After the UDC is unbound (or on a leftover gadget), before configfs removes the function."""


@dataclass
class MassStorage(Function):
    """Mass-storage function with one LUN backed by a file, preferably on tmpfs so storage is not the limit."""

    kind: str = "mass_storage"
    module: str = "usb_f_mass_storage"
    android_name: ClassVar[str | None] = "mass_storage"
    backing_file: str = "/tmp/hil-msc-lun0.img"
    size_mb: int = 256
    removable: bool = False
    read_only: bool = False

    def __post_init__(self) -> None:
        self.attributes = {
            "stall": 1,
            "lun.0/removable": int(self.removable),
            "lun.0/ro": int(self.read_only),
            "lun.0/file": self.backing_file,
        }

    def prepare(self, role: Role) -> None:
        # Written out, not sparse: reading holes of a sparse file would be faster than reading data.
        role.run(
            shell.cmd("dd", "if=/dev/zero", f"of={self.backing_file}", "bs=1M", f"count={self.size_mb}")
            + " 2>/dev/null",
            timeout=120,
        )

    def cleanup(self, role: Role) -> None:
        role.run(shell.cmd("rm", "-f", self.backing_file), check=False)


@dataclass
class NetworkFunction(Function):
    """A USB Ethernet function (ECM, NCM, RNDIS); unset MACs are the kernel's random ones, qmult its 5."""

    dev_addr: str | None = None
    host_addr: str | None = None
    qmult: int | None = None

    def __post_init__(self) -> None:
        wanted = {"dev_addr": self.dev_addr, "host_addr": self.host_addr, "qmult": self.qmult}
        self.attributes = {name: value for name, value in wanted.items() if value is not None}

    def interface(self, role: Role, function_dir: str) -> str:
        """The gadget-side interface name the kernel gave this function (usb0, ...), once it is bound."""
        name = role.read(f"{function_dir}/ifname")
        if not name or name == "(unnamed net_device)" or not name.replace("_", "").isalnum():
            raise LabError(f"{role.label}: {self.dirname} has no network interface (ifname: {name!r})")
        return name


@dataclass
class Ecm(NetworkFunction):
    """CDC ECM: one Ethernet frame per USB transfer; the host binds cdc_ether."""

    kind: str = "ecm"
    module: str = "usb_f_ecm"
    android_name: ClassVar[str | None] = "ecm"


@dataclass
class Ncm(NetworkFunction):
    """CDC NCM: several frames per USB transfer (NTB); the host binds cdc_ncm."""

    kind: str = "ncm"
    module: str = "usb_f_ncm"
    android_name: ClassVar[str | None] = "ncm"


@dataclass
class Rndis(NetworkFunction):
    """Microsoft RNDIS (seed 000 "USB Rndis 传输速率分析"); the host binds rndis_host."""

    kind: str = "rndis"
    module: str = "usb_f_rndis"
    android_name: ClassVar[str | None] = "rndis"


NETWORK_FUNCTIONS: dict[str, type[NetworkFunction]] = {"ecm": Ecm, "ncm": Ncm, "rndis": Rndis}


def network_function(name: str, **options: object) -> NetworkFunction:
    """The USB Ethernet function called `name` (ecm, ncm, rndis), as a test parameter names it."""
    try:
        return NETWORK_FUNCTIONS[name](**options)  # type: ignore[arg-type]
    except KeyError:
        raise ValueError(f"unknown USB network function {name!r} (known: {', '.join(NETWORK_FUNCTIONS)})") from None


UVC_FORMATS = {"yuyv": ("uncompressed", "u"), "mjpeg": ("mjpeg", "m")}  # configfs group, our name for it


@dataclass
class Uvc(Function):
    """A UVC camera (usb_f_uvc) with one format and one frame size, fed by hil/tools/uvc_source.c.

    Mainline f_uvc (Linux 6.1) streams isochronously only: bulk exists only in vendor kernels (seed 000
    table 3-6, Rockchip's patch).
    """

    kind: str = "uvc"
    module: str = "usb_f_uvc"
    fmt: str = "yuyv"
    width: int = 640
    height: int = 480
    maxpacket: int = 1024  # bytes per (micro)frame: 1024, 2048 or 3072 (high-bandwidth) at high speed
    interval: int = 1  # streaming_interval: serviced every 2^(interval-1) (micro)frames
    maxburst: int = 0  # streaming_maxburst: bursts of maxburst+1 packets per service interval, super speed only
    frame_interval: int = 333333  # 100 ns units: the 30 fps a camera would announce
    # Vendor kernels only (Rockchip's f_uvc: `streaming_bulk`); not tried on such a kernel here.
    bulk: bool = False

    def __post_init__(self) -> None:
        if self.fmt not in UVC_FORMATS:
            raise ValueError(f"UVC format must be one of {', '.join(UVC_FORMATS)}, got {self.fmt!r}")
        if self.maxpacket not in (1024, 2048, 3072) and not 1 <= self.maxpacket <= 1024:
            raise ValueError(f"streaming_maxpacket {self.maxpacket} is not 1..1024, 2048 or 3072")
        # f_uvc's own ranges (seed 000's patches: "1 - 16", "0 - 15 (ss only)"); it would clamp what is outside.
        if not 1 <= self.interval <= 16:
            raise ValueError(f"streaming_interval {self.interval} is not 1..16 (2^(interval-1) (micro)frames)")
        if not 0 <= self.maxburst <= 15:
            raise ValueError(f"streaming_maxburst {self.maxburst} is not 0..15 (bursts of maxburst+1 packets)")
        self.attributes = {
            "streaming_maxpacket": self.maxpacket,
            "streaming_interval": self.interval,
            "streaming_maxburst": self.maxburst,
        }
        if self.bulk:
            self.attributes["streaming_bulk"] = 1

    @property
    def frame_bytes(self) -> int:
        """dwMaxVideoFrameBufferSize: a YUYV frame exactly, an upper bound for a JPEG."""
        return self.width * self.height * 2

    def max_payload(self, speed: str) -> int:
        """dwMaxPayloadTransferSize the source announces: what one service interval carries."""
        if self.bulk:  # a bulk camera sends a whole frame per transfer
            return self.frame_bytes
        return self.maxpacket * (self.maxburst + 1) if speed == "super" else self.maxpacket

    def tree(self, fdir: str) -> list[str]:
        group, name = UVC_FORMATS[self.fmt]
        fmt = f"{fdir}/streaming/{group}/{name}"
        frame = f"{fmt}/f1"
        steps = [shell.cmd("mkdir", "-p", frame, f"{fdir}/streaming/header/h", f"{fdir}/control/header/h")]
        values = {
            "wWidth": self.width,
            "wHeight": self.height,
            "dwMaxVideoFrameBufferSize": self.frame_bytes,
            "dwDefaultFrameInterval": self.frame_interval,
            "dwFrameInterval": self.frame_interval,
        }
        steps += [shell.write(f"{frame}/{attr}", value) for attr, value in values.items()]
        steps.append(shell.cmd("ln", "-s", fmt, f"{fdir}/streaming/header/h/{name}"))
        for part, speeds in (("streaming", ("fs", "hs", "ss")), ("control", ("fs", "ss"))):
            steps += [shell.cmd("ln", "-s", f"{fdir}/{part}/header/h", f"{fdir}/{part}/class/{s}/h") for s in speeds]
        return steps

    def untree(self, fdir: str) -> str:
        # Links first, then frames, formats and headers (configfs refuses to remove a linked group).
        d = shlex.quote(fdir)
        links = f"{d}/streaming/class/*/h {d}/control/class/*/h {d}/streaming/header/h/*"
        frames = f"{d}/streaming/uncompressed/*/* {d}/streaming/mjpeg/*/*"
        groups = f"{d}/streaming/uncompressed/* {d}/streaming/mjpeg/* {d}/streaming/header/h {d}/control/header/h"
        return (
            f'for l in {links}; do [ -L "$l" ] && rm "$l"; done; '
            f'for x in {frames}; do [ -d "$x" ] && rmdir "$x"; done; '
            f'for x in {groups}; do [ -d "$x" ] && rmdir "$x"; done'
        )

    def video_node(self, role: Role) -> str:
        """The gadget's own V4L2 output node (/dev/videoN), found through sysfs once the gadget is bound."""
        found = role.run(
            "for v in /sys/class/video4linux/*; do "
            'case "$(readlink -f "$v/device")" in */gadget*) echo "${v##*/}";; esac; done',
            check=False,
        ).split()
        if len(found) != 1 or not found[0].startswith("video") or not found[0][5:].isdigit():
            raise LabError(f"{role.label}: expected one UVC gadget video node, found {found or 'none'}")
        return f"/dev/{found[0]}"


@dataclass
class Hid(Function):
    """HID function (usb_f_hid) with a vendor-defined report descriptor and an interrupt OUT endpoint.

    f_hid makes each endpoint's wMaxPacketSize `report_length`: one report is one packet. The interval is
    the kernel's (6.1's f_hid has no attribute for it), so tests read it from the enumerated endpoint.
    """

    kind: str = "hid"
    module: str = "usb_f_hid"
    report_length: int = 512

    def __post_init__(self) -> None:
        if not 1 <= self.report_length <= 1024:
            raise ValueError(f"HID report_length {self.report_length} must be 1..1024 (one interrupt packet)")
        self.attributes = {"protocol": 0, "subclass": 0, "no_out_endpoint": 0, "report_length": self.report_length}

    def report_descriptor(self) -> bytes:
        """Vendor page 0xFF00, one input and one output report of `report_length` bytes, no report IDs."""
        n = self.report_length.to_bytes(2, "little")
        return bytes(
            [
                *(0x06, 0x00, 0xFF, 0x09, 0x01, 0xA1, 0x01),  # Usage Page (vendor), Usage 1, Collection (Application)
                *(0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08),  # Logical 0..255, Report Size 8 bits
                *(0x96, *n, 0x09, 0x02, 0x81, 0x02),  # Report Count n, Usage 2, Input (Data, Var, Abs)
                *(0x96, *n, 0x09, 0x03, 0x91, 0x02),  # Report Count n, Usage 3, Output (Data, Var, Abs)
                0xC0,  # End Collection
            ]
        )

    def attribute_commands(self, fdir: str) -> list[str]:
        # The descriptor is binary: printf with an octal escape per byte, never a byte pasted in.
        escaped = "".join(f"\\{byte:03o}" for byte in self.report_descriptor())
        return [
            *super().attribute_commands(fdir),
            f"printf {shlex.quote(escaped)} > {shlex.quote(fdir + '/report_desc')}",
        ]


@dataclass
class GadgetIdentity:
    vendor_id: int = 0x1D6B  # Linux Foundation
    product_id: int = 0x0104  # Multifunction Composite Gadget
    manufacturer: str = "hil"
    product: str = "hil test gadget"
    serial: str = field(default_factory=lambda: f"hil{secrets.token_hex(6)}")


class GadgetBackend(abc.ABC):
    """One way of running a set of functions on the device role's UDC: entering binds them, leaving (on
    every way out) leaves the UDC as it was found, never hiding the `with` block's own exception."""

    backend: ClassVar[str]  # as boards.yaml's link.gadget names it
    max_speed: ClassVar[str | None] = None  # a USB speed name when the backend cannot run at the link's speed
    role: Role
    functions: list[Function]
    identity: GadgetIdentity | None  # VID:PID and serial the host should see (known once bound)

    @property
    def serial(self) -> str:
        """The serial number the host sees: how `usbhost.wait_for_device` finds this gadget ("" until known)."""
        return self.identity.serial if self.identity is not None else ""

    @abc.abstractmethod
    def function_dir(self, function: Function) -> str:
        """The configfs directory of a bound function (its `ifname`, `lun.0/file`, `dev` live there)."""

    @abc.abstractmethod
    def describe(self) -> str:
        """What ran, for the results' facts."""

    def reconnect(self, while_off: Callable[[], None]) -> None:
        """Off the bus, `while_off` (the host letting the device go), on the bus again: seed 001's cable
        detached and attached. A backend that cannot says so."""
        raise LabError(f"{self.role.label}: hil does not take a {self.backend} gadget off the bus and back")

    @abc.abstractmethod
    def __enter__(self) -> GadgetBackend: ...

    def __exit__(self, *exc_info: object) -> None:
        if exc_info[0] is None:
            self.release()
        else:
            self.release_quietly()  # never hide the test's own exception behind a cleanup error

    @abc.abstractmethod
    def release(self) -> None:
        """Leave the UDC as this backend found it."""

    def release_quietly(self) -> None:
        reason = self.role.suspect_reason
        if reason is not None:  # its console already failed: the power cycle resets it
            log.warning("%s: %s left to the power cycle (%s)", self.role.label, self.describe(), reason)
            return
        try:
            self.release()
        except Exception as exc:  # the board may be the reason we are here
            log.warning("%s: could not release %s: %s", self.role.label, self.describe(), exc)


@dataclass(eq=False)
class Gadget(GadgetBackend):
    """hil's own configfs gadget (see the module docstring)."""

    backend = "configfs"

    role: Role
    udc: str
    functions: list[Function]
    _: KW_ONLY
    name: str = "hil"
    identity: GadgetIdentity = field(default_factory=GadgetIdentity)

    @property
    def path(self) -> str:
        return f"{CONFIGFS}/{self.name}"

    def function_dir(self, function: Function) -> str:
        return f"{self.path}/functions/{function.dirname}"

    def describe(self) -> str:
        return f"configfs gadget {self.path}"

    def __enter__(self) -> Gadget:
        self.remove()  # leftovers of an earlier crashed test
        try:
            self._make_and_bind()
        except CommandFailed as exc:
            if not SYSFS_RACE.search(exc.output):
                raise
            # A function whose bind failed is spent (binding it again registered its network device twice:
            # a kernel BUG, 2026-11-27): the whole tree went, and a new one is made.
            log.warning(
                "%s: gadget %s did not bind: the sysfs directory its function adds to was gone (the last "
                "gadget still being torn down); making it again in %g s:\n%s",
                self.role.label,
                self.name,
                SYSFS_RACE_WAIT_S,
                exc.output,
            )
            self.role.run(shell.cmd("sleep", SYSFS_RACE_WAIT_S))
            self._make_and_bind()
        return self

    def _make_and_bind(self) -> None:
        """The tree, each function's preparation, the UDC; whatever fails, the tree goes again."""
        try:
            self.create()
            for function in self.functions:
                function.before_bind(self.role, self.path)
            self.bind()
        except BaseException:
            self.release_quietly()
            raise

    def create(self) -> None:
        modules = sorted({"libcomposite", *(f.module for f in self.functions)})
        self.role.run(shell.cmd("modprobe", "-a", *modules), timeout=60)
        for function in self.functions:
            function.prepare(self.role)
        ident = self.identity
        p = self.path
        steps = [
            shell.cmd("mkdir", "-p", f"{p}/strings/0x409", f"{p}/configs/c.1/strings/0x409"),
            shell.write(f"{p}/idVendor", f"0x{ident.vendor_id:04x}"),
            shell.write(f"{p}/idProduct", f"0x{ident.product_id:04x}"),
            shell.write(f"{p}/strings/0x409/manufacturer", ident.manufacturer),
            shell.write(f"{p}/strings/0x409/product", ident.product),
            shell.write(f"{p}/strings/0x409/serialnumber", ident.serial),
            shell.write(f"{p}/configs/c.1/strings/0x409/configuration", "hil"),
            shell.write(f"{p}/configs/c.1/MaxPower", 250),  # mA
        ]
        self.role.run(shell.all_of(steps))
        for function in self.functions:
            fdir = self.function_dir(function)
            steps = [shell.cmd("mkdir", fdir), *function.tree(fdir), *function.attribute_commands(fdir)]
            steps.append(shell.cmd("ln", "-s", fdir, f"{p}/configs/c.1/{function.dirname}"))
            self.role.run(shell.all_of(steps))

    def bind(self) -> None:
        available = self.role.run(shell.cmd("ls", "/sys/class/udc"), check=False).split()
        if self.udc not in available:
            raise LabError(f"{self.role.label}: UDC {self.udc!r} not present (found: {', '.join(available) or 'none'})")
        command = shell.write(f"{self.path}/UDC", self.udc)
        status, output = self.role.run_status(command)
        if status != 0:
            # The kernel says why a function refused to bind (an endpoint it could not get, a busy UDC): its
            # last lines go into the error, the shell's "I/O error" alone names nothing.
            kernel = self.role.run("dmesg | tail -n 15", check=False).strip()
            reloaded = udc.reload_udc_module(self.role, self.udc)
            after = (
                f"\n({reloaded} reloaded: a failed bind leaves it unable to attach the next gadget)" if reloaded else ""
            )
            raise CommandFailed(
                self.role.label, command, status, f"{output.strip()}\nthe kernel's last messages:\n{kernel}{after}"
            )

    def reconnect(self, while_off: Callable[[], None]) -> None:
        # Unbound from the UDC and bound again. Its soft_connect would keep the functions bound, but on the virtual
        # lab (dummy_udc, Linux 6.1) `connect` after `disconnect` brought no device back within 30 s (2026-11-28).
        self.unbind()
        try:
            while_off()
        finally:
            self.bind()

    def unbind(self) -> None:
        udc = shlex.quote(f"{self.path}/UDC")
        # Writing an empty name to a gadget that is not bound fails with ENODEV: only unbind a bound one.
        self.role.run(f'[ ! -e {udc} ] || [ -z "$(cat {udc})" ] || {shell.write(f"{self.path}/UDC", "")}')

    def remove(self) -> None:
        """Unbind and delete the configfs tree, in the order configfs insists on; no-op if absent."""
        p = shlex.quote(self.path)
        if self.role.run_status(f"[ -d {p} ]")[0] == 0:
            self.unbind()
            untrees = ""
            for function in self.functions:
                function.after_unbind(self.role, self.path)
                fdir = self.function_dir(function)
                if untree := function.untree(fdir):
                    untrees += f"if [ -d {shlex.quote(fdir)} ]; then {untree}; fi; "
            # Links out of the configuration first, then strings, configurations, functions, the gadget.
            script = (
                f"cd {p} && "
                'for l in configs/*/*.*; do [ -L "$l" ] && rm "$l"; done; '
                'for d in configs/*/strings/* strings/*; do [ -d "$d" ] && rmdir "$d"; done; '
                + untrees
                + 'for d in configs/* functions/*; do [ -d "$d" ] && rmdir "$d"; done; '
                f"cd / && rmdir {p}"
            )
            self.role.run(script, timeout=60)
        for function in self.functions:
            function.cleanup(self.role)

    release = remove
