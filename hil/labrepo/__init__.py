"""Make a lab repository: the files a lab needs to run hil's stock suite and its own cases on its boards.

    hil init lab        # lab/: boards.yaml, env.yaml, pytest.ini, Jenkinsfile, requirements.txt, README.md, cases/

The inventory has a virtual lab pair that runs as made and one real pair to fill in; requirements.txt pins
this hil. Files that exist are never overwritten: the command stops, naming them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from hil import __version__

TEMPLATE = Path(__file__).resolve().parent / "template"
VERSION_MARK = "@HIL_VERSION@"


def template_files() -> list[Path]:
    """The template's files, relative to it."""
    return sorted(p.relative_to(TEMPLATE) for p in TEMPLATE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def make(directory: Path) -> list[Path]:
    """Write the lab repository into directory (made if missing); FileExistsError naming what is there."""
    files = template_files()
    present = [name for name in files if (directory / name).exists()]
    if present:
        raise FileExistsError(f"{directory} already has {', '.join(map(str, present))}: nothing was written")
    for name in files:
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((TEMPLATE / name).read_text(encoding="utf-8").replace(VERSION_MARK, __version__), "utf-8")
    return [directory / name for name in files]


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m hil.labrepo") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="where the lab repository goes (made if missing)")
    args = parser.parse_args(argv)
    try:
        written = make(args.directory)
    except (FileExistsError, OSError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 4
    for path in written:
        print(path)
    print(f"\nNext: cd {args.directory} and follow README.md (pip install -r requirements.txt; hil run ...).")
    return 0
