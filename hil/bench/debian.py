"""Debian packages of another architecture, fetched and unpacked without installing them (no root needed
beyond what `apt-get update` already did): the rehearsal board's kernel and userland come from Debian's
arm64 archive, exactly as a BSP team's rootfs build takes them from a distribution. The machine must know the
architecture (`dpkg --add-architecture arm64 && apt-get update`: scripts/setup.sh).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from hil.errors import VlabImageError

# Dependencies that bring no file a board program loads (scripts, configuration, the package system):
# the closure does not follow them, or fio would pull in python3 and perl.
NOT_FOLLOWED = re.compile(
    r"^(python3.*|perl.*|debconf.*|init-system-helpers|adduser|lsb-base|sensible-utils|tzdata|ucf|procps|dpkg|"
    r"debianutils|base-files|passwd|login|util-linux.*|mount|systemd.*|dbus.*|gcc-\d+-base|ceph-common|dmsetup)$"
)


def _show(names: list[str], arch: str) -> list[dict[str, str]]:
    """`apt-cache show` of the candidate version of each name, as one dict per package found."""
    proc = subprocess.run(
        ["apt-cache", "show", "--no-all-versions", *(f"{name}:{arch}" for name in names)],
        capture_output=True,
        text=True,
        check=False,
    )
    records = []
    for block in proc.stdout.split("\n\n"):
        pairs = (line.split(":", 1) for line in block.splitlines() if line and not line.startswith(" ") and ":" in line)
        fields = {key: value.strip() for key, value in pairs}
        if "Package" in fields and "Version" in fields:
            records.append(fields)
    return records


def closure(wanted: list[str], arch: str) -> dict[str, str]:
    """The wanted packages and everything they depend on (first alternative of each dependency), as
    name -> candidate version; packages of architecture `all` carry no binary and are left out."""
    found: dict[str, str] = {}
    level = list(dict.fromkeys(wanted))
    while level:
        records = _show(level, arch)
        if missing := [name for name in wanted if name in level and name not in {r["Package"] for r in records}]:
            raise VlabImageError(
                f"Debian has no {arch} package {', '.join(missing)} here: run `dpkg --add-architecture {arch} && "
                "apt-get update` (scripts/setup.sh does)"
            )
        following: list[str] = []
        for record in records:
            found[record["Package"]] = record["Version"]
            depends = ",".join(v for v in (record.get("Pre-Depends", ""), record.get("Depends", "")) if v)
            for alternatives in depends.split(","):
                name = alternatives.split("|")[0].strip().split(" ")[0].split(":")[0]
                if name and name not in found and name not in following and not NOT_FOLLOWED.match(name):
                    following.append(name)
        level = [name for name in following if name not in found]
    return dict(sorted(found.items()))


def download(packages: dict[str, str], arch: str, cache: Path) -> list[Path]:
    """The .deb of each package at its version, from `cache` or fetched there with `apt-get download`."""
    cache.mkdir(parents=True, exist_ok=True)

    def deb(name: str, version: str) -> Path:
        return cache / f"{name}_{version.replace(':', '%3a')}_{arch}.deb"

    absent = [f"{name}:{arch}={version}" for name, version in packages.items() if not deb(name, version).is_file()]
    if absent:
        proc = subprocess.run(["apt-get", "download", "-q", *absent], cwd=cache, capture_output=True, text=True)
        if proc.returncode != 0:
            raise VlabImageError(f"apt-get download failed:\n{proc.stderr.strip()[-2000:]}")
    debs = [deb(name, version) for name, version in packages.items()]
    if lost := [str(path) for path in debs if not path.is_file()]:
        raise VlabImageError(f"apt-get download did not leave {', '.join(lost)}")
    return debs


def unpack(debs: list[Path], sysroot: Path) -> None:
    """`dpkg -x` each package into `sysroot` (nothing runs: no maintainer scripts, no triggers)."""
    sysroot.mkdir(parents=True, exist_ok=True)
    for deb in debs:
        subprocess.run(["dpkg", "-x", str(deb), str(sysroot)], check=True)
