"""USB gadgets on the device role through configfs (libcomposite): create, bind, unbind, remove.

A `Gadget` is a context manager: whatever happens inside the `with` block, the gadget is unbound and its
configfs tree removed on the way out, so the next test finds the UDC free. A gadget left over by a crashed
run (same name) is removed before a new one is created.
"""

from __future__ import annotations

import logging
import secrets
import shlex
from dataclasses import dataclass, field

from hil.errors import LabError
from hil.lab import shell
from hil.lab.role import Role

CONFIGFS = "/sys/kernel/config/usb_gadget"
log = logging.getLogger(__name__)


@dataclass
class Function:
    """One configfs function instance: `functions/<kind>.<instance>` with its attributes."""

    kind: str  # configfs function type: mass_storage, ecm, ncm, rndis, ffs, uvc, hid
    module: str  # kernel module providing it
    instance: str = "0"
    attributes: dict[str, object] = field(default_factory=dict)  # path below the function dir -> value

    @property
    def dirname(self) -> str:
        return f"{self.kind}.{self.instance}"

    def prepare(self, role: Role) -> None:
        """Create what the function needs on the device before it is configured (backing files, ...)."""

    def cleanup(self, role: Role) -> None:
        """Remove what `prepare` created."""

    def before_bind(self, role: Role, gadget_path: str) -> None:
        """After configfs holds the function, before the UDC is bound: FunctionFS daemons start here
        (they write the descriptors the bind needs)."""

    def after_unbind(self, role: Role, gadget_path: str) -> None:
        """After the UDC is unbound (or on a leftover gadget), before configfs removes the function."""


@dataclass
class MassStorage(Function):
    """Mass-storage function with one LUN backed by a file, preferably on tmpfs so storage is not the limit."""

    kind: str = "mass_storage"
    module: str = "usb_f_mass_storage"
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
    """A USB Ethernet function (ECM, NCM, RNDIS): the gadget gets a network interface, the host another.

    MAC addresses default to the kernel's random ones; qmult multiplies the request queue length at
    high and super speed (the kernel's default is 5).
    """

    dev_addr: str | None = None
    host_addr: str | None = None
    qmult: int | None = None

    def __post_init__(self) -> None:
        wanted = {"dev_addr": self.dev_addr, "host_addr": self.host_addr, "qmult": self.qmult}
        self.attributes = {name: value for name, value in wanted.items() if value is not None}

    def interface(self, role: Role, gadget_path: str) -> str:
        """The gadget-side interface name the kernel gave this function (usb0, ...), once it is bound."""
        name = role.read(f"{gadget_path}/functions/{self.dirname}/ifname")
        if not name or name == "(unnamed net_device)" or not name.replace("_", "").isalnum():
            raise LabError(f"{role.label}: {self.dirname} has no network interface (ifname: {name!r})")
        return name


@dataclass
class Ecm(NetworkFunction):
    """CDC ECM: one Ethernet frame per USB transfer; the host binds cdc_ether."""

    kind: str = "ecm"
    module: str = "usb_f_ecm"


@dataclass
class Ncm(NetworkFunction):
    """CDC NCM: several frames per USB transfer (NTB); the host binds cdc_ncm."""

    kind: str = "ncm"
    module: str = "usb_f_ncm"


@dataclass
class Rndis(NetworkFunction):
    """Microsoft RNDIS (seed 000 "USB Rndis 传输速率分析"); the host binds rndis_host."""

    kind: str = "rndis"
    module: str = "usb_f_rndis"


NETWORK_FUNCTIONS: dict[str, type[NetworkFunction]] = {"ecm": Ecm, "ncm": Ncm, "rndis": Rndis}


def network_function(name: str, **options: object) -> NetworkFunction:
    """The USB Ethernet function called `name` (ecm, ncm, rndis), as a test parameter names it."""
    try:
        return NETWORK_FUNCTIONS[name](**options)  # type: ignore[arg-type]
    except KeyError:
        raise ValueError(f"unknown USB network function {name!r} (known: {', '.join(NETWORK_FUNCTIONS)})") from None


@dataclass
class GadgetIdentity:
    vendor_id: int = 0x1D6B  # Linux Foundation
    product_id: int = 0x0104  # Multifunction Composite Gadget
    manufacturer: str = "hil"
    product: str = "hil test gadget"
    serial: str = field(default_factory=lambda: f"hil{secrets.token_hex(6)}")


class Gadget:
    def __init__(
        self,
        role: Role,
        udc: str,
        functions: list[Function],
        *,
        name: str = "hil",
        identity: GadgetIdentity | None = None,
        max_power_ma: int = 250,
    ) -> None:
        self.role = role
        self.udc = udc
        self.functions = functions
        self.name = name
        self.identity = identity or GadgetIdentity()
        self.max_power_ma = max_power_ma
        self.path = f"{CONFIGFS}/{name}"

    @property
    def serial(self) -> str:
        return self.identity.serial

    def __enter__(self) -> Gadget:
        self.remove()  # leftovers of an earlier crashed test
        try:
            self.create()
            for function in self.functions:
                function.before_bind(self.role, self.path)
            self.bind()
        except BaseException:
            self._remove_quietly()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        if exc_info[0] is None:
            self.remove()
        else:
            self._remove_quietly()  # never hide the test's own exception behind a cleanup error

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
            shell.write(f"{p}/configs/c.1/MaxPower", self.max_power_ma),
        ]
        self.role.run(shell.all_of(steps))
        for function in self.functions:
            fdir = f"{p}/functions/{function.dirname}"
            steps = [shell.cmd("mkdir", fdir)]
            steps += [shell.write(f"{fdir}/{attr}", value) for attr, value in function.attributes.items()]
            steps.append(shell.cmd("ln", "-s", fdir, f"{p}/configs/c.1/{function.dirname}"))
            self.role.run(shell.all_of(steps))

    def bind(self) -> None:
        available = self.role.run(shell.cmd("ls", "/sys/class/udc"), check=False).split()
        if self.udc not in available:
            raise LabError(f"{self.role.label}: UDC {self.udc!r} not present (found: {', '.join(available) or 'none'})")
        self.role.run(shell.write(f"{self.path}/UDC", self.udc))

    def unbind(self) -> None:
        udc = shlex.quote(f"{self.path}/UDC")
        # Writing an empty name to a gadget that is not bound fails with ENODEV: only unbind a bound one.
        self.role.run(f'[ ! -e {udc} ] || [ -z "$(cat {udc})" ] || {shell.write(f"{self.path}/UDC", "")}')

    def remove(self) -> None:
        """Unbind and delete the configfs tree, in the order configfs insists on; no-op if absent."""
        p = shlex.quote(self.path)
        exists = self.role.run_status(f"[ -d {p} ]")[0] == 0
        if exists:
            self.unbind()
            for function in self.functions:
                function.after_unbind(self.role, self.path)
            # Links out of the configuration first, then strings, configurations, functions, the gadget.
            script = (
                f"cd {p} && "
                'for l in configs/*/*.*; do [ -L "$l" ] && rm "$l"; done; '
                'for d in configs/*/strings/* strings/*; do [ -d "$d" ] && rmdir "$d"; done; '
                'for d in configs/* functions/*; do [ -d "$d" ] && rmdir "$d"; done; '
                f"cd / && rmdir {p}"
            )
            self.role.run(script, timeout=60)
        for function in self.functions:
            function.cleanup(self.role)

    def _remove_quietly(self) -> None:
        if self.role.suspect_reason is not None:  # its console already failed: the power cycle removes it
            log.warning(
                "%s: gadget %s left to the power cycle (%s)", self.role.label, self.name, self.role.suspect_reason
            )
            return
        try:
            self.remove()
        except Exception as exc:  # the board may be the reason we are here
            log.warning("%s: could not remove gadget %s: %s", self.role.label, self.name, exc)
