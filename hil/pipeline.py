"""What a CI pipeline (the Jenkinsfile) asks hil: which branches to run, and one line that says how a run went.

python -m hil.pipeline branches --boards boards.yaml [--select "vlab-* rk3399-*"] [--locks FILE]
    one line per parallel branch: the pairs that must run in one process (hil.scheduling: pairs sharing
    a board), space-separated; a bad inventory or a pattern matching no pair exits 4. --locks: FILE gets,
    line for line, the lock names of each branch's boards (hil.scheduling.locks)
python -m hil.pipeline summary reports/vlab-hs --status 1
    "vlab-hs: gate failed; FAIL usb.msc.read[bs=1M]; 4 metrics: 3 PASS, 1 FAIL; 4 tests ran: 3 passed, 1 failed"
    (for the build summary)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from hil import parametrization
from hil.errors import InventoryError
from hil.inventory.loader import LoadedInventory, load_inventory
from hil.records.exitcodes import HilExit
from hil.records.files import read_text
from hil.records.store import RESULTS_FILE
from hil.report.summary import fmt_pct
from hil.report.tally import counts_text
from hil.scheduling import board_groups, locks
from hil.verdict.result import Verdict, metric_key

_MEANING = {
    HilExit.OK: "passed",
    HilExit.GATE_FAILED: "gate failed",
    HilExit.INTERRUPTED: "interrupted",
    HilExit.INTERNAL_ERROR: "internal error",
    HilExit.USAGE_ERROR: "bad inventory or usage",
    HilExit.NO_TESTS: "no test selected",
    HilExit.LAB_ERROR: "measurement error or lab fault",
}
_NAMED = 3  # metrics named per verdict in the one-line summary; the rest are counted


def branches(inventory: LoadedInventory | str, select: str = "", matrix: str = "quick") -> list[list[str]]:
    """The pairs to run, grouped so that no two branches drive one board; `select`: patterns, spaces or commas.
    A pair that runs only in the full matrix (`matrix: full`) has no branch in a quick run unless named."""
    inventory = load_inventory(inventory) if isinstance(inventory, str) else inventory
    patterns = [p for p in re.split(r"[\s,]+", select) if p]
    try:
        wanted = parametrization.pairs_in_run(inventory.boards, patterns, matrix)
    except LookupError as exc:
        raise InventoryError(str(inventory.path), "", f"no pair matches {exc.args[0]}") from None
    groups: dict[str, list[str]] = {}
    for name, group in board_groups(inventory.boards.values()).items():
        if name in wanted:
            groups.setdefault(group, []).append(name)
    return [sorted(members) for _, members in sorted(groups.items())]


def summary(reports_dir: Path, status: int, label: str = "") -> str:
    """One line for the build summary: the branch, what its exit status means, and the metrics that did not pass."""
    label = label or reports_dir.name
    meaning = _MEANING.get(status, f"exit status {status}")
    try:
        document = json.loads(read_text(reports_dir / RESULTS_FILE))
        results, run = document["results"], document.get("run")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"{label}: {meaning}; no results ({type(exc).__name__}: {exc})"
    counts = Counter(result["verdict"] for result in results)
    bad = []
    for verdict in (Verdict.ERROR, Verdict.REGRESSION, Verdict.FAIL, Verdict.UNSTABLE):
        if keys := [_named(r) for r in results if r["verdict"] == verdict]:
            more = f" (+{len(keys) - _NAMED})" if len(keys) > _NAMED else ""
            bad.append(f"{verdict} {', '.join(keys[:_NAMED])}{more}")
    tally = ", ".join(f"{counts[v]} {v}" for v in Verdict if counts[v])
    parts = [f"{label}: {meaning}", *_release_gate(reports_dir), *bad]
    parts.append(f"{len(results)} metrics" + (f": {tally}" if tally else ""))
    tests = run.get("tests") if isinstance(run, dict) else None
    if isinstance(tests, dict) and tests.get("ran") is not None:  # runs written before hil counted tests have none
        parts.append(counts_text(tests))
    return "; ".join(parts)


def _release_gate(reports_dir: Path) -> list[str]:
    """The release gate's line when the run had one (--reference-build wrote gate.json): the build's verdict."""
    try:
        gate = json.loads(read_text(reports_dir / "gate.json"))
        return [f"release gate {gate['summary']}"]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f"release gate unreadable ({type(exc).__name__}: {exc})"]


def _named(result: dict[str, Any]) -> str:
    """A metric's key, and its change when it regressed under another verdict (UNSTABLE, FAIL, ERROR)."""
    key = metric_key(result["metric"], result.get("params") or {})
    base = result.get("baseline") or {}
    if base.get("regression") and result["verdict"] != Verdict.REGRESSION:
        key += f" (and regressed {fmt_pct(base.get('change'), signed=True)})"
    return key


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or "python -m hil.pipeline", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("branches", help="one line per parallel branch: its pairs")
    listing.add_argument("--boards", default="boards.yaml", metavar="PATH", help="board inventory")
    listing.add_argument("--select", default="", metavar="PATTERNS", help="pair name patterns (default: all)")
    listing.add_argument("--matrix", choices=parametrization.SIZES, default="quick", help="the run's --matrix")
    listing.add_argument("--locks", type=Path, metavar="FILE", help="write each branch's board locks there")
    summing = commands.add_parser("summary", help="one line on a finished run")
    summing.add_argument("reports", type=Path, metavar="DIR", help="the run's reports directory")
    summing.add_argument("--status", type=int, required=True, help="the run's exit status")
    summing.add_argument("--label", default="", help="name of the branch (default: the directory's name)")
    args = parser.parse_args(argv)
    if args.command == "summary":
        print(summary(args.reports, args.status, args.label))
        return 0
    try:
        inventory = load_inventory(args.boards)
        groups = branches(inventory, args.select, args.matrix)
    except InventoryError as exc:
        print(f"invalid board inventory: {exc}", file=sys.stderr)
        return HilExit.USAGE_ERROR
    for members in groups:
        print(" ".join(members))
    if args.locks:
        pairs = inventory.boards
        args.locks.write_text("".join(" ".join(locks(pairs[m] for m in members)) + "\n" for members in groups))
    return 0


if __name__ == "__main__":
    sys.exit(main())
