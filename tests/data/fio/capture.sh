#!/bin/sh
# Regenerate the fio outputs of this PC in this folder (see ../README.md): `sh capture.sh` on Debian 12.
# The virtual board's (vlab-*) come from capture_vlab.py. Each NAME.txt is the verbatim stdout+stderr of
# one command; NAME.source records how it was produced. The commands have the shape hil.measure.fio builds
# (tests/measure/test_fio.py checks that), run on a file instead of a namespace.
set -u
cd "$(dirname "$0")"
here=$(pwd)
# On disk, not tmpfs: direct=1 needs O_DIRECT. Relative file name, so no path of this PC is recorded.
scratch=$(mktemp -d /var/tmp/hil-fio-capture.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

capture() {  # NAME COMMAND
    (cd "$scratch" && sh -c "$2") >"$here/$1.txt" 2>&1
    status=$?
    {
        echo "command: $2"
        echo "tool: $(fio --version 2>&1 | head -n 1)"
        echo "exit: $status"
        echo "captured: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME") $(uname -m), file on ext4, LC_ALL=${LC_ALL:-unset}"
    } >"$here/$1.source"
}

common="--numjobs=1 --direct=1 --thread --group_reporting --size=256M --time_based --runtime=3 --ramp_time=1 --output-format=json"
capture pc-seq1m-q32t1-write "fio --name=write_1m_q32_t1 --filename=fio-test.img --rw=write --bs=1M --iodepth=32 --ioengine=libaio $common"
capture pc-seq1m-q32t1-read "fio --name=read_1m_q32_t1 --filename=fio-test.img --rw=read --bs=1M --iodepth=32 --ioengine=libaio $common"
capture pc-rnd4k-q32t1-write "fio --name=randwrite_4k_q32_t1 --filename=fio-test.img --rw=randwrite --bs=4K --iodepth=32 --ioengine=libaio $common"
capture pc-rnd4k-q32t1-read "fio --name=randread_4k_q32_t1 --filename=fio-test.img --rw=randread --bs=4K --iodepth=32 --ioengine=libaio $common"
# The fallback engine: synchronous, queue depth 1.
capture pc-rnd4k-q32t1-read-psync "fio --name=randread_4k_q32_t1 --filename=fio-test.img --rw=randread --bs=4K --iodepth=1 --ioengine=psync $common"
# An error job: /dev/null refuses O_DIRECT (err=22 in the job, exit 1).
capture pc-error-no-odirect "fio --name=randread_4k_q32_t1 --filename=/dev/null --rw=randread --bs=4K --iodepth=32 --ioengine=libaio $common"
# A job that moved nothing: buffered reads of /dev/null through libaio end at once with error 0, exit 0
# and io_bytes 0 (the one way found to make fio report an empty job; hil always runs direct=1).
capture pc-zero-io-devnull "fio --name=read_4k_q32_t1 --filename=/dev/null --rw=read --bs=4K --iodepth=32 --ioengine=libaio $(echo "$common" | sed 's/--direct=1/--direct=0/')"
capture pc-enghelp "fio --enghelp"
