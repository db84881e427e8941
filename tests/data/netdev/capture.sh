#!/bin/sh
# Regenerate the loopback outputs in this folder (see ../README.md). Run on a Debian 12 PC: `sh capture.sh`.
# The command is hil.measure.netdev.statistics_command's. The vlab-* files come from the virtual board's
# USB Ethernet adapter (QEMU usb-net); their .source says how. This script does not regenerate them.
set -u
cd "$(dirname "$0")"
export LC_ALL=C

capture() {  # NAME INTERFACE
    command="grep -H ."
    for name in rx_bytes tx_bytes rx_packets tx_packets rx_errors tx_errors rx_dropped tx_dropped; do
        command="$command /sys/class/net/$2/statistics/$name"
    done
    sh -c "$command" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $command"
        echo "tool: Linux $(uname -r) sysfs, $(grep --version | head -n 1)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), LC_ALL=C, loopback"
    } >"$1.source"
}

capture pc-loopback lo
