#!/bin/sh
# Regenerate the resource_mmap_test outputs in this folder (see ../README.md). Run on a Debian 12 PC with
# gcc: `sh capture.sh`. There is no PCI BAR here: the program maps a regular file instead (mmap works on
# both), so the figures are RAM page-cache rates, not PCIe ones; the line format is the program's own.
set -u
cd "$(dirname "$0")"
export LC_ALL=C
scratch=/var/tmp/hil-bar-capture
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
make -s -C ../../../hil/tools OUT="$scratch/bin" >/dev/null
tool="$scratch/bin/resource_mmap_test"
dd if=/dev/zero of="$scratch/resource2" bs=1M count=4 status=none

capture() {  # NAME COMMAND
    sh -c "$2" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $2"
        echo "tool: resource_mmap_test (hil/tools/resource_mmap_test.c, gcc $(gcc -dumpfullversion) -O2 -static)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), LC_ALL=C"
    } >"$1.source"
}

capture file-4M-32bit "$tool $scratch/resource2 4194304 32 16"
capture file-4M-64bit "$tool $scratch/resource2 4194304 64 16"
capture file-4K-32bit-hex-size "$tool $scratch/resource2 0x1000 32 1000"
# Asked for more than the resource holds (a BAR smaller than the setting): refused before mapping.
capture file-too-small "$tool $scratch/resource2 8388608 32 1"
capture missing-resource "$tool $scratch/resource9 4096 32 1"
capture bad-width "$tool $scratch/resource2 4096 16 1"
