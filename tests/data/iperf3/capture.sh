#!/bin/sh
# Regenerate the loopback iperf3 outputs in this folder (see ../README.md). Run on a Debian 12 PC:
# `sh capture.sh`. The vlab-* files come from the virtual board over a USB gadget link (their .source
# says how); this script does not regenerate them.
set -u
cd "$(dirname "$0")"
export LC_ALL=C
port=5299

capture() {  # NAME COMMAND (runs against a fresh one-off server on the loopback interface)
    iperf3 --server --port $port --daemon --one-off; sleep 0.5
    sh -c "$2" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $2"
        echo "tool: $(iperf3 --version 2>&1 | head -n 1)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), LC_ALL=C, loopback"
    } >"$1.source"
}

capture loopback-tcp "iperf3 --client 127.0.0.1 --port $port --time 2 --json"
capture loopback-tcp-reverse "iperf3 --client 127.0.0.1 --port $port --time 2 --json --reverse"
# Far above what loopback takes at 32 KiB datagrams: the receiver loses some (lost_packets > 0).
capture loopback-udp-lossy "iperf3 --client 127.0.0.1 --port $port --time 2 --json --udp --bitrate 8000M"
capture loopback-udp-reverse "iperf3 --client 127.0.0.1 --port $port --time 2 --json --reverse --udp --bitrate 100M"
# Interrupted the way hil.measure.iperf3 interrupts a stuck client: iperf3 prints what it has, with an error.
capture loopback-tcp-interrupted "timeout -s INT 2 iperf3 --client 127.0.0.1 --port $port --time 10 --json"
# No server listening: iperf3 -J prints a document with an "error" key and exits 1.
sh -c "iperf3 --client 127.0.0.1 --port $port --time 1 --json" >refused.txt 2>&1
status=$?
{
    echo "command: iperf3 --client 127.0.0.1 --port $port --time 1 --json"
    echo "tool: $(iperf3 --version 2>&1 | head -n 1)"
    echo "exit: $status"
    echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), LC_ALL=C, no server"
} >refused.source
