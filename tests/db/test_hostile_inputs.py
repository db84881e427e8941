"""Hostile databases and output paths given to every command that opens the results database or writes a file:
a URL of a scheme hil does not open, hil's revision with tables dropped, an output path that is a directory, a
FIFO, under a file or a full device, a symbolic link planted in `hil db export`'s folder. Each is one line naming
the problem and an exit status saying so, never a traceback, and nothing is written outside the test's folder."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from hil.cli import main as hil
from hil.db.engine import open_db
from hil.db.spool import SPOOL_DIR
from hil.db.write import write_run
from hil.records.store import RunInfo
from hil.report.testing import example_result

RUNS = {"20251101T100000Z-ref": "ref", "20251102T100000Z-cand": "cand", "20251103T100000Z-cand": "cand"}
REF, CAND1, CAND2 = RUNS
COMMANDS = {  # what each command is given besides --hil-db and --hil-reports
    "upgrade": ["db", "upgrade"],
    "import": ["db", "import", "run.json"],
    "export": ["db", "export", "out"],
    "push": ["db", "push"],
    "gates": ["db", "gates"],
    "compare": ["compare", "ref", "cand"],
    "trend": ["trend", "-o", "trend.html"],
    "calibrate": ["calibrate", "--from-runs", CAND1, CAND2],
    "serve": ["serve", "--port", "1"],  # never listens: the database is refused first
}
SCHEMES = ["mysql://hil@db/lab", "oracle://hil@db/lab", "foo://x", "postgresql+asyncpg://db/lab", "mssql+pyodbc://db"]
DROPPED = [["runs"], ["results"], ["samples"], ["gates"], ["baselines"], ["runs", "results", "samples", "gates"]]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results database of three runs: one of build ref, two of cand."""
    path = tmp_path_factory.mktemp("stored") / "hil.db"
    engine = open_db(f"sqlite:///{path}")
    for day, (run_id, build) in enumerate(RUNS.items(), start=1):
        info = RunInfo(id=run_id, started=f"2025-11-0{day}T10:00:00+00:00", build={"name": build, "version": ""})
        write_run(engine, info, [example_result(), example_result(metric="usb.msc.write")])
    engine.dispose()
    return path


def _run(capsys: pytest.CaptureFixture[str], folder: Path, *argv: str) -> tuple[int, str, str]:
    """`hil ARGV` in `folder`: its exit status, stdout and stderr (no traceback, nothing new outside `folder`)."""
    outside = sorted(folder.parent.iterdir())
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        status = hil(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        status = exc.code
    finally:
        os.chdir(cwd)
    said = capsys.readouterr()
    assert "Traceback" not in said.err and sorted(folder.parent.iterdir()) == outside
    return status, said.out, said.err


def _case(tmp_path: Path) -> Path:
    """A folder of the case's own (under tmp_path, whose other entries it must leave alone)."""
    folder = tmp_path / "case"
    (folder / "reports" / SPOOL_DIR).mkdir(parents=True)
    (folder / "reports" / SPOOL_DIR / "20251104T100000Z-x.jsonl").write_text("")  # push has a spool to deliver
    return folder


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("url", SCHEMES)
def test_a_url_of_a_scheme_hil_does_not_open_is_named_with_what_it_opens(tmp_path, capsys, url, command):
    folder = _case(tmp_path)
    before = sorted(folder.rglob("*"))
    status, _, err = _run(capsys, folder, *COMMANDS[command], "--hil-db", url, "--hil-reports", "reports")
    assert status == 4 and "hil stores runs in SQLite (sqlite:///FILE) or PostgreSQL" in err, err
    assert f"not {url.split('://')[0]}://" in err and sorted(folder.rglob("*")) == before


@pytest.mark.parametrize("command", [name for name in COMMANDS if name != "serve"])  # serve would listen on it
@pytest.mark.parametrize("dropped", DROPPED, ids=["+".join(tables) for tables in DROPPED])
def test_hils_revision_without_its_tables_is_refused_naming_them(tmp_path, capsys, stored, dropped, command):
    folder = _case(tmp_path)
    shutil.copy(stored, folder / "hil.db")
    with sqlite3.connect(folder / "hil.db") as connection:
        for table in dropped:
            connection.execute(f"DROP TABLE {table}")
    connection.close()
    url = f"sqlite:///{folder / 'hil.db'}"
    status, out, err = _run(capsys, folder, *COMMANDS[command], "--hil-db", url, "--hil-reports", "reports")
    assert status == 4 and f"not a whole hil results database: no table {', '.join(sorted(dropped))}" in err, err
    assert "schema" not in out and not (folder / "out").exists() and not (folder / "trend.html").exists()


def _unwritable(folder: Path) -> dict[str, Path]:
    (folder / "a-directory").mkdir()
    os.mkfifo(folder / "a-fifo")
    (folder / "a-file").write_text("")
    return {
        "directory": folder / "a-directory",
        "FIFO": folder / "a-fifo",
        "under a file": folder / "a-file" / "x",
        "full device": Path("/dev/full"),
    }


WHY = {
    "directory": "is a directory",
    "FIFO": "a FIFO or device nobody reads",
    "under a file": "Not a directory",
    "full device": "No space left on device",
}
OUTPUTS = {
    "trend": ["trend", "-o"],
    **{kind: ["compare", "ref", "cand", f"--{kind}"] for kind in ("markdown", "html", "json")},
}


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("path", WHY)
def test_an_output_path_that_cannot_be_written_is_named_and_the_other_files_are_written(
    tmp_path, capsys, stored, output, path
):
    folder = _case(tmp_path)
    target = _unwritable(folder)[path]
    others = [arg for kind in ("markdown", "html", "json") if kind != output for arg in (f"--{kind}", f"gate.{kind}")]
    argv = [*OUTPUTS[output], str(target), *(others if output != "trend" else []), "--hil-db", f"sqlite:///{stored}"]
    status, _, err = _run(capsys, folder, *argv)
    assert status == 4 and f"{target}: cannot be written: {WHY[path]}" in err, err
    assert output == "trend" or all((folder / name).is_file() for name in others[1::2])  # the other files


def test_export_into_what_is_no_folder_or_onto_what_is_no_file_is_named_and_trend_bounds_newest(
    tmp_path, capsys, stored
):
    folder = _case(tmp_path)
    url = f"sqlite:///{stored}"
    for name, target in _unwritable(folder).items():
        if name != "directory":
            status, _, err = _run(capsys, folder, "db", "export", str(target), "--hil-db", url)
            assert status == 4 and f"{target}: not a directory, nor can one be made" in err, err
    export = folder / "export"
    (export / f"{REF}.json").mkdir(parents=True)
    os.mkfifo(export / f"{CAND1}.json")
    status, out, err = _run(capsys, folder, "db", "export", str(export), "--hil-db", url)
    assert status == 1 and "1 run(s), skipped 2" in out
    for run_id in (REF, CAND1):
        assert f"skipped {export / run_id}.json: a symbolic link, directory or special file is there" in err
    assert (export / f"{CAND2}.json").is_file()
    status, _, err = _run(capsys, folder, "trend", "--newest", str(10**20), "--hil-db", url)
    assert status == 2 and "--newest 100000000000000000000: a number of runs up to 1,000,000,000" in err


def test_export_never_writes_through_a_symbolic_link_in_its_folder(tmp_path, capsys, stored):
    folder = _case(tmp_path)
    outside = tmp_path / "outside.json"
    outside.write_text("theirs\n")
    export = folder / "export"
    export.mkdir()
    (export / f"{REF}.json").symlink_to(outside)
    (export / f"{CAND1}.json").symlink_to(tmp_path / "dangling.json")
    status, out, err = _run(capsys, folder, "db", "export", str(export), "--hil-db", f"sqlite:///{stored}")
    assert status == 1 and "1 run(s), skipped 2" in out and err.count("a symbolic link") == 2, err
    assert outside.read_text() == "theirs\n" and not (tmp_path / "dangling.json").exists()
    assert (export / f"{CAND2}.json").is_file()
