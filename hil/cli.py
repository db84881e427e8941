"""`hil`: the entry points that are not pytest, as one command with subcommands (`python -m hil` too).

Each subcommand is a module's `main(argv, prog=...)`, registered by one line in COMMANDS; README's and
docs/running.md's lists of commands are `commands_markdown()`'s output (tests/test_cli.py keeps them equal).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from collections.abc import Sequence

from hil import __version__

# name -> (module with main(argv, *, prog), one line of help)
COMMANDS: dict[str, tuple[str, str]] = {
    "setup": ("hil.install", "install hil's Debian packages at today's versions, build the virtual lab image"),
    "init": ("hil.labrepo", "make a lab repository: inventory, labgrid environment, pytest.ini, Jenkinsfile, README"),
    "run": ("hil.stock", "run the stock suite shipped with hil (pytest --pyargs hil_testcases, the same options)"),
    "catalogue": ("hil.catalogue.__main__", "print the metric catalogue and the settings as Markdown tables"),
    "vlab-image": ("hil.vlab.image", "build (or reuse) the virtual lab's kernel and initramfs; print its directory"),
    "lab": ("hil.vlab.lab", "start, inspect or stop a virtual lab behind a labgrid coordinator"),
    "pipeline": ("hil.pipeline", "Jenkins helpers: the parallel branches, a run's summary line"),
    "trend": ("hil.report.trend", "write the trend page from stored runs"),
    "calibrate": (
        "hil.calibrate.cli",
        "propose a pair's bands in boards.yaml from repeated runs of a known-good build",
    ),
    "compare": ("hil.report.compare", "the release gate: a candidate build's runs against a reference build's"),
    "serve": ("hil.dashboard.serve", "the results database as a read-only web dashboard (127.0.0.1 by default)"),
    "db": (
        "hil.db.cli",
        "the results database: upgrade its schema, import, export, push spooled runs, decide stored gates",
    ),
    "bench": ("hil.bench.bench", "the rehearsal bench: arm64 boards behind a power switch, ser2net and SSH"),
    "bench-image": ("hil.bench.image", "build (or reuse) the rehearsal board's SD card; print its directory"),
}


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    rows = "\n".join(f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items())
    return (
        "usage: hil COMMAND [ARGS...]   (hil COMMAND --help for a command's options; hil --version)\n\n"
        f"hil's commands besides pytest (`hil run` is the performance suite, pytest itself):\n\n{rows}"
    )


def commands_markdown() -> str:
    """The list of commands README and docs/running.md show between their `<!-- commands -->` markers."""
    rows = [f"| `hil {name}` | {text} |" for name, (_, text) in COMMANDS.items()]
    return "\n".join(["| command | what it does |", "|---|---|", *rows]) + "\n"


def _dispatch(args: list[str]) -> int:
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 2
    if args[0] == "--version":
        print(f"hil {__version__}")
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"hil: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    return int(importlib.import_module(COMMANDS[name][0]).main(rest, prog=f"hil {name}") or 0)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _dispatch(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`hil catalogue | head -1`): stop quietly, as a Unix tool killed by SIGPIPE does.
        # stdout is pointed at /dev/null so the interpreter's own flush at exit finds no closed pipe either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    return code
