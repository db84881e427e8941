#!/usr/bin/env bash
# Set up what hil needs on a Debian 12 machine for its repository: the Debian packages and the virtual lab
# image (hil/install/setup.sh, which `hil setup` runs from an installed hil), and the Python environment
# (.venv) from requirements.lock. `--bench` adds the rehearsal bench (an arm64 board booted by U-Boot: its
# QEMU, the cross compiler, ser2net and its SD card) and what hil's own tests need; the performance suite on
# the virtual lab does not need it. One line per step; apt's and pip's output in reports/setup.log.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
    "" | --bench) ;;
    *) echo "usage: scripts/setup.sh [--bench]" >&2; exit 2 ;;
esac
bash hil/install/setup.sh "$@" packages

# Debian's own Python 3.11: the same interpreter on every lab PC, not whatever a user's PATH prefers.
# Exactly the versions hil is tested with (requirements.lock, written by pip-compile from pyproject.toml's
# ranges, every file checked against its hash), then hil itself on top without resolving anything again.
LOG=reports/setup.log
stamp=.venv/.hil-installed
wanted=$(cat pyproject.toml setup.py requirements.lock | sha256sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    {
        [ -x .venv/bin/python ] || /usr/bin/python3 -m venv .venv
        .venv/bin/pip install --require-hashes -r requirements.lock
        .venv/bin/pip install --no-deps -e .
    } >>"$LOG" 2>&1 || { echo "hil setup: Python environment failed; the end of $LOG:"; tail -n 25 "$LOG"; exit 1; } >&2
    echo "$wanted" > "$stamp"
    echo "hil setup: Python environment: .venv installed from requirements.lock"
else
    echo "hil setup: Python environment: .venv matches requirements.lock"
fi

HIL_PYTHON=.venv/bin/python bash hil/install/setup.sh "$@" images
