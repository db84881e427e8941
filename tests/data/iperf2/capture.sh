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

# Seed 004's loopback: hil's modem stand-in (hil/tools/udp_loopback.c) on 127.0.0.2 reflects each datagram
# 14 times (the seed's REP_FACTOR) back to the server on 127.0.0.1, which then prints, besides its reports,
# that it could not hand them to the client (its ack goes to the modem).
tools=$(mktemp -d); make -s -C ../../../hil/tools OUT="$tools" "$tools/udp_loopback"
loop() {  # NAME CLIENT-ARGS...
    local name=$1; shift
    "$tools/udp_loopback" 127.0.0.2 $port 14 > /dev/null 2>&1 & local modem=$!
    iperf -s -u -y C -B 127.0.0.1 -p $port > "$name-server.txt" 2>&1 & local server=$!
    sleep 1
    iperf -c 127.0.0.2 -p $port -B 127.0.0.1 "$@" > /dev/null 2>&1
    sleep 1; kill -INT $server; wait $server; local src=$?; kill $modem; wait $modem
    sidecar "iperf -s -u -y C -B 127.0.0.1 -p $port (the server's output) for: iperf -c 127.0.0.2 -p $port -B 127.0.0.1 $* (udp_loopback x14)" $src "$name-server"
}
loop loopback-x14-5M -u -b 5M -t 2 -y C
loop loopback-x14-P4-2M -u -b 2M -t 2 -P 4 -y C
rm -rf "$tools"
