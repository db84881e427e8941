"""Make a lab repository: the files a lab needs to run hil's stock suite and its own cases on its boards.

    hil init lab        # lab/: boards.yaml, env.yaml, pytest.ini, Jenkinsfile, requirements.txt, README.md, cases/

The inventory has a virtual lab pair that runs as made and one real pair to fill in. requirements.txt pins this
hil's wheel, copied into wheels/, and every package it needs, each by its SHA-256 (docs/lab-repository.md says
why). Files that exist are never overwritten, nor a symbolic link written through: the command stops, naming them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

from hil import __version__

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "template"
RUN_LOCK = HERE / "requirements-run.lock"  # the repository's, shipped in the wheel
VERSION_MARK = "@HIL_VERSION@"
REQUIREMENTS = "requirements.txt"


def template_files() -> list[Path]:
    """The template's files, relative to it."""
    return sorted(p.relative_to(TEMPLATE) for p in TEMPLATE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def installed_wheel() -> Path | None:
    """The wheel pip installed this hil from (PEP 610's direct_url.json), when that file is still there."""
    try:
        direct = json.loads(metadata.distribution("hil").read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return None
    url = urlsplit(str(direct.get("url", "")))
    path = Path(unquote(url.path))
    return path if url.scheme == "file" and path.suffix == ".whl" and path.is_file() else None


def wheel_name() -> str:
    return f"hil-{__version__}-py3-none-any.whl"


def requirements(wheel: Path | None) -> str:
    """requirements.txt: hil's wheel with its SHA-256 (without a wheel, its line has no hash: pip refuses it,
    printing the hash of the file once it is in wheels/), then the run lock."""
    line = f"./wheels/{wheel.name if wheel else wheel_name()}"
    if wheel is not None:
        line += f" --hash=sha256:{hashlib.sha256(wheel.read_bytes()).hexdigest()}"
    text = (TEMPLATE / REQUIREMENTS).read_text(encoding="utf-8").replace(VERSION_MARK, __version__)
    return f"{text}{line}\n\n{RUN_LOCK.read_text(encoding='utf-8')}"


def in_the_way(directory: Path, names: list[Path]) -> list[str]:
    """The files of `names` in directory already, and the symbolic links on their way (dangling ones too: writing
    through one would write outside the lab directory)."""
    on_the_way = sorted({part for name in names for part in [name, *name.parents[:-1]]})
    links = [f"{part} (a symbolic link)" for part in on_the_way if (directory / part).is_symlink()]
    return links + [str(name) for name in names if (directory / name).exists() and not (directory / name).is_symlink()]


def make(directory: Path, wheel: Path | None = None) -> list[Path]:
    """Write the lab repository into directory (made if missing), with `wheel` (default: installed_wheel()) in
    wheels/; FileExistsError naming what is there."""
    wheel = wheel or installed_wheel()
    files = template_files()
    wheels = [Path("wheels") / wheel.name] if wheel else []
    if present := in_the_way(directory, [*files, *wheels]):
        raise FileExistsError(f"{directory} already has {', '.join(present)}: nothing was written")
    for name in files:
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        text = (TEMPLATE / name).read_text(encoding="utf-8").replace(VERSION_MARK, __version__)
        target.write_text(requirements(wheel) if name == Path(REQUIREMENTS) else text, "utf-8")
    if wheel is not None:
        (directory / "wheels").mkdir(exist_ok=True)
        shutil.copyfile(wheel, directory / wheels[0])
    return [directory / name for name in [*files, *wheels]]


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m hil.labrepo") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="where the lab repository goes (made if missing)")
    parser.add_argument("--wheel", type=Path, help="hil's wheel for wheels/ (default: the one pip installed it from)")
    args = parser.parse_args(argv)
    if args.wheel is not None and not (args.wheel.is_file() and args.wheel.name.startswith("hil-")):
        parser.error(f"--wheel {args.wheel}: not a file named hil-*.whl")
    try:
        written = make(args.directory, args.wheel)
    except (FileExistsError, OSError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 4
    for path in written:
        print(path)
    if not any(path.suffix == ".whl" for path in written):
        print(
            f"\nNOTE: this hil was not installed from a wheel: requirements.txt names wheels/{wheel_name()} without "
            "its SHA-256, and pip refuses it until the release's wheel is there and its hash beside it (pip prints it)."
        )
    print(f"\nNext: cd {args.directory} and follow README.md (pip install -r requirements.txt; hil run ...).")
    return 0
