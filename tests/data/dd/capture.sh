#!/bin/sh
# Regenerate the dd outputs in this folder (see ../README.md). Run on a Debian 12 PC: `sh capture.sh`.
# Each NAME.txt is the verbatim stdout+stderr of one command; NAME.source records how it was produced.
# `sh capture.sh NAME...` captures only those (numbers change from run to run: keep the others as they are).
set -u
only=" $* "
cd "$(dirname "$0")"
export LC_ALL=C  # dd's summary is localised (decimal comma): the boards run in the C locale
# On disk, not tmpfs: iflag/oflag=direct need O_DIRECT.
scratch=/var/tmp/hil-dd-capture
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT

capture() {  # NAME VERSION-COMMAND COMMAND
    case "$only" in "  " | *" $1 "*) ;; *) return ;; esac
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
# status=progress: a progress line each second (ended by CR, not LF) before the final summary; the
# progress lines have whole seconds and fewer bytes. /dev/urandom is slow enough for a few of them.
capture coreutils-progress "$coreutils" "dd if=/dev/urandom of=/dev/null bs=1M count=192 status=progress"
# SIGUSR1 makes dd print an interim summary (records and rate) and go on: two summaries, the last counts.
capture coreutils-usr1-two-summaries "$coreutils" "dd if=/dev/urandom of=/dev/null bs=1M count=96 iflag=fullblock & pid=\$!; sleep 0.5; kill -USR1 \$pid; wait \$pid"
# Without iflag=fullblock the signal cuts a read short: dd warns, goes on, and exits 0 short of the count.
capture coreutils-usr1-partial-read "$coreutils" "dd if=/dev/urandom of=/dev/null bs=1M count=96 & pid=\$!; sleep 0.5; kill -USR1 \$pid; wait \$pid"
# A short read that exits 0: count runs beyond the end of a 256 KiB file (whole blocks, then a partial one).
head -c 262144 /dev/zero >"$scratch/small.img"
head -c 100000 /dev/zero >"$scratch/odd.img"
capture coreutils-short-read "$coreutils" "dd if=$scratch/small.img of=/dev/null bs=64K count=16 iflag=direct"
capture coreutils-short-read-partial-block "$coreutils" "dd if=$scratch/odd.img of=/dev/null bs=64K count=16"
# Debian's busybox dd prints no rate line at all.
capture busybox-zero-64M "$busybox" "$busybox dd if=/dev/zero of=/dev/null bs=1M count=64"
capture busybox-missing-input "$busybox" "$busybox dd if=/nonexistent of=/dev/null"
capture busybox-no-space "$busybox" "$busybox dd if=/dev/zero of=/dev/full bs=1M count=1"
capture busybox-short-read "$busybox" "$busybox dd if=$scratch/small.img of=/dev/null bs=64K count=16"
