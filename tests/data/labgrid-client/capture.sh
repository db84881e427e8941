#!/bin/sh
# Regenerates the labgrid-client output hil.lab.board.places reads (the token `reserve --shell` prints; places
# and reservations hil reads as data, hil.lab.board.coordinator_view), on the virtual lab's coordinator:
#   python -m hil.vlab.lab --run-dir /tmp/lab start --places 2   # then LG_COORDINATOR=<printed address>
# vboard-1 is left reserved (allocated, not acquired), vboard-2 reserved and acquired.
set -eu
cd "$(dirname "$0")"
client=${LABGRID_CLIENT:-labgrid-client}
version=$($client version 2>&1 | head -n1)
when="$(date -u +%F), $(. /etc/os-release; echo "$PRETTY_NAME"), $(uname -m), LANG=${LANG:-C}"
sidecar() { printf 'command: %s\ntool: %s\nexit: %s\ncaptured: %s\n' "$1" "$version" "$2" "$when" > "$3.source"; }
$client reserve --shell name=vboard-1 >/dev/null
token=$($client reserve --shell kind=vlab | sed 's/^export LG_TOKEN=//')
$client -p "+$token" acquire >/dev/null
$client reserve --shell name=vboard-2 > reserve-shell.txt 2>&1; sidecar "labgrid-client reserve --shell name=vboard-2" $? reserve-shell
$client -p "+$token" release >/dev/null
for t in $($client reservations | sed -n "s/^Reservation '\(.*\)':$/\1/p"); do $client cancel-reservation "$t"; done
