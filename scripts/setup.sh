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

# The bench's card is built of Debian's arm64 packages (apt-get download): apt must know the architecture.
need_update=0
if ((bench)) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    need_update=1
fi

missing=()
for package in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if ((${#missing[@]})) || ((need_update)); then
    SUDO=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "hil setup: run as root or install sudo" >&2; exit 1; }
        SUDO=(sudo)
    fi
    ((need_update)) && "${SUDO[@]}" dpkg --add-architecture arm64
    "${SUDO[@]}" apt-get update -qq
    if ((${#missing[@]})); then
        echo "hil setup: installing ${missing[*]}"
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
fi

# Debian's own Python 3.11: the same interpreter on every lab PC, not whatever a user's PATH prefers.
if [ ! -x .venv/bin/python ]; then
    /usr/bin/python3 -m venv .venv
fi
# Exactly the versions hil is tested with (requirements.lock, written by pip-compile from pyproject.toml's
# ranges, every file checked against its hash), then hil itself on top without resolving anything again.
stamp=.venv/.hil-installed
wanted=$(cat pyproject.toml setup.py requirements.lock | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    .venv/bin/pip install -q --require-hashes -r requirements.lock
    .venv/bin/pip install -q --no-deps -e .
    echo "$wanted" > "$stamp"
fi

# Build (or reuse) the kernel + initramfs of the virtual board, and the rehearsal bench's SD card.
.venv/bin/python -m hil.vlab.image >/dev/null
if ((bench)); then
    .venv/bin/python -m hil.bench.image >/dev/null
fi
