#!/usr/bin/env bash
# Set up what hil needs on a Debian 12 machine: apt packages, the Python environment (.venv) and the
# virtual lab image. `--bench` adds the rehearsal bench (an arm64 board booted by U-Boot: its QEMU, the cross
# compiler, ser2net and its SD card); the performance suite on the virtual lab does not need it, and leaving
# it out saves a cold machine minutes of apt. Idempotent: a second run installs nothing, reuses the images.
set -euo pipefail
cd "$(dirname "$0")/.."

bench=0
case "${1:-}" in
    "") ;;
    --bench) bench=1 ;;
    *) echo "usage: scripts/setup.sh [--bench]" >&2; exit 2 ;;
esac

# The virtual board's kernel and tools come from these packages (hil/vlab/image.py copies them into
# its initramfs); python3-venv builds the environment.
APT_PACKAGES=(
    qemu-system-x86 u-boot-qemu linux-image-amd64 busybox-static dash coreutils kmod cpio
    fio iperf3 iperf sysstat iproute2 umtp-responder mtp-tools v4l-utils e2fsprogs f2fs-tools
    gcc libc6-dev make
    python3 python3-venv
    usbip
    lrzsz           # rz: the virtual board receives hil's programs over its console (XMODEM)
    libusb-1.0-0    # pyusb's library: the lab PC's UsbEnumerationDriver (hil.lab.usb_host.usb_enumeration)
)
# The rehearsal bench (hil/bench): an arm64 board booted by U-Boot from an SD card image built of Debian's
# arm64 packages, its console behind ser2net, hil's programs cross-compiled for it, its boot flash written by
# flashrom (labgrid's FlashromDriver; flashrom's dummy programmer emulates the chip).
BENCH_PACKAGES=(
    qemu-system-arm ser2net gcc-aarch64-linux-gnu libc6-dev-arm64-cross
    fdisk binutils openssh-client flashrom
    postgresql      # tests/db: the results database's tests start a throwaway PostgreSQL 15 cluster of their own
    chromium chromium-driver  # tests/dashboard: Selenium drives Debian's browser and driver, nothing downloaded
)
((bench)) && APT_PACKAGES+=("${BENCH_PACKAGES[@]}")

# Quiet: one line per step here, apt's and pip's own output in the log (its tail is shown when a step fails).
mkdir -p reports
LOG=reports/setup.log
: > "$LOG"
say() { echo "hil setup: $*"; }
step=""
trap 'status=$?; ((status)) && { say "$step failed (exit $status); the end of $LOG:"; tail -n 25 "$LOG" >&2; }' EXIT
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    SUDO=(sudo)
    command -v sudo >/dev/null || SUDO=(hil_setup_needs_root)
fi
hil_setup_needs_root() { echo "hil setup: run as root or install sudo" >&2; return 1; }

# Debian packages: brought to the version a fresh machine would get today, not only installed when missing
# (a security update of lrzsz once made every fresh machine fail where the developers' older copies did not).
# The package index is refreshed when older than a day; apt's simulation says what would change.
step="Debian packages"
lists_age() { find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -newermt '-1 day' 2>/dev/null | head -n 1; }
if ((bench)) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${SUDO[@]}" dpkg --add-architecture arm64
    rm_lists=1
fi
if [ -n "${rm_lists:-}" ] || [ -z "$(lists_age)" ]; then
    "${SUDO[@]}" apt-get update >>"$LOG" 2>&1
fi
simulate() { apt-get install -s --no-install-recommends "${APT_PACKAGES[@]}" 2>>"$LOG" | grep '^Inst ' || true; }
changes=$(simulate)
if [ -n "$changes" ]; then
    echo "$changes" >>"$LOG"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}" >>"$LOG" 2>&1
    # "Inst lrzsz [0.12.21-10+b1] (0.12.21-10+deb12u1 ...)": an upgrade names the version it replaces
    upgrades=$(echo "$changes" | sed -n 's/^Inst \([^ ]*\) \[\([^]]*\)\] (\([^ ]*\) .*/\1 \2 -> \3/p' | paste -sd, - | sed 's/,/, /g')
    say "Debian packages: $(echo "$changes" | wc -l) installed or upgraded${upgrades:+ ($upgrades)}"
else
    say "Debian packages: the ${#APT_PACKAGES[@]} hil names are installed at today's versions"
fi

# Debian's own Python 3.11: the same interpreter on every lab PC, not whatever a user's PATH prefers.
# Exactly the versions hil is tested with (requirements.lock, written by pip-compile from pyproject.toml's
# ranges, every file checked against its hash), then hil itself on top without resolving anything again.
step="Python environment"
stamp=.venv/.hil-installed
wanted=$(cat pyproject.toml setup.py requirements.lock | sha256sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    [ -x .venv/bin/python ] || /usr/bin/python3 -m venv .venv >>"$LOG" 2>&1
    .venv/bin/pip install --require-hashes -r requirements.lock >>"$LOG" 2>&1
    .venv/bin/pip install --no-deps -e . >>"$LOG" 2>&1
    echo "$wanted" > "$stamp"
    say "Python environment: .venv installed from requirements.lock"
else
    say "Python environment: .venv matches requirements.lock"
fi

# Build (or reuse) the kernel + initramfs of the virtual board (its tools exercised as hil uses them), and
# the rehearsal bench's SD card.
step="virtual lab image"
say "virtual lab image: $(.venv/bin/python -m hil.vlab.image 2>>"$LOG")$(grep -o ' built in [0-9.]* s' "$LOG" | tail -n 1)"
if ((bench)); then
    step="rehearsal bench image"
    say "rehearsal bench image: $(.venv/bin/python -m hil.bench.image 2>>"$LOG")"
fi
