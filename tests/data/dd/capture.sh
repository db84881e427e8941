#!/bin/sh
# Regenerate the dd outputs in this folder (see ../README.md). Run on a Debian 12 PC: `sh capture.sh`.
# Each NAME.txt is the verbatim stdout+stderr of one command; NAME.source records how it was produced.
set -u
cd "$(dirname "$0")"
export LC_ALL=C  # dd's summary is localised (decimal comma): the boards run in the C locale
# On disk, not tmpfs: iflag/oflag=direct need O_DIRECT.
scratch=/var/tmp/hil-dd-capture
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT

capture() {  # NAME VERSION-COMMAND COMMAND
    sh -c "$3" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $3"
        echo "tool: $(sh -c "$2" 2>&1 | head -n 1)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), LC_ALL=C"
    } >"$1.source"
}

coreutils="dd --version"
busybox="/bin/busybox"

capture coreutils-zero-64M "$coreutils" "dd if=/dev/zero of=/dev/null bs=1M count=64"
# The shapes hil.measure.dd builds: direct I/O, fsync on write.
capture coreutils-write-direct "$coreutils" "dd if=/dev/zero of=$scratch/disk.img bs=1M count=16 oflag=direct conv=fsync"
capture coreutils-read-direct "$coreutils" "dd if=$scratch/disk.img of=/dev/null bs=64K count=256 iflag=direct"
# Below 1000 bytes dd drops the "(1 kB, ...)" part; at 1 byte it says "byte", and tiny times use e-notation.
capture coreutils-512-bytes "$coreutils" "dd if=/dev/zero of=/dev/null bs=512 count=1"
capture coreutils-1-byte "$coreutils" "dd if=/dev/zero of=/dev/null bs=1 count=1"
capture coreutils-status-none "$coreutils" "dd if=/dev/zero of=/dev/null bs=1M count=1 status=none"
capture coreutils-missing-input "$coreutils" "dd if=/nonexistent of=/dev/null"
capture coreutils-no-space "$coreutils" "dd if=/dev/zero of=/dev/full bs=1M count=1"
# An I/O error after some data went through: dd still prints a summary with a rate, and exits 1.
# (ulimit -f counts 512-byte blocks in dash: 2048 = 1 MiB; SIGXFSZ ignored so write() fails with EFBIG.)
capture coreutils-partial-write "$coreutils" "ulimit -f 2048; trap '' XFSZ; dd if=/dev/zero of=$scratch/big.img bs=1M count=4"
# Debian's busybox dd prints no rate line at all.
capture busybox-zero-64M "$busybox" "$busybox dd if=/dev/zero of=/dev/null bs=1M count=64"
capture busybox-missing-input "$busybox" "$busybox dd if=/nonexistent of=/dev/null"
capture busybox-no-space "$busybox" "$busybox dd if=/dev/zero of=/dev/full bs=1M count=1"
