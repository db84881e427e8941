#!/bin/sh
# Regenerate the no-device outputs in this folder (see ../README.md) on a Debian 12 PC with mtp-tools and no
# MTP device attached: `sh capture.sh` (PYTHON: the project's Python, default .venv/bin/python).
# The commands are the ones hil.measure.mtp.transfer_command builds.
#
# The *-16M-* captures come from the virtual board (they need the MTP gadget): run
#   pytest testcases/usb_device/test_mtp.py --board vlab-hs --samples 2
# with `mtp.object_mb: 16` in the pair's settings; each sample's `raw` in reports/results.json is the
# console output of one transfer command, and its command is transfer_command's for the paths it names.
set -u
cd "$(dirname "$0")"
here=$(pwd)
cd ../../..
"${PYTHON:-.venv/bin/python}" - "$here" <<'PY'
import os, subprocess, sys, time
from hil.measure import mtp

out, host = sys.argv[1], "/tmp/hil-mtp-host"
os.makedirs(host, exist_ok=True)
with open(f"{host}/object", "wb") as f:
    f.write(os.urandom(1024 * 1024))
for direction, name, local, remote in (
    ("write", "sendfile-no-device", f"{host}/object", "object"),
    ("read", "getfile-no-device", f"{host}/received", "1"),
):
    command = mtp.transfer_command(direction, local=local, remote=remote, expected_bytes=1024 * 1024, log=local + ".log")
    proc = subprocess.run(["sh", "-c", command], capture_output=True, text=True)
    with open(f"{out}/{name}.txt", "w") as f:
        f.write(proc.stdout + proc.stderr)
    with open(f"{out}/{name}.source", "w") as f:
        f.write(f"command: {command}\ntool: libmtp version: 1.1.20\nexit: {proc.returncode}\n")
        f.write(f"captured: {time.strftime('%Y-%m-%d')} on Debian GNU/Linux 12 (bookworm) x86_64, no MTP device attached, LC_ALL unset\n")
subprocess.run(["rm", "-rf", host], check=True)
PY
