#!/bin/sh
# Regenerate the /proc files in this folder (see ../README.md). Run as root on a Debian 12 PC with loop
# devices: `sh capture.sh`. hil.lab.storage.filesystem reads them on a board to tell whether its kernel has a
# file system and which options a mount got.
set -u
cd "$(dirname "$0")"
image=/var/tmp/hil-proc-capture.img
mountpoint=/mnt/hil-nvme
truncate -s 64M "$image"
trap 'umount "$mountpoint" 2>/dev/null; rm -f "$image"' EXIT

capture() {  # NAME COMMAND
    sh -c "$2" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $2"
        echo "tool: $(uname -sr)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m)"
    } >"$1.source"
}

capture filesystems "cat /proc/filesystems"
# An ext4 mounted as hil mounts one on a board's NVMe namespace, with an option that shows in the listing.
mkfs.ext4 -F -q -b 4096 "$image" && mkdir -p "$mountpoint" && mount -t ext4 -o nobarrier "$image" "$mountpoint"
# The kernel's, the root's and the block devices' mounts: a board's listing, without the PC's own mounts.
capture mounts-ext4-nobarrier "grep -E '^(proc|sysfs|devtmpfs|/dev/)' /proc/mounts"
