#!/bin/sh
# Regenerate the /proc/stat captures: two snapshots one second apart while dd keeps one CPU busy.
set -eu
cd "$(dirname "$0")"
dd if=/dev/zero of=/dev/null bs=1M count=200000 2>/dev/null &
busy=$!
sleep 0.5
cat /proc/stat > pc-before.txt
sleep 1
cat /proc/stat > pc-after.txt
kill "$busy"
for name in pc-before pc-after; do
    printf 'command: cat /proc/stat\ntool: Linux %s\nexit: 0\ncaptured: %s, Debian 12, %s, LC_ALL=%s\n' \
        "$(uname -r)" "$(date -u +%Y-%m-%d)" "$(uname -m)" "${LC_ALL:-unset}" > "$name.source"
done
