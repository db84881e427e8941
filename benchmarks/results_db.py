"""The results database on a big store: how long `hil compare` of two builds and one result's write take.

    python benchmarks/results_db.py [--runs 10000] [--metrics 60] [--db sqlite|postgresql|both]

Generates a store of RUNS runs x METRICS results (5 samples each; 5 runs per build, 4 boards), written in
bulk through the schema's tables (the generator, not the writer: 600,000 single writes would take the
benchmark's hour), on an SQLite file and on a throwaway PostgreSQL 15 cluster (fsync on, as a lab's
server). Then, on that store:
- `hil compare` of the two newest builds: in-process (open, read both builds' runs with their samples,
  decide every row) and as the whole command in a new process (Python's start and imports included);
- one result written by the run writer (hil.db.write.RunWriter.add: one transaction with its samples),
  200 of them, median and 95th percentile;
- four writer processes x 500 results at once: runs, results and samples counted afterwards.
Figures, not a timed test: docs/results-db.md keeps them with the machine they were taken on.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, insert, select, text

from hil.db.engine import open_db
from hil.db.schema import Result, Run, SampleRow
from hil.db.spool import Spool
from hil.db.write import RunWriter
from hil.records.store import RunInfo
from hil.report.compare import main as compare
from hil.report.testing import example_result
from hil.verdict.stats import describe
from tests.db.postgres import Cluster
from tests.db.writers import concurrent_runs

RUNS_PER_BUILD, BOARDS, SAMPLES = 5, 4, 5
BATCH = 50  # runs per bulk insert


def generate(url: str, runs: int, metrics: int, seed: int = 1) -> None:
    engine = open_db(url)
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    result_id = sample_id = 0
    # 1,000 sample sets described once (scipy per result would be most of the generation's time)
    pool = [(values, describe(values).__dict__) for values in ([rng.gauss(100, 1.5) for _ in range(SAMPLES)]
                                                                for _ in range(1000))]  # fmt: skip
    for first in range(0, runs, BATCH):
        with engine.begin() as connection:  # a transaction per batch: SQLite's WAL is checkpointed as it goes
            run_rows, result_rows, sample_rows = [], [], []
            for number in range(first, min(first + BATCH, runs)):
                build = f"b{number // RUNS_PER_BUILD:05d}"
                started = start + timedelta(minutes=30 * number)
                run_id = f"{started:%Y%m%dT%H%M%SZ}-{number:06x}"
                run_rows.append({
                    "id": run_id, "started": started, "finished": started + timedelta(minutes=20), "exit_status": 0,
                    "result_count": metrics, "complete": True, "hil_version": "0.1.0", "command": "pytest testcases",
                    "host": {"hostname": "lab-pc"}, "tests": {"ran": metrics, "passed": metrics},
                    "build_name": build, "build_version": "1", "build": {"name": build, "version": "1"},
                    "inventory_path": "boards.yaml", "inventory_sha256": "a" * 64, "inventory_bands": {},
                })  # fmt: skip
                for ordinal in range(metrics):
                    result_id += 1
                    values, stats = rng.choice(pool)
                    result_rows.append({
                        "id": result_id, "run_id": run_id, "ordinal": ordinal, "run_started": started,
                        "board": f"board-{ordinal % BOARDS}", "board_identity": {"kernel.dut": "6.1.0"},
                        "metric": f"bench.m{ordinal:02d}", "params": {"bs": "1M"},
                        "params_key": f"bench.m{ordinal:02d}[bs=1M]", "unit": "MB/s", "direction": "higher",
                        "stats": stats, "median": stats["median"], "band": {"low": 50.0, "high": None},
                        "max_cv": 0.05, "min_effect": 0.05, "min_run_spread": 0.02, "verdict": "PASS",
                        "reason": "inside the band", "stop_reason": "decided", "side": None, "ceiling": None,
                        "efficiency": None, "baseline": None, "facts": {"link_speed": "480M"},
                        "started": started.timestamp(), "finished": started.timestamp() + 10, "test_id": "t",
                        "error_output": "",
                    })  # fmt: skip
                    for position, value in enumerate(values):
                        sample_id += 1
                        sample_rows.append({
                            "id": sample_id, "result_id": result_id, "position": position, "warmup": False,
                            "value": value, "started": started.timestamp() + position, "duration_s": 1.0,
                            "raw": "", "details": {}, "observed": {},
                        })  # fmt: skip
            connection.execute(insert(Run), run_rows)
            connection.execute(insert(Result), result_rows)
            connection.execute(insert(SampleRow), sample_rows)
        if (first + BATCH) % 1000 == 0:
            print(f"  {first + BATCH} runs", flush=True)
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":  # ids were given: the sequences continue after them
            for table in ("results", "samples"):
                connection.execute(
                    text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table}")
                )
            connection.execute(text("ANALYZE"))
    engine.dispose()


def time_compare(url: str, runs: int, reports: Path) -> tuple[float, float, float, float]:
    """Wall and CPU seconds of the comparison in-process, then of the whole command."""
    last = (runs - 1) // RUNS_PER_BUILD
    reference, candidate = f"b{last - 1:05d}", f"b{last:05d}"
    arguments = [reference, candidate, "--hil-db", url, "--json", str(reports / "gate.json")]
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):  # the gate's Markdown
        status = compare(arguments)
    in_process, in_process_cpu = time.perf_counter() - start, time.process_time() - cpu
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    command = subprocess.run([sys.executable, "-m", "hil", "compare", *arguments], capture_output=True, text=True)
    whole = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    whole_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert status == command.returncode and status in (0, 6), command.stderr
    return in_process, in_process_cpu, whole, whole_cpu


def time_writes(url: str, count: int, spool: Path) -> tuple[float, float]:
    engine = open_db(url)
    info = RunInfo.start("pytest testcases", build={"name": "latency", "version": "1"})
    writer = RunWriter(engine, info, Spool(spool / f"{info.id}.jsonl"))
    writer.begin()
    times = []
    for index in range(count):
        result = example_result(params={"bs": "1M", "n": index})  # 8 samples and a warm-up, as a real result
        start = time.perf_counter()
        writer.add(result)
        times.append(time.perf_counter() - start)
    writer.finish()
    assert writer.failure is None, writer.failure
    engine.dispose()
    times.sort()
    return statistics.median(times), times[int(0.95 * len(times))]


def count_concurrent(url: str, spool: Path) -> str:
    start = time.perf_counter()
    written = concurrent_runs(url, writers=4, results=500, spool_dir=spool)
    seconds = time.perf_counter() - start
    engine = open_db(url)
    ids = [run_id for run_id, _ in written]
    with engine.connect() as connection:
        results = connection.scalar(select(func.count()).select_from(Result).where(Result.run_id.in_(ids)))
        complete = connection.scalar(select(func.count()).select_from(Run).where(Run.id.in_(ids), Run.complete))
    engine.dispose()
    lost, duplicated = 2000 - results, results - 2000
    return (
        f"4 writers x 500 results in {seconds:.1f} s: {complete}/4 runs complete, {results} results "
        f"({max(lost, 0)} lost, {max(duplicated, 0)} duplicated)"
    )


def bench(kind: str, url: str, args: argparse.Namespace, work: Path) -> None:
    start = time.perf_counter()
    generate(url, args.runs, args.metrics)
    print(f"{kind}: generated {args.runs} runs x {args.metrics} metrics in {time.perf_counter() - start:.0f} s")
    in_process, in_process_cpu, whole, whole_cpu = time_compare(url, args.runs, work)
    print(
        f"{kind}: hil compare of two builds: in-process {in_process:.3f} s ({in_process_cpu:.3f} s CPU), "
        f"as a command {whole:.2f} s ({whole_cpu:.2f} s CPU, Python's start and imports included); "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    median, p95 = time_writes(url, 200, work)
    print(f"{kind}: one result written: median {median * 1000:.1f} ms, 95th percentile {p95 * 1000:.1f} ms")
    print(f"{kind}: {count_concurrent(url, work)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--metrics", type=int, default=60)
    parser.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hil-db-bench-") as directory:
        work = Path(directory)
        if args.db in ("sqlite", "both"):
            bench("SQLite", f"sqlite:///{work / 'hil.db'}", args, work)
        if args.db in ("postgresql", "both"):
            cluster = Cluster(fsync=True)
            cluster.start()
            try:
                bench("PostgreSQL 15", cluster.create_database("hil"), args, work)
            finally:
                cluster.remove()


if __name__ == "__main__":
    main()
