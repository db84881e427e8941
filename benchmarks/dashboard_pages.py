"""Server time of each dashboard page (hil serve) on a big generated store: 10,000 runs x 60 metrics.

    python benchmarks/dashboard_pages.py [--store FILE | --hil-db URL] [--runs N] [--repeat N]

The store: 12 boards, each run one board's 60 metrics (10 metrics x 6 block sizes), every build run once on
each board (834 builds for 10,000 runs), 5 samples and a warm-up per result, about 1% ERROR or UNSTABLE, the
pairs calibrated to their 2% noise (run_spread 2%: one run a build, a drop blocks only beyond it);
board-03's read metrics drop 20% from build nightly-0400 on (a change point to find). The numbers are
generated (numpy, seeded), written with hil.db's own row conversion (hil.db.convert) in bulk. --store keeps
the SQLite file for the next run (generated only when it does not exist); --hil-db URL fills an empty
PostgreSQL database instead. The gates of the builds the two matrix pages show are decided and stored
(hil.db.gates: what a run's end does), timed per gate. Then `hil serve` runs on it and each page is requested
once to warm up and --repeat times measured: the figures are its Server-Timing header (what the server spent),
median and max.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Engine, func, insert, select

from hil.dashboard import queries
from hil.dashboard.app import url
from hil.db import convert, gates
from hil.db.engine import open_db
from hil.db.schema import Result, Run, SampleRow
from hil.records.store import RunInfo
from hil.verdict.result import metric_key

BOARDS = [f"board-{i:02d}" for i in range(12)]
METRICS = [
    "usb.msc.read", "usb.msc.write", "usb.msc.fs_read", "usb.msc.fs_write", "usb.ncm.tcp_rx",
    "usb.ncm.tcp_tx", "storage.nvme.read", "storage.nvme.write", "storage.sd.read", "storage.sd.write",
]  # fmt: skip
SIZES = ["4K", "64K", "128K", "512K", "1M", "4M"]
SAMPLES = 5
STEP_BUILD, STEP_BOARD = 400, "board-03"
BATCH = 100  # runs per insert transaction


def _stats(values: np.ndarray) -> dict[str, Any]:
    mean, std = float(values.mean()), float(values.std(ddof=1))
    half = 2.776 * std / SAMPLES**0.5  # t(0.975, 4)
    q1, median, q3 = (float(q) for q in np.percentile(values, [25, 50, 75]))
    return {
        "n": SAMPLES, "mean": mean, "median": median, "std": std, "cv": std / mean, "ci_low": mean - half,
        "ci_high": mean + half, "confidence": 0.95, "minimum": float(values.min()), "maximum": float(values.max()),
        "q1": q1, "q3": q3, "outliers": [],
    }  # fmt: skip


def generate(engine: Engine, runs: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    nominal = {(m, s): 20.0 + 30 * i + 5 * j for i, m in enumerate(METRICS) for j, s in enumerate(SIZES)}
    result_id = 0
    for first in range(0, runs, BATCH):
        run_rows, result_rows, sample_rows = [], [], []
        for index in range(first, min(first + BATCH, runs)):
            build, board = index // len(BOARDS), BOARDS[index % len(BOARDS)]
            started = start + timedelta(hours=24 * build, minutes=5 * (index % len(BOARDS)))
            info = RunInfo(
                id=f"{started:%Y%m%dT%H%M%S}Z-{index:06d}", started=started.isoformat(), finished=started.isoformat(),
                exit_status=0, command="pytest testcases", tests={"passed": 60, "ran": 60},
                build={"name": f"nightly-{build:04d}", "version": f"2024.{build}"},
                inventory={"path": "boards.yaml", "sha256": "a" * 64},
            )  # fmt: skip
            run_rows.append(convert.run_values(info) | {"complete": True, "result_count": 60, "inventory_bands": {}})
            for ordinal, (metric, size) in enumerate((m, s) for m in METRICS for s in SIZES):
                result_id += 1
                level = nominal[(metric, size)]
                if board == STEP_BOARD and build >= STEP_BUILD and metric.endswith("read"):
                    level *= 0.8
                fate = rng.random()
                values = level * (1 + 0.02 * rng.standard_normal(SAMPLES + 1))
                band = {"low": 0.7 * nominal[(metric, size)], "high": None}
                verdict = "ERROR" if fate < 0.005 else "UNSTABLE" if fate < 0.01 else "PASS"
                stats = None if verdict == "ERROR" else _stats(values[1:])
                result_rows.append({
                    "id": result_id, "run_id": info.id, "ordinal": ordinal, "run_started": started, "board": board,
                    "board_identity": None, "metric": metric, "params": {"bs": size},
                    "params_key": metric_key(metric, {"bs": size}), "unit": "MB/s", "direction": "higher",
                    "stats": stats, "median": stats["median"] if stats else None, "band": band, "max_cv": 0.05,
                    "min_effect": 0.05, "min_run_spread": 0.02, "verdict": verdict, "reason": f"{verdict} (generated)",
                    "stop_reason": "decided", "side": None, "ceiling": None, "efficiency": None, "baseline": None,
                    "facts": {"kernel": "6.1.0-27-amd64"}, "started": started.timestamp(),
                    "finished": started.timestamp() + 12, "test_id": f"testcases/test_{metric}.py::{size}",
                    "error_output": "",
                })  # fmt: skip
                if verdict == "ERROR":
                    continue
                for position, value in enumerate(values):
                    sample_rows.append({
                        "result_id": result_id, "position": max(position - 1, 0), "warmup": position == 0,
                        "value": float(value), "started": started.timestamp() + 2 * position, "duration_s": 1.5,
                        "raw": f"{value:.2f} MB/s", "details": {}, "observed": {},
                    })  # fmt: skip
        with engine.begin() as connection:
            connection.execute(insert(Run), run_rows)
            connection.execute(insert(Result), result_rows)
            connection.execute(insert(SampleRow), sample_rows)
        print(f"\r{min(first + BATCH, runs)}/{runs} runs", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def _server_ms(address: str) -> float:
    with urllib.request.urlopen(address, timeout=60) as response:
        response.read()
        timing = response.headers["Server-Timing"]
    return float(timing.split("dur=")[1])


def pages(engine: Engine) -> dict[str, str]:
    with engine.connect() as connection:
        newest = connection.execute(select(Run.id, Run.build_name).order_by(Run.started.desc()).limit(1)).one()
        builds = connection.scalar(select(func.count(func.distinct(Run.build_name))))
    key = metric_key("usb.msc.read", {"bs": "1M"})
    return {
        "matrix, newest 20 builds": "/",
        "matrix, page 20 (builds 401-420)": url("/", page=20),
        f"history, newest 200 of {builds} runs": url("/history", board=STEP_BOARD, metric="usb.msc.read", key=key),
        "history, page 2 (the step at nightly-0400)": url(
            "/history", board=STEP_BOARD, metric="usb.msc.read", key=key, page=2
        ),
        "gate, newest build vs the one before, every board it ran": url("/gate", candidate=newest.build_name),
        "gate, on one board": url("/gate", candidate=newest.build_name, board=STEP_BOARD),
        "run, 60 results with their samples": f"/run/{newest.id}",
    }


def decide_shown_gates(engine: Engine) -> None:
    """The stored gates of the builds the two matrix pages show (as each build's runs would have decided them when
    they were stored; all 834 builds' would take minutes): timed, as the cost a run's end pays per board."""
    shown = set()
    for page in (0, 20):
        rows, _, _ = queries.matrix(engine, page)
        shown |= {row.build for row in rows if row.build is not None}
    began = time.monotonic()
    decided = gates.refresh(engine, shown)
    spent = time.monotonic() - began
    print(
        f"decided {decided} gates of {len(shown)} builds in {spent:.1f} s ({spent / decided * 1000:.0f} ms each)",
        file=sys.stderr,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--store", type=Path, help="SQLite file: generated when missing, reused otherwise")
    where.add_argument("--hil-db", help="an empty database URL (PostgreSQL) to fill")
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--port", type=int, default=8039)
    args = parser.parse_args()
    store = args.store or Path(tempfile.mkdtemp(prefix="hil-dashboard-")) / "hil.db"
    database = args.hil_db or f"sqlite:///{store.resolve()}"
    fresh = args.hil_db is not None or not store.exists()
    engine = open_db(database)
    if fresh:
        began = time.monotonic()
        generate(engine, args.runs)
        print(f"generated {args.runs} runs x 60 metrics in {time.monotonic() - began:.0f} s", file=sys.stderr)
    decide_shown_gates(engine)
    targets = pages(engine)
    engine.dispose()
    command = [sys.executable, "-m", "hil", "serve", "--hil-db", database, "--port", str(args.port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{args.port}"
        for _ in range(300):
            try:
                _server_ms(base + "/")
                break
            except OSError:
                time.sleep(0.2)
        print("| page | server time, median | max |\n|---|---:|---:|")
        for label, path in targets.items():
            _server_ms(base + path)  # warm-up: the first request of a kind also imports and caches
            times = [_server_ms(base + path) for _ in range(args.repeat)]
            print(f"| {label} | {statistics.median(times):.0f} ms | {max(times):.0f} ms |", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
