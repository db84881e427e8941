#!/bin/sh
# Regenerate the PC captures in this folder (see ../README.md): `sh capture.sh` as root on a Debian 12 PC
# (the commands drop the page cache, as hil.measure.cpfile's copy does). Each command is the shape
# cpfile.copy_command builds (tests/measure/test_cpfile.py checks it), on a scratch directory.
# vlab-*.txt come from the virtual board instead: the raw output hil stored in reports/results.json.
set -u
only=" $* "
cd "$(dirname "$0")"
export LC_ALL=C
scratch=/var/tmp/hil-cp-capture
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
dd if=/dev/urandom of="$scratch/source.bin" bs=1M count=256 2>/dev/null

capture() {  # NAME COMMAND
    case "$only" in "  " | *" $1 "*) ;; *) return ;; esac
    sh -c "$2" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $2"
        echo "tool: $(cp --version 2>&1 | head -n 1); $(busybox 2>&1 | head -n 1); $(date --version 2>&1 | head -n 1)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), LC_ALL=C"
    } >"$1.source"
}

copy="{ : expect 268435456 bytes; } && { rm -f $scratch/hil-cp.bin; } && { sync && echo 3 > /proc/sys/vm/drop_caches; } && { t0=\$(date +%s%N); } && { cp $scratch/source.bin $scratch/hil-cp.bin 2>&1; } && { t1=\$(date +%s%N); } && { sync; } && { t2=\$(date +%s%N); } && { echo \"hil-cp: start=\$t0 copied=\$t1 synced=\$t2 bytes=\$(stat -c %s $scratch/hil-cp.bin)\"; }"
capture pc-coreutils-256M "$copy"
# The virtual board's cp is busybox's (an applet, as on many small boards).
capture pc-busybox-256M "$(echo "$copy" | sed 's/{ cp /{ busybox cp /')"
# A board whose date is busybox's: it has no %N and prints it as it is.
capture pc-busybox-date "$(echo "$copy" | sed 's/\$(date /$(busybox date /g')"
# A write error after 1 MiB (ulimit -f counts 512-byte blocks in dash; SIGXFSZ ignored: write fails, EFBIG).
capture pc-file-too-large "ulimit -f 2048; trap '' XFSZ; $copy"
# The source is not there (a read whose file never reached the disk).
capture pc-missing-source "$(echo "$copy" | sed 's/source\.bin /missing.bin /')"
