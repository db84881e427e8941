#!/usr/bin/env bash
# What hil needs on a Debian 12 lab PC besides its Python packages: the Debian packages of
# debian-packages.txt (beside this file), brought to the versions a fresh machine gets today, and the virtual
# lab's image (with `--bench`, the rehearsal bench's too). `hil setup` runs it from an installed hil;
# hil's repository runs it from scripts/setup.sh around its own .venv.
#
#   setup.sh [--bench] [packages|images]...   (no phase: both)
#
# HIL_PYTHON: the Python whose hil builds the images (default python3); HIL_SETUP_LOG: where apt's and pip's
# output goes (default reports/setup.log). Idempotent: a second run installs nothing and reuses the images.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
bench=0
phases=()
for arg in "$@"; do
    case "$arg" in
        --bench) bench=1 ;;
        packages | images) phases+=("$arg") ;;
        *) echo "usage: setup.sh [--bench] [packages|images]..." >&2; exit 2 ;;
    esac
done
((${#phases[@]})) || phases=(packages images)
kinds=vlab
((bench)) && kinds="vlab|bench"
mapfile -t APT_PACKAGES < <(awk -v kinds="^($kinds)\$" '$1 ~ kinds {print $2}' "$here/debian-packages.txt")
PYTHON=${HIL_PYTHON:-python3}

# Quiet: one line per step here, apt's and pip's own output in the log (its tail is shown when a step fails).
LOG=${HIL_SETUP_LOG:-reports/setup.log}
mkdir -p "$(dirname "$LOG")"
if [[ " ${phases[*]} " == *" packages "* ]]; then : > "$LOG"; fi
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
# The package index is refreshed when older than a day or older than a source; apt's simulation says what would change.
packages() {
    step="Debian packages"
    # Stale: no package list of the last day, or a source added or changed since the lists were fetched.
    stale() {
        local newest
        newest=$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -newermt '-1 day' -printf '%T@ %p\n' 2>/dev/null \
            | sort -n | tail -n 1 | cut -d' ' -f2-)
        [ -z "$newest" ] || [ -n "$(find /etc/apt/sources.list /etc/apt/sources.list.d -newer "$newest" 2>/dev/null)" ]
    }
    if ((bench)) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
        "${SUDO[@]}" dpkg --add-architecture arm64
        rm_lists=1
    fi
    if [ -n "${rm_lists:-}" ] || stale; then
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
}

# Build (or reuse) the kernel + initramfs of the virtual board (its tools exercised as hil uses them), and
# the rehearsal bench's SD card: "DIR", or "DIR built in N s".
image() {
    local said status=0
    said=$(mktemp)
    dir=$("$PYTHON" -m "hil.$1.image" 2>"$said") || status=$?
    cat "$said" >>"$LOG"
    echo "$dir$(grep -o ' built in [0-9.]* s' "$said" || true)"
    rm -f "$said"
    return "$status"
}
images() {
    local line
    step="virtual lab image"
    line=$(image vlab)
    say "virtual lab image: $line"
    if ((bench)); then
        step="rehearsal bench image"
        line=$(image bench)
        say "rehearsal bench image: $line"
    fi
}

for phase in "${phases[@]}"; do "$phase"; done
