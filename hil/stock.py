"""Run the stock suite that ships with hil: `pytest --pyargs hil_testcases ARGS...` in one command.

    hil run --boards lab/boards.yaml --lg-env lab/env.yaml --board our-board -k msc

In hil's repository the suite is `testcases/`; the distribution carries it as the package `hil_testcases`,
so a lab on a released hil runs the suite of that release. Every pytest and hil option passes through; the
reports (report.html, junit.xml, results.json) go to reports/ unless --hil-reports, --html or --junitxml say
otherwise, and the exit code is pytest's (docs/failures.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import NoReturn

STOCK_SUITE = "hil_testcases"


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m hil.stock") -> NoReturn:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["-h"], ["--help"]):
        paragraphs = __doc__.split("\n\n")
        print(f"usage: {prog} [PYTEST OPTIONS...]\n\n{paragraphs[0]}\n\n{paragraphs[2]}")
        print("The options, pytest's and hil's:\n")
    sys.stdout.flush()
    sys.stderr.flush()
    # pytest in an interpreter of its own: in this one `hil` is imported already, so pytest could not rewrite
    # the asserts of hil's plugin ("PytestAssertRewriteWarning: Module already imported so cannot be
    # rewritten; hil" in every lab run). -P: the lab's working directory does not go first on sys.path.
    os.execv(sys.executable, [sys.executable, "-P", "-m", "pytest", "--pyargs", STOCK_SUITE, *args])


if __name__ == "__main__":
    raise SystemExit(main())
