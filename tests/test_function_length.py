"""No function in hil/verdict or hil/report is longer than 60 lines: a rule of the verdict or a report's
part reads on one screen."""

from __future__ import annotations

import ast
from pathlib import Path

HIL = Path(__file__).resolve().parents[1] / "hil"
LIMIT = 60


def test_no_function_in_verdict_or_report_is_longer_than_60_lines():
    long = []
    for package in ("verdict", "report"):
        for path in sorted((HIL / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > LIMIT:
                        long.append(f"{path.relative_to(HIL.parent)}:{node.lineno} {node.name}: {lines} lines")
    assert not long, "\n".join(long)
