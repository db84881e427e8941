"""The virtual lab's two clocks side by side: run-to-run spread, quiet and beside a CPU-bound job.

    python benchmarks/vlab_clocks.py [--runs 5] [--clocks virtual,real] [--loads 0,100] [--out DIR]
                                     [-- pytest selection, default: --board vlab-hs -k "msc and read and 1M"]

For each clock, each load (percent of ONE of the PC's cores, load_guard.beside) and each run, the selection
runs as its own pytest session (its own boot): on the virtual clock against boards.yaml, on the real one
against a copy whose virtual-clock pairs are on the real clock (a real-clock figure meets its real-clock
band). Prints, per metric and condition, the run medians' range, their spread ((max - min) / median) and
every verdict other than PASS: what a release gate can see on each clock. The reports stay in --out.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import yaml
from load_guard import run_suite

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SELECTION = ["--board", "vlab-hs", "-k", "msc and read and 1M"]


def inventory_on(clock: str, out: Path) -> Path:
    """boards.yaml itself for the virtual clock; for the real one, a copy in `out` with its virtual-clock pairs
    on the real clock (env paths absolute, the virtual clock's speed and `clock=virtual` band selectors left out)."""
    if clock == "virtual":
        return REPO / "boards.yaml"
    tree = yaml.safe_load((REPO / "boards.yaml").read_text())
    for pair in tree["pairs"].values():
        if not pair.get("env", "hil:").startswith("hil:"):
            pair["env"] = str((REPO / pair["env"]).resolve())
        if pair.get("clock") != "virtual":
            continue
        pair["clock"] = "real"
        pair.pop("virtual_mips", None)
        for metric in pair.get("metrics", {}).values():
            selectors = metric.get("params", {})
            for selector in [name for name in selectors if "clock=virtual" in name]:
                del selectors[selector]
    path = out / "boards-real.yaml"
    path.write_text(yaml.safe_dump(tree, sort_keys=False))
    return path


def _key(result: dict) -> str:
    params = ",".join(f"{k}={v}" for k, v in sorted(result["params"].items()) if k != "clock")
    return f"{result['board']} {result['metric']}" + (f"[{params}]" if params else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--clocks", default="virtual,real")
    parser.add_argument("--loads", default="0,100", help="percent of one core, comma-separated")
    parser.add_argument("--out", type=Path, default=None, help="where the reports stay (default: a temp dir)")
    parser.add_argument("selection", nargs="*", help="pytest arguments after --")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="hil-vlab-clocks-"))
    out.mkdir(parents=True, exist_ok=True)
    selection = args.selection or DEFAULT_SELECTION
    medians: dict[str, dict[tuple[str, int], list[float]]] = {}
    verdicts: dict[str, dict[tuple[str, int], list[str]]] = {}
    conditions = [(clock, int(load)) for clock in args.clocks.split(",") for load in args.loads.split(",")]
    inventories = {clock: inventory_on(clock, out) for clock, _ in conditions}
    for clock, load in conditions:
        inventory = inventories[clock]
        for index in range(args.runs):
            reports = out / f"{clock}-load{load}-run{index + 1}"
            for result in run_suite(load, reports, [f"--boards={inventory}", *selection], quiet=True):
                key = _key(result)
                if result["stats"]:
                    medians.setdefault(key, {}).setdefault((clock, load), []).append(result["stats"]["median"])
                if result["verdict"] != "PASS":
                    verdicts.setdefault(key, {}).setdefault((clock, load), []).append(result["verdict"])
            print(f"{clock} clock, load {load}%, run {index + 1}: {reports}", flush=True)
    print(f"{'metric':48} {'clock':8} {'load':>5} {'runs':>4} {'run medians':>22} {'spread':>8}  not PASS")
    for key, by_condition in medians.items():
        for clock, load in conditions:
            values = by_condition.get((clock, load), [])
            if not values:
                continue
            middle = statistics.median(values)
            spread = (max(values) - min(values)) / middle if middle else 0.0
            others = ", ".join(verdicts.get(key, {}).get((clock, load), [])) or "-"
            shown = f"{min(values):.5g}-{max(values):.5g}"
            print(f"{key:48} {clock:8} {load:>4}% {len(values):>4} {shown:>22} {spread:>7.2%}  {others}")
    print(f"reports: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
