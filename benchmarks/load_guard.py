"""How much outside load moves the virtual lab's figures, and whether the load guard catches it.

    python benchmarks/load_guard.py [--loads 0,25,50,100] [--out DIR] [-- pytest selection args]

For each load (percent of ONE of the lab PC's cores) a CPU-bound job runs beside one pytest session of the
selected cases: a process that spins for `load` ms of every 100 ms. The session is the suite's own
(`pytest testcases ...`, each its own boot), so the figures, the PC load hil measured outside itself
(`pc_load`, a share of ALL the PC's CPUs) and the verdicts are what a lab would get. Prints one row per
metric and load: median, its change against the first load given, the measured pc_load and the verdict.
A FAIL beside a load is a figure blamed on the board that the guard (boards.yaml `pc_load_max`) let through.
The reports stay in --out.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PERIOD_S = 0.1


def spin(share: float) -> None:
    """Busy for `share` of every period, asleep for the rest: one core at that load."""
    while True:
        start = time.monotonic()
        while time.monotonic() - start < share * PERIOD_S:
            pass
        time.sleep(max(0.0, PERIOD_S - (time.monotonic() - start)))


@contextlib.contextmanager
def beside(load: int) -> Iterator[None]:
    """A CPU-bound job at `load` percent of one core while the block runs (none at 0)."""
    job = multiprocessing.Process(target=spin, args=(load / 100,), daemon=True) if load else None
    if job:
        job.start()
    try:
        yield
    finally:
        if job:
            job.terminate()
            job.join()


def run_suite(load: int, reports: Path, arguments: list[str], *, quiet: bool = False) -> list[dict]:
    """One pytest session of the suite (its own boot) beside a job at `load`; the results it wrote to `reports`."""
    command = [sys.executable, "-m", "pytest", "testcases", "-p", "no:cacheprovider", "-q"]
    command += ["--hil-reports", str(reports), *arguments]
    with beside(load):
        subprocess.run(command, cwd=REPO, check=False, capture_output=quiet)
    return json.loads((reports / "results.json").read_text())["results"]


def run_once(load: int, out: Path, selection: list[str]) -> list[dict]:
    return run_suite(load, out / f"load{load}", ["--hil-db", f"sqlite:///{out / 'runs.db'}", *selection])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", default="0,25,50,100", help="percent of one core, comma-separated")
    parser.add_argument("--out", type=Path, default=None, help="where the reports stay (default: a temp dir)")
    parser.add_argument("selection", nargs="*", help="pytest arguments after --, e.g. --board vlab-nvme")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="hil-load-guard-"))
    out.mkdir(parents=True, exist_ok=True)
    loads = [int(value) for value in args.loads.split(",")]
    runs = {load: run_once(load, out, args.selection) for load in loads}
    first = {(r["board"], r["metric"], json.dumps(r["params"])): r for r in runs[loads[0]]}
    print(f"{'metric':44} {'load':>5} {'median':>9} {'change':>7}  pc_load{'':24} verdict")
    for key, reference in first.items():
        for load in loads:
            result = next((r for r in runs[load] if (r["board"], r["metric"], json.dumps(r["params"])) == key), None)
            if result is None or not result["stats"]:
                continue
            median, base = result["stats"]["median"], reference["stats"]["median"]
            change = f"{(median / base - 1) * 100:+.1f}%" if base and reference["stats"] else "-"
            pc_load = result["facts"].get("pc_load", "-").split(" of ")[0]
            name = key[1] + (f" {key[2]}" if key[2] != "{}" else "")
            print(f"{name:44} {load:>4}% {median:>9.4g} {change:>7}  {pc_load:30} {result['verdict']}")
    print(f"reports: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
