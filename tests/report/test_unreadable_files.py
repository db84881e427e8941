"""Unreadable history files (as earlier versions kept them) are skipped by `hil db import`, with a warning
naming the file; a run whose tests passed still exits 0 (the corrupt contents are the ones a crashed writer
or a bad merge leaves)."""

from __future__ import annotations

import json

import pytest

from hil.db.cli import main as db
from hil.db.engine import open_db
from hil.db.read import history

PASSING = """
from hil.report.collect import attach
from hil.report.outcome import raise_for_verdict
from hil.report.testing import example_result


def test_read(request):
    result = example_result(values=[41.0, 42.0, 43.0])
    attach(request.node, result)
    raise_for_verdict(result)
"""


def _first_run(inner) -> dict:
    """A clean run, kept in a history directory as earlier versions did; the tests put corrupt files beside it."""
    inner.pytester.makepyfile(test_perf=PASSING)
    inner().assert_outcomes(passed=1)
    data = json.loads((inner.path / "reports" / "results.json").read_text())
    (inner.path / "reports" / "history").mkdir()
    (inner.path / "reports" / "history" / f"{data['run']['id']}.json").write_text(json.dumps(data))
    return data


def _corruptions(data: dict) -> dict[str, bytes]:
    null_median = json.loads(json.dumps(data))
    null_median["results"][0]["stats"]["median"] = None
    list_for_dict = json.loads(json.dumps(data))
    list_for_dict["results"][0] = ["not", "a", "result"]
    return {
        "bad-utf8": b'{"schema": 1, "run": {"id": "\xff\xfe"}}',
        "infinity": json.dumps(data).replace('"median": 42.0', '"median": Infinity').encode(),
        "null-median": json.dumps(null_median).encode(),
        "list-for-dict": json.dumps(list_for_dict).encode(),
        "truncated": json.dumps(data).encode()[:100],
    }


def _import(inner, capsys, expected_run: str) -> str:
    """`hil db import` of the history: the good run imported, the bad file skipped; what it said."""
    url = f"sqlite:///{inner.path / 'imported.db'}"
    assert db(["--hil-db", url, "import", str(inner.path / "reports" / "history")]) == 1
    engine = open_db(url)
    assert [stored.run.id for stored in history(engine)] == [expected_run]
    engine.dispose()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("corruption", ["bad-utf8", "infinity", "null-median", "list-for-dict", "truncated"])
def test_a_corrupt_history_file_is_skipped_by_import_with_a_warning(inner, capsys, corruption):
    data = _first_run(inner)
    bad = inner.path / "reports" / "history" / "20200101T000000Z-bad000.json"
    bad.write_bytes(_corruptions(data)[corruption])
    assert f"hil db import: skipped {bad}: " in _import(inner, capsys, data["run"]["id"])


def test_a_history_entry_that_is_a_directory_is_skipped(inner, capsys):
    data = _first_run(inner)
    (inner.path / "reports" / "history" / "20200101T000000Z-dir000.json").mkdir()
    assert "20200101T000000Z-dir000.json: cannot read" in _import(inner, capsys, data["run"]["id"])
