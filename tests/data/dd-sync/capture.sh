#!/bin/sh
# Regenerate the PC captures in this folder (see ../README.md): `sh capture.sh` as root on a Debian 12 PC
# (the commands drop the page cache, as hil.measure.ddfile's write does). Each command is the shape
# ddfile.write_command builds (tests/measure/test_ddfile.py checks it), on a scratch directory.
# vlab-*.txt come from the virtual board instead: the raw output hil stored in reports/results.json.
set -u
only=" $* "
cd "$(dirname "$0")"
export LC_ALL=C
scratch=/var/tmp/hil-dd-sync-capture
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT

capture() {  # NAME COMMAND
    case "$only" in "  " | *" $1 "*) ;; *) return ;; esac
    sh -c "$2" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $2"
        echo "tool: $(dd --version 2>&1 | head -n 1); $(date --version 2>&1 | head -n 1)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), LC_ALL=C"
    } >"$1.source"
}

file="$scratch/file.bin"
write="{ rm -f $file; } && { sync && echo 3 > /proc/sys/vm/drop_caches; } && { LC_ALL=C dd if=/dev/zero of=$file bs=64K count=256 2>&1; } && { s=\$(date +%s%N); } && { sync; } && { e=\$(date +%s%N); } && { echo \"sync-ns \$s \$e\"; }"
capture pc-write-64K-16M "$write"
# A board whose date is busybox's: it has no %N and prints it as it is.
capture pc-busybox-date "$(echo "$write" | sed 's/\$(date /$(busybox date /g')"
# An I/O error after 1 MiB (ulimit -f counts 512-byte blocks in dash; SIGXFSZ ignored: write fails, EFBIG).
capture pc-file-too-large "ulimit -f 2048; trap '' XFSZ; $write"
