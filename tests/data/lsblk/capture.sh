#!/bin/sh
# Regenerate the lsblk listings in this folder (see ../README.md). Run as root on a Debian 12 PC with loop devices:
# `sh capture.sh`. hil.lab.usb_host.pc_disk reads them on the lab PC to tell whether a disk it is
# about to write raw holds something the PC uses. The loop device stands for the USB disk (lsblk calls it a loop,
# not a disk): a partition table of two partitions, then one of them mounted. And the disk the PC's root filesystem
# is on (a virtual machine's disk, its filesystem on the whole disk).
set -u
cd "$(dirname "$0")"
image=/var/tmp/hil-lsblk-capture.img
mountpoint=/mnt/hil-lsblk
truncate -s 64M "$image"
disk=$(losetup --find --show --partscan "$image")
trap 'umount "$mountpoint" 2>/dev/null; losetup -d "$disk"; rm -f "$image"' EXIT

capture() {  # NAME COMMAND
    sh -c "$2" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $2"
        echo "tool: $(lsblk --version)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m)"
    } >"$1.source"
}

printf 'label: dos\n,32M\n,\n' | sfdisk -q "$disk" && partx -u "$disk" 2>/dev/null; udevadm settle
capture unused "lsblk -nro NAME,TYPE,MOUNTPOINT $disk"
mkfs.ext4 -F -q "${disk}p1" && mkdir -p "$mountpoint" && mount "${disk}p1" "$mountpoint"
capture mounted "lsblk -nro NAME,TYPE,MOUNTPOINT $disk"
capture root-disk "lsblk -nro NAME,TYPE,MOUNTPOINT $(findmnt -no SOURCE /)"
