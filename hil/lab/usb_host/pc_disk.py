"""The pair's USB disk on the lab PC (seed 000: the same USB3 disk on a PC, so a slow disk is told from a slow
board), found on the `peer` role by its USB serial. A PC without it skips the case; a disk on a slower port,
or one the PC uses (mounted, swap, LVM, dm-crypt), is an error: hil would compare ports, or destroy data.
"""

from __future__ import annotations

from dataclasses import dataclass

from hil.catalogue.usb_host import DiskSettings
from hil.errors import LabError, Unavailable
from hil.lab.board import shell
from hil.lab.board.role import Role
from hil.lab.pair import BoardPair
from hil.lab.usb_host import usbhost

PLUGGED_S = 2.0  # the disk was plugged in before the run: no enumeration to wait for


@dataclass(frozen=True)
class PcDisk:
    role: Role  # the pair's peer, the lab PC
    node: str  # /dev/sdX
    facts: dict[str, str]  # its USB identity, speed and driver, for the results measured on it


def find(pair: BoardPair) -> PcDisk:
    """The pair's disk on the lab PC, checked: on the pair's link speed, used by nothing of the PC's."""
    serial = pair.settings(DiskSettings).on_the_pc
    if not serial:
        raise LabError(
            f"{pair.name}: set disk.serial (the board's disk, moved to the lab PC) or disk.pc_serial (an identical "
            "disk kept on the lab PC)"
        )
    peer = pair.role("peer")
    try:
        device = usbhost.wait_for_device(peer, serial, timeout_s=PLUGGED_S)
    except usbhost.NotEnumerated as absent:
        advice = (
            "the pair's link is emulated: its disk is a device of the board's emulator"
            if pair.link.emulated
            else "plug the pair's disk into it, or name an identical disk kept there in disk.pc_serial"
        )
        lacks = f"{pair.name}: the lab PC has no USB disk with serial {serial}"
        raise Unavailable(f"{lacks}: {advice} ({absent})") from None
    usbhost.require_speed(device, pair.link.speed, f"{pair.name} ({peer.label}) disk {serial}")
    protocol = usbhost.storage_protocol(peer, device)
    node = usbhost.wait_for_block_device(peer, device, timeout_s=PLUGGED_S)
    in_use = holding(peer.run(shell.cmd("lsblk", "-nro", "NAME,TYPE,MOUNTPOINT", node), timeout=30), node)
    if in_use:
        raise LabError(f"{peer.label}: {node} (serial {serial}) is in use ({in_use}): hil writes its raw device")
    facts = {
        "usb_disk_pc": f"{device.vendor_id}:{device.product_id} serial {serial} at {device.sysfs} on {peer.label}",
        "usb_disk_pc_protocol": protocol,
        "usb_disk_pc_speed": f"{device.speed_mbps:g} Mb/s ({device.speed})",
    }
    return PcDisk(peer, node, facts)


def holding(lsblk: str, node: str) -> str:
    """What holds the disk `node`, from `lsblk -nro NAME,TYPE,MOUNTPOINT NODE`: a device mounted or swapped on, or
    below the disk one that is no partition (LVM, RAID, dm-crypt); '' when nothing does. It fails closed: a
    listing whose first row is not that whole disk is a LabError, never "free"."""
    rows = [line for line in lsblk.splitlines() if line.strip()]
    first = [*rows[0].split(maxsplit=2), "", ""][:2] if rows else []
    if first[:1] != [node.rsplit("/", 1)[-1]] or first[1] in ("part", ""):
        raise LabError(f"lsblk {node} did not list that whole disk first, so hil cannot tell it is free: {lsblk!r}")
    held = []
    for row, line in enumerate(rows):
        name, kind, mountpoint = [*line.split(maxsplit=2), "", ""][:3]
        if mountpoint:
            held.append(f"{name} on {mountpoint}")
        elif row > 0 and kind != "part":
            held.append(f"{name} ({kind})")
    return ", ".join(held)
