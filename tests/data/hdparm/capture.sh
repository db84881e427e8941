#!/bin/sh
# Regenerate the loop-device hdparm outputs in this folder (see ../README.md). Run as root on a Debian 12 PC:
# `sh capture.sh`. vlab-msc-hs comes from the virtual board's MSC gadget (its .source says how); this script
# does not regenerate it.
set -u
cd "$(dirname "$0")"
export LC_ALL=C
scratch=$(mktemp -d)

capture() {  # NAME COMMAND NOTE
    sh -c "$2" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $2"
        echo "tool: $(hdparm -V 2>&1 | head -n 1)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), LC_ALL=C, $3"
    } >"$1.source"
}

# A device smaller than 3 s of reading: hdparm reads all of it and times that.
truncate -s 64M "$scratch/64M.img"
loop=$(losetup --find --show "$scratch/64M.img")
capture loop-64M "hdparm -t $loop" "a 64 MiB loop device"
losetup --detach "$loop"
# Smaller than one of hdparm's 2 MiB reads: an error, and no timing.
truncate -s 1M "$scratch/1M.img"
loop=$(losetup --find --show "$scratch/1M.img")
capture loop-1M-too-small "hdparm -t $loop" "a 1 MiB loop device"
losetup --detach "$loop"
capture missing "hdparm -t /dev/hil-no-such-disk" "no such device"
rm -r "$scratch"
