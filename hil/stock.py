"""Run the stock suite that ships with hil: `pytest --pyargs hil_testcases ARGS...` in one command.

    hil run --boards lab/boards.yaml --lg-env lab/env.yaml --board our-board -k msc

In hil's repository the suite is `testcases/`; the distribution carries it as the package `hil_testcases`,
so a lab on a released hil runs the suite of that release. Every pytest and hil option passes through; the
reports (report.html, junit.xml, results.json) go to reports/ unless --hil-reports, --html or --junitxml say
otherwise, and the exit code is pytest's (docs/failures.md).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

STOCK_SUITE = "hil_testcases"


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m hil.stock") -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    import pytest  # here, not at import: `hil --help` does not load pytest's plugins

    if args[:1] in (["-h"], ["--help"]):
        paragraphs = __doc__.split("\n\n")
        print(f"usage: {prog} [PYTEST OPTIONS...]\n\n{paragraphs[0]}\n\n{paragraphs[2]}")
        print("The options, pytest's and hil's:\n")
        sys.stdout.flush()
    return int(pytest.main(["--pyargs", STOCK_SUITE, *args]))


if __name__ == "__main__":
    raise SystemExit(main())
