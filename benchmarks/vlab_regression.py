"""The regression gate on the virtual lab: false alarms on clean runs, detections of an injected slowdown.

    python benchmarks/vlab_regression.py [--baseline-runs 3] [--clean-runs 3] [--slow-runs 3]
                                         [--cpu-quota 0.8] [--out DIR] [-- extra pytest args]

1. The MSC suite (testcases/usb_device/test_msc.py, both virtual pairs) runs `--baseline-runs` times with
   `--update-baseline` into a fresh results database: a baseline of that many runs, each its own boot.
2. It runs `--clean-runs` times with `--baseline`: nothing changed, so every REGRESSION is a false alarm.
3. It runs `--slow-runs` times with `--baseline` while the virtual board's emulator is slowed from
   outside the board: every QEMU the run starts is moved into a cgroup (v1 `cpu` controller) whose CFS
   quota allows `--cpu-quota` CPUs. Every metric whose median dropped by >= 15% is "affected"; each of
   those not called REGRESSION is a miss.
Prints one line per run and the totals; the raw reports stay in --out.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CGROUP_ROOT = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 100_000
AFFECTED = 0.15  # a drop at least this large must be caught


class Throttle:
    """Moves every QEMU process started after it begins into a CPU-quota cgroup, until stopped."""

    def __init__(self, cpus: float) -> None:
        self.group = CGROUP_ROOT / f"hil-bench-{int(time.time())}"
        self.group.mkdir()
        (self.group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (self.group / "cpu.cfs_quota_us").write_text(str(int(cpus * PERIOD_US)))
        self.seen = {pid for pid in _qemu_pids()}
        self.stop = threading.Event()
        self.moved: list[int] = []
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self.stop.wait(0.2):
            for pid in _qemu_pids():
                if pid not in self.seen:
                    self.seen.add(pid)
                    try:
                        (self.group / "cgroup.procs").write_text(str(pid))
                        self.moved.append(pid)
                    except OSError:
                        pass  # it exited meanwhile

    def __enter__(self) -> Throttle:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        for pid in (self.group / "cgroup.procs").read_text().split():
            (CGROUP_ROOT / "cgroup.procs").write_text(pid)
        self.group.rmdir()


def _qemu_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv0 = (entry / "cmdline").read_bytes().split(b"\0", 1)[0]
            except OSError:
                continue
            if argv0.endswith(b"qemu-system-x86_64"):
                pids.append(int(entry.name))
    return pids


def run_suite(out: Path, database: str, mode: str, extra: list[str]) -> tuple[list[dict], float]:
    out.mkdir(parents=True)
    command = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "testcases/usb_device/test_msc.py",
        f"--hil-reports={out}", f"--html={out}/report.html", f"--junitxml={out}/junit.xml",
        f"--hil-db={database}", mode, *extra,
    ]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=3600)
    (out / "pytest.log").write_text(proc.stdout + proc.stderr)
    return json.loads((out / "results.json").read_text())["results"], time.monotonic() - started


def _key(result: dict) -> str:
    params = ",".join(f"{k}={v}" for k, v in sorted(result["params"].items()))
    return f"{result['board']} {result['metric']}[{params}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-runs", type=int, default=3)
    parser.add_argument("--clean-runs", type=int, default=3)
    parser.add_argument("--slow-runs", type=int, default=3)
    parser.add_argument("--cpu-quota", type=float, default=0.8, help="CPUs the slowed emulator may use")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="hil-vlab-regression-"))
    database = f"sqlite:///{out / 'hil.db'}"  # the baselines and every run
    print(f"reports in {out}")

    for index in range(args.baseline_runs):
        results, took = run_suite(out / f"baseline-{index + 1}", database, "--update-baseline", args.pytest_args)
        print(f"baseline run {index + 1}: {len(results)} metrics, {took:.0f} s", flush=True)

    totals = {"clean": [0, 0, 0], "slow": [0, 0, 0, 0]}  # clean: comparisons, alarms, suspected
    for kind, runs in (("clean", args.clean_runs), ("slow", args.slow_runs)):
        for index in range(runs):
            if kind == "slow":
                with Throttle(args.cpu_quota) as throttle:
                    results, took = run_suite(out / f"{kind}-{index + 1}", database, "--baseline", args.pytest_args)
                moved = f", {len(throttle.moved)} QEMU throttled"
            else:
                results, took = run_suite(out / f"{kind}-{index + 1}", database, "--baseline", args.pytest_args)
                moved = ""
            compared = [r for r in results if r.get("baseline")]
            alarms = [r for r in compared if r["verdict"] == "REGRESSION" or r["baseline"]["regression"]]
            suspected = [r for r in compared if r["baseline"].get("first_attempt")]
            changes = sorted(r["baseline"]["change"] for r in compared)
            line = (
                f"{kind} run {index + 1}: {len(compared)} compared, {len(alarms)} REGRESSION, "
                f"{len(suspected)} re-measured, median changes {changes[0]:+.0%}..{changes[-1]:+.0%}, "
                f"{took:.0f} s{moved}"
            )
            if kind == "clean":
                totals["clean"][0] += len(compared)
                totals["clean"][1] += len(alarms)
                totals["clean"][2] += len(suspected)
            else:
                affected = [r for r in compared if r["baseline"]["change"] <= -AFFECTED]
                caught = [r for r in affected if r in alarms]
                totals["slow"][0] += len(compared)
                totals["slow"][1] += len(affected)
                totals["slow"][2] += len(caught)
                totals["slow"][3] += len(suspected)
                line += f"; {len(affected)} dropped >= {AFFECTED:.0%}, {len(caught)} of them caught"
                for r in affected:
                    if r not in alarms:
                        line += f"\n    missed {_key(r)}: {r['baseline']['reason']}"
            for r in alarms if kind == "clean" else []:
                line += f"\n    false alarm {_key(r)}: {r['baseline']['reason']}"
            print(line, flush=True)

    compared, alarms, suspected = totals["clean"]
    print(f"clean: {alarms} false alarms in {compared} comparisons ({suspected} suspicions re-measured)")
    compared, affected, caught, suspected = totals["slow"]
    share = f"{caught / affected:.0%}" if affected else "n/a"
    print(f"slowed ({args.cpu_quota:g} CPU): {caught} of {affected} metrics dropped >= {AFFECTED:.0%} caught ({share})")


if __name__ == "__main__":
    main()
