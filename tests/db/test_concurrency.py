"""Four writer processes x 500 results into one database at once: no run or result lost or duplicated."""

from __future__ import annotations

from sqlalchemy import func, select

from hil.db.engine import open_db
from hil.db.read import runs_by_id
from hil.db.schema import Result, Run, SampleRow
from tests.db.writers import concurrent_runs


def test_four_concurrent_writers_lose_and_duplicate_nothing(db_url, tmp_path):
    written = concurrent_runs(db_url, writers=4, results=500, spool_dir=tmp_path)
    engine = open_db(db_url)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(Run)) == 4
        assert connection.scalar(select(func.count()).select_from(Result)) == 2000
        assert connection.scalar(select(func.count()).select_from(SampleRow)) == 8000
    runs = runs_by_id(engine, [run_id for run_id, _ in written])  # complete runs only
    assert len(runs) == 4
    for run in runs:
        assert [result.params["n"] for result in run.results] == list(range(500))
    assert not list(tmp_path.glob("*.jsonl"))  # nothing spooled
    engine.dispose()
