"""`hil db`: the results database's upkeep.

Subcommands: upgrade (the schema, Alembic), import (results.json files, history/ and baselines/ directories; a
bad file is skipped, named), export, push (the runs spooled while the database was down), gates (decide the
stored gates again). Exit status: 0 done, 1 something was skipped or not delivered, 4 the database cannot be
opened.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import inspect
from sqlalchemy.exc import SQLAlchemyError

from hil.db import baselines, gates, migrate, read
from hil.db.convert import with_added_params
from hil.db.engine import (
    NOT_HIL,
    DatabaseError,
    add_options,
    check_tables,
    connect,
    describe,
    engine_for,
    first_line,
    resolve_url,
)
from hil.db.read import all_runs
from hil.db.spool import SPOOL_DIR, SpoolError
from hil.db.write import check_figures, check_run_id, push, write_run
from hil.errors import cannot_write
from hil.records.exitcodes import HilExit
from hil.records.files import atomic_write_text, dumps
from hil.records.store import ResultsFileError, StoredRun, document, load_run

# What a file's or a spool's value the columns cannot hold raises (an ordinal beyond SQLite's INTEGER: Overflow)
# and a field of another type than hil writes: that file is skipped, named (import, push)
NOT_STORABLE = (SQLAlchemyError, ValueError, TypeError, OverflowError)
GATES_STORED = "0005"  # the revision from which each build's gate is stored (hil.db.gates)


def _upgrade(args: argparse.Namespace) -> int:
    url = resolve_url(args.hil_db, args.hil_reports)
    engine = engine_for(url)
    try:
        before = migrate.current(engine)
        if before is None and inspect(engine).get_table_names():  # another program's database: left as it is
            raise DatabaseError(f"{describe(url)}: {NOT_HIL}")
        migrate.upgrade(engine)
        check_tables(engine, url)  # at the head already, with tables dropped: not a success
    except DatabaseError:
        raise
    except Exception as exc:  # any failure of a migration: named, with the database
        raise DatabaseError(f"{describe(url)}: upgrade failed: {type(exc).__name__}: {exc}") from None
    finally:
        engine.dispose()
    print(f"{describe(url)}: schema {before or 'none'} -> {migrate.HEAD}")
    if before is not None and before < GATES_STORED:
        print("the builds stored before hil kept their gates show none on the dashboard: `hil db gates` decides them")
    return HilExit.OK


def _import(args: argparse.Namespace) -> int:
    engine = connect(args)
    files: list[Path] = []
    for path in args.paths:
        files += sorted(path.glob("*.json")) if path.is_dir() else [path]
    runs, skipped = 0, 0
    imported_builds: set[str] = set()
    for path in files:
        if baselines.is_baseline_file(path):
            print(f"hil db import: skipped {path}: {baselines.OLD_FILE}", file=sys.stderr)
            skipped += 1
            continue
        problem = None
        try:
            stored = load_run(path)
            results = [with_added_params(result) for result in stored.results]
            check_figures(results)  # a file's figures say what they claim, or nothing of it is stored
            written = write_run(engine, stored.run, results)
        except ResultsFileError as exc:  # it names the file
            problem = str(exc)
        except DatabaseError as exc:  # a stored run of that id, an id that is none, figures that contradict
            problem = f"{path}: {exc}"
        except NOT_STORABLE as exc:  # a value the columns cannot hold: this file only
            problem = f"{path}: not storable: {first_line(exc)}"
        if problem is not None:
            print(f"hil db import: skipped {problem}", file=sys.stderr)
            skipped += 1
            continue
        if not written:
            print(f"hil db import: {path}: run {stored.run.id} is stored already, the same: nothing written")
        elif stored.run.build and stored.run.build.get("name"):
            imported_builds.add(stored.run.build["name"])
        runs += written
    decided = gates.refresh(engine, imported_builds)
    print(f"{describe(engine.url)}: imported {runs} run(s), skipped {skipped} file(s); {decided} gate(s) decided")
    return HilExit.OK if not skipped else HilExit.GATE_FAILED


def _export(args: argparse.Namespace) -> int:
    engine = connect(args, create=False)
    runs = all_runs(engine)
    try:
        args.directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"hil db export: {args.directory}: not a directory, nor can one be made: {exc.strerror}", file=sys.stderr)
        return HilExit.USAGE_ERROR
    skipped = 0
    for stored in runs:
        if (problem := _export_run(args.directory, stored)) is not None:
            print(f"hil db export: skipped {problem}", file=sys.stderr)
            skipped += 1
    print(f"{args.directory}: {len(runs) - skipped} run(s), skipped {skipped}")
    return HilExit.OK if not skipped else HilExit.GATE_FAILED


def _export_run(directory: Path, stored: StoredRun) -> str | None:
    """Write one run's file into directory; what is wrong, when it was not."""
    try:
        check_run_id(stored.run.id)  # its file stays in the folder: never '../x' or '/etc/x'
    except DatabaseError as exc:
        return str(exc)
    path = directory / f"{stored.run.id}.json"
    if path.is_symlink() or (path.exists() and not path.is_file()):  # never written through, nor into a FIFO
        return f"{path}: a symbolic link, directory or special file is there: left as it is"
    try:
        atomic_write_text(path, dumps(document(stored.run, stored.results), indent=1))
    except OSError as exc:  # a full disk, a folder made read-only
        return cannot_write(path, exc)
    return None


def _push(args: argparse.Namespace) -> int:
    spooled = sorted((args.hil_reports / SPOOL_DIR).glob("*.jsonl"))
    if not spooled:
        print(f"nothing to push: no spooled run in {args.hil_reports / SPOOL_DIR}")
        return HilExit.OK
    engine = connect(args, create=False)  # a spooled run's database was there when it started
    failed = 0
    for path in spooled:
        try:
            info = push(engine, path)
        except (SpoolError, DatabaseError) as exc:  # they name the spool, which is kept: the others go on
            print(f"hil db push: {exc}", file=sys.stderr)
            failed += 1
        except NOT_STORABLE as exc:  # a value the columns cannot hold, a field of another type: this spool only
            print(f"hil db push: {path}: not storable: {first_line(exc)}", file=sys.stderr)
            failed += 1
        else:
            print(f"pushed run {info.id} ({path.name})")
            if info.build and info.build.get("name"):
                gates.refresh(engine, {info.build["name"]})
    return HilExit.OK if not failed else HilExit.GATE_FAILED


def _gates(args: argparse.Namespace) -> int:
    engine = connect(args, create=False)
    builds = set(args.builds) or {name for name, _ in read.builds(engine)}
    print(f"{describe(engine.url)}: {gates.refresh(engine, builds)} gate(s) decided for {len(builds)} build(s)")
    return HilExit.OK


def main(argv: Sequence[str] | None = None, *, prog: str = "hil db") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    add_options(parser)
    commands = parser.add_subparsers(dest="command", required=True)
    given_after = argparse.ArgumentParser(add_help=False)  # the options after the subcommand too
    add_options(given_after, defaults=False)
    helps = {
        "upgrade": "create the schema or take it forward to this hil's",
        "import": "load results.json files and history directories (a baseline file of an earlier hil is refused)",
        "export": "write every run as a results.json document into DIR",
        "push": "deliver the runs spooled while the database was unreachable",
        "gates": "decide again the stored gates the dashboard shows (of BUILD..., else of every build)",
    }
    sub = {name: commands.add_parser(name, help=text, parents=[given_after]) for name, text in helps.items()}
    sub["import"].add_argument("paths", nargs="+", type=Path, metavar="PATH")
    sub["export"].add_argument("directory", type=Path, metavar="DIR")
    sub["gates"].add_argument("builds", nargs="*", metavar="BUILD")
    args = parser.parse_args(argv)
    action = {"upgrade": _upgrade, "import": _import, "export": _export, "push": _push, "gates": _gates}[args.command]
    try:
        return action(args)
    except DatabaseError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return HilExit.USAGE_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
