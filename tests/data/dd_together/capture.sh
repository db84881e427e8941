#!/bin/sh
# Regenerate the outputs in this folder (see ../README.md). Run on a Debian 12 PC: `sh capture.sh`.
# Each NAME.txt is the verbatim stdout+stderr of the command hil.measure.dd_together.command builds for two
# block devices (here two files on disk: O_DIRECT needs one); NAME.source records how it was produced.
set -u
cd "$(dirname "$0")"
export LC_ALL=C
scratch=/var/tmp/hil-dd-together
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
dd if=/dev/zero of="$scratch/a.img" bs=1M count=16 2>/dev/null
dd if=/dev/zero of="$scratch/b.img" bs=1M count=16 2>/dev/null

capture() {  # NAME COMMAND
    sh -c "$2" >"$1.txt" 2>&1
    status=$?
    {
        echo "command: $2"
        echo "tool: $(dd --version 2>&1 | head -n 1)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), LC_ALL=C"
    } >"$1.source"
}

# The commands as hil builds them (python -c 'from hil.measure import dd, dd_together; print(dd_together.command(
# [dd.write_command(f"/var/tmp/hil-dd-together/{x}.img", "512K", 16) for x in "ab"]))'), read_command likewise.
capture write-two "sh -c 'd=\$(mktemp -d) || exit 1; s=\$(date +%s%N); LC_ALL=C dd if=/dev/zero of=$scratch/a.img bs=512K count=32 oflag=direct conv=fsync >\"\$d/0\" 2>&1 & p0=\$!; LC_ALL=C dd if=/dev/zero of=$scratch/b.img bs=512K count=32 oflag=direct conv=fsync >\"\$d/1\" 2>&1 & p1=\$!; wait \$p0; r0=\$?; wait \$p1; r1=\$?; e=\$(date +%s%N); echo \"together-ns \$s \$e\"; echo \"== disk 0 exit \$r0\"; cat \"\$d/0\"; echo \"== disk 1 exit \$r1\"; cat \"\$d/1\"; rm -rf \"\$d\"'"
capture read-two "sh -c 'd=\$(mktemp -d) || exit 1; s=\$(date +%s%N); LC_ALL=C dd if=$scratch/a.img of=/dev/null bs=512K count=32 iflag=direct >\"\$d/0\" 2>&1 & p0=\$!; LC_ALL=C dd if=$scratch/b.img of=/dev/null bs=512K count=32 iflag=direct >\"\$d/1\" 2>&1 & p1=\$!; wait \$p0; r0=\$?; wait \$p1; r1=\$?; e=\$(date +%s%N); echo \"together-ns \$s \$e\"; echo \"== disk 0 exit \$r0\"; cat \"\$d/0\"; echo \"== disk 1 exit \$r1\"; cat \"\$d/1\"; rm -rf \"\$d\"'"
# The second disk missing: its dd fails, the first one's output is complete.
capture read-one-missing "sh -c 'd=\$(mktemp -d) || exit 1; s=\$(date +%s%N); LC_ALL=C dd if=$scratch/a.img of=/dev/null bs=512K count=32 iflag=direct >\"\$d/0\" 2>&1 & p0=\$!; LC_ALL=C dd if=$scratch/missing.img of=/dev/null bs=512K count=32 iflag=direct >\"\$d/1\" 2>&1 & p1=\$!; wait \$p0; r0=\$?; wait \$p1; r1=\$?; e=\$(date +%s%N); echo \"together-ns \$s \$e\"; echo \"== disk 0 exit \$r0\"; cat \"\$d/0\"; echo \"== disk 1 exit \$r1\"; cat \"\$d/1\"; rm -rf \"\$d\"'"
