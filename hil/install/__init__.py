"""`hil setup`: what an installed hil needs on a Debian 12 lab PC besides its Python packages.

The Debian packages of debian-packages.txt, brought to today's versions, and the virtual lab's image, built by
this Python's hil (setup.sh beside this file; hil's repository runs the same script from scripts/setup.sh).
`debian_versions()` is what every run's host facts record: the versions of those packages that measured.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

PACKAGES_FILE = "debian-packages.txt"


def debian_packages(*kinds: str) -> list[str]:
    """The packages of debian-packages.txt of these kinds (`vlab`, `bench`), in the file's order."""
    text = resources.files(__name__).joinpath(PACKAGES_FILE).read_text()
    rows = [line.split("#", 1)[0].split() for line in text.splitlines()]
    return [row[1] for row in rows if len(row) == 2 and row[0] in kinds]


def debian_versions(packages: list[str] | None = None) -> dict[str, str]:
    """{package: installed version} of `packages` (default: the virtual lab's) that are installed; {} without dpkg."""
    dpkg = shutil.which("dpkg-query")
    if dpkg is None:
        return {}
    proc = subprocess.run(
        [dpkg, "-W", "-f", "${db:Status-Abbrev} ${Package} ${Version}\n", *(packages or debian_packages("vlab"))],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    rows = [line.split() for line in proc.stdout.splitlines()]
    return {row[1]: row[2] for row in rows if len(row) == 3 and row[0] == "ii"}


def main(argv: list[str] | None = None, *, prog: str = "hil setup") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", action="store_true", help="also the rehearsal bench's packages and SD card")
    parser.add_argument("phases", nargs="*", metavar="packages|images", help="only these steps (default: both)")
    parser.add_argument("--log", type=Path, default=Path("reports/setup.log"), help="apt's and the builds' output")
    args = parser.parse_args(argv)
    if unknown := sorted(set(args.phases) - {"packages", "images"}):
        parser.error(f"no step {', '.join(unknown)} (packages, images)")
    script = resources.files(__name__).joinpath("setup.sh")
    env = {**os.environ, "HIL_PYTHON": sys.executable, "HIL_SETUP_LOG": str(args.log)}
    command = ["bash", str(script), *(["--bench"] if args.bench else []), *args.phases]
    return subprocess.run(command, env=env, check=False).returncode
