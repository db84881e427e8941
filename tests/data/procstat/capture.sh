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
cat /proc/no-such-stat > missing-file.txt 2>&1 || true
for name in pc-before pc-after missing-file; do
    command="cat /proc/stat"; status=0
    [ "$name" = missing-file ] && { command="cat /proc/no-such-stat"; status=1; }
    printf 'command: %s\ntool: Linux %s\nexit: %s\ncaptured: %s, Debian 12, %s, LC_ALL=%s\n' "$command" \
        "$(uname -r)" "$status" "$(date -u +%Y-%m-%d)" "$(uname -m)" "${LC_ALL:-unset}" > "$name.source"
done
