#!/bin/sh
# Regenerates this folder's outputs on the machine it runs on (any Linux): the probes hil.diagnose runs.
# Usage: sh tests/data/diagnose/capture.sh [DISK]   (from the repository root; DISK defaults to vda)
set -u
disk=${1:-vda}
here=$(dirname "$0")
py=${PYTHON:-.venv/bin/python}
capture() {  # NAME COMMAND
    sh -c "$2" >"$here/$1.txt" 2>&1
    printf 'command: %s\nexit: %s\ncaptured: %s on %s %s, kernel %s, %s CPUs\n' "$2" "$?" "$(date -u +%F)" \
        "$(. /etc/os-release && echo "$PRETTY_NAME")" "$(uname -m)" "$(uname -r)" "$(nproc)" >"$here/$1.source"
}
capture "$disk-stat" "cat /sys/block/$disk/stat"
capture interrupts "cat /proc/interrupts"
capture "controller-$disk" "$("$py" -c "from hil.diagnose import probes; print(probes.controller_script('/dev/$disk'))")"
capture softirqs "cat /proc/softirqs"
capture snmp "cat /proc/net/snmp"
capture snapshot-lo "$("$py" -c "from hil.measure import board_state; print(board_state.script('before', ['/proc/stat', '/proc/interrupts', '/proc/softirqs', \"'/sys/class/net/lo/queues'/rx-*/rps_cpus\"]))")"
