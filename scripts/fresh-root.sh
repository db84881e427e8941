#!/usr/bin/env bash
# Rehearse README's first command on a fresh Debian 12 machine, as a new user gets it today: a minbase root
# built by debootstrap from Debian's packages (bookworm, bookworm-updates, bookworm-security), this checkout's
# HEAD cloned into it, `bash scripts/suite.sh` run there as root. Prints the exit status, the wall time, the
# verdict counts and the versions of the packages that measured; the whole log stays in the root
# (/root/hil/reports/fresh-root.log). Run it before submitting a change to set-up, the virtual image or the
# deployment of hil's programs; docs/running.md keeps the last result.
#
#   sudo bash scripts/fresh-root.sh [--wheel] [--no-security] [ROOT]   # ROOT: default /var/tmp/hil-fresh-root
#
# --wheel: instead of the repository, a lab's first run from hil's wheel alone (built here from HEAD), as
# docs/lab-repository.md's "From a released hil to a first run" says it, in a root without hil's Debian
# packages: python3-venv, then that page's commands as written (a venv, the wheel, `hil setup`, `hil init lab`,
# `hil run`). --no-security: a machine that has not taken Debian's security updates (no bookworm-security: lrzsz
# 0.12.21-10+b1, whose rz takes a path, instead of +deb12u1's, which refuses one).
# Extra arguments after ROOT go to the suite's pytest (`scripts/fresh-root.sh /var/tmp/r --board vlab-hs`).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "fresh-root: debootstrap and chroot need root" >&2; exit 1; }
wheel=0 with_security=1
while [[ "${1:-}" == --* ]]; do
    case "$1" in
    --wheel) wheel=1 ;;
    --no-security) with_security=0 ;;
    *) echo "fresh-root: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
root=$(realpath -m "${1:-/var/tmp/hil-fresh-root}")
shift || true
commit=$(git rev-parse HEAD)
git diff --quiet HEAD || echo "fresh-root: uncommitted changes are not rehearsed (HEAD is $commit)" >&2

command -v debootstrap >/dev/null || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}
# The mirror this machine's apt uses (a lab's own mirror or proxy), else Debian's.
mirror=$(grep -rhoE '^(deb|URIs:)[^#]*https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d 2>/dev/null \
    | grep -oE 'https?://[^ ]+' | grep -v security | head -n 1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
security=${mirror%/debian*}/debian-security

unmount() { for m in dev/pts dev sys proc; do umount -l "$root/$m" 2>/dev/null || true; done; }
trap unmount EXIT
unmount
rm -rf "$root"
started=$(date +%s)
echo "fresh-root: debootstrap --variant=minbase bookworm $root $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" > "$root/etc/apt/sources.list"
((with_security == 0)) || echo "deb $security bookworm-security main" >> "$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# This lab's own network trust, as its every new machine has it: CA certificates of a proxy (ca-certificates,
# installed by hil's set-up, takes them in), pip's configuration, and the proxy and certificate variables.
mkdir -p "$root/usr/local/share/ca-certificates"
cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
[ ! -f /etc/pip.conf ] || cp /etc/pip.conf "$root/etc/pip.conf"
passed=()
for name in PIP_CERT PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_DEFAULT_TIMEOUT SSL_CERT_FILE SSL_CERT_DIR \
    REQUESTS_CA_BUNDLE http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
    [ -z "${!name:-}" ] || passed+=("$name=${!name}")
done
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --rbind /dev "$root/dev"
git clone -q --no-hardlinks "$PWD" "$root/root/hil"
git -C "$root/root/hil" checkout -q "$commit"
if ((wheel)); then
    # The page's commands, extracted as hil's tests extract them; run in /root beside the wheel they name.
    .venv/bin/python -m build --wheel --no-isolation --outdir "$root/root" . >/dev/null 2>&1
    { echo "set -euxo pipefail; apt-get update -qq; apt-get install -y -qq --no-install-recommends python3-venv >/dev/null"
      .venv/bin/python -c 'import re; from tests import readme
marker = "**From a released hil to a first run**"
text = readme.section("Your lab repository")
print(re.search(r"```sh\n(.*?)```", text[text.index(marker):], re.S).group(1))'
    } > "$root/root/first-run.sh"
    what="docs/lab-repository.md's first run from $(basename "$root"/root/hil-*.whl)"
    run=(bash -c 'cd /root && bash first-run.sh')
else
    what="README's first command (bash scripts/suite.sh $*)"
    run=(bash -c 'cd /root/hil && bash scripts/suite.sh "$@"' suite "$@")
fi
echo "fresh-root: $commit; running $what"

suite_started=$(date +%s)
set +e
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb "${passed[@]}" \
    "${run[@]}" > "$root/root/hil-fresh-root.log" 2>&1
status=$?
set -e
ended=$(date +%s)
mkdir -p "$root/root/hil/reports"
mv "$root/root/hil-fresh-root.log" "$root/root/hil/reports/fresh-root.log"
log="$root/root/hil/reports/fresh-root.log"
echo "fresh-root: exit $status after $((ended - suite_started)) s (debootstrap included: $((ended - started)) s)"
grep -E '^hil setup: ' "$log" || true
grep -E ' metrics: |^=+ .*(passed|failed|error).* in ' "$log" | tail -n 2 || true
echo "fresh-root: packages that measured: $(chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' \
    lrzsz fio iperf3 iperf qemu-system-x86 linux-image-amd64 umtp-responder 2>/dev/null | paste -sd, - | sed 's/,/, /g')"
echo "fresh-root: the log: $log"
exit "$status"
