#!/bin/bash
# Captures iperf 2 (Debian 12: 2.1.8) CSV output on this PC's loopback: the server's reports (what hil reads:
# seed 004 reads the server's rate, jitter, loss and out-of-order datagrams) and the client's, for one UDP
# stream, four parallel streams (-P 4), a client with no server (iperf 2 exits 0 and prints a rate), and a
# TCP client whose connection is refused.
set -u
cd "$(dirname "$0")"
version=$(iperf -v 2>&1 | head -n1)
when="$(date -u +%F), $(. /etc/os-release; echo "$PRETTY_NAME"), $(uname -m), LANG=${LANG:-C}"
sidecar() { printf 'command: %s\ntool: %s\nexit: %s\ncaptured: %s\n' "$1" "$version" "$2" "$when" > "$3.source"; }
port=5301

pair() {  # NAME CLIENT-ARGS...: a server for one test, then the client against it
    local name=$1; shift
    iperf -s -u -y C -p $port > "$name-server.txt" 2>&1 & local server=$!
    sleep 1
    iperf -c 127.0.0.1 -p $port "$@" > "$name-client.txt" 2>&1; local rc=$?
    sleep 1; kill -INT $server; wait $server; local src=$?
    # The server's output answers the client's run: its sidecar names both (the client's -P and -t are
    # what the parser checks the server's reports against).
    sidecar "iperf -s -u -y C -p $port (the server's output) for: iperf -c 127.0.0.1 -p $port $*" $src "$name-server"
    sidecar "iperf -c 127.0.0.1 -p $port $*" $rc "$name-client"
}
pair udp-50M -u -b 50M -t 2 -y C
pair udp-P4-20M -u -b 20M -t 2 -P 4 -y C
iperf -c 127.0.0.1 -p $port -u -b 50M -t 2 -y C > udp-no-server-client.txt 2>&1
sidecar "iperf -c 127.0.0.1 -p $port -u -b 50M -t 2 -y C" $? udp-no-server-client
iperf -c 127.0.0.1 -p $port -t 2 -y C > tcp-refused-client.txt 2>&1
sidecar "iperf -c 127.0.0.1 -p $port -t 2 -y C" $? tcp-refused-client
