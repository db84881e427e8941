"""`hil calibrate`: propose a pair's bands in boards.yaml from what repeated runs of a known-good build measured.

    hil calibrate --board PAIR --runs 5 [PYTEST ARGS...]   # 5 runs of the stock suite, each its own boot
    hil calibrate --from-runs ID ID ...                    # from runs already in the results database

Each run is a `hil run` of its own (one session, one boot), stored in the results database (--hil-db). Per
metric the proposal shows the median of the run medians, the run-to-run spread, the largest sample CV and the
band boards.yaml sets now beside them, and warns when the figure lies outside that band by more than the
spread. The proposal is a unified diff of boards.yaml (default reports/calibrate-PAIR.diff) for review;
--write edits the file instead, comments kept. Exit status: 0 proposed, 4 bad input (runs of different builds
or pairs, an unknown run), else the status of the run that failed.
"""

from __future__ import annotations

import argparse
import difflib
import math
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from hil.calibrate.bands import (
    MAX_FACTOR,
    MIN_FACTOR,
    CalibrationError,
    Proposal,
    check_runs,
    figures,
    propose,
    significant,
)
from hil.calibrate.edit import MetricEdit, edit_inventory
from hil.catalogue import CATALOGUE
from hil.db import engine as db_engine
from hil.db.engine import DatabaseError
from hil.db.read import runs_by_id
from hil.errors import InventoryError
from hil.inventory.against_catalogue import needs_maximum
from hil.inventory.loader import LoadedInventory, load_inventory
from hil.inventory.schema import MetricConfig, parse_selector
from hil.records.exitcodes import HilExit
from hil.records.files import atomic_write_text
from hil.records.store import RESULTS_FILE, ResultsFileError, StoredRun, load_run
from hil.report.summary import fmt_num
from hil.verdict.result import Verdict
from hil.verdict.spec import Band
from hil.verdict.units import convert

MEASURED = (HilExit.OK, HilExit.GATE_FAILED, HilExit.LAB_ERROR)  # a run whose results are stored


class RunFailed(RuntimeError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def measure(args: argparse.Namespace, pytest_args: list[str]) -> list[str]:
    """Run the stock suite args.runs times, each a session (a boot) of its own; the run ids."""
    ids: list[str] = []
    results = args.hil_reports / RESULTS_FILE
    options = ["--board", args.board, "--no-diagnose", "--hil-reports", str(args.hil_reports)]
    options += ["--boards", str(args.boards)] * bool(args.boards) + ["--hil-db", args.hil_db] * bool(args.hil_db)
    for number in range(1, args.runs + 1):
        before = _run_id(results)
        argv = [sys.executable, "-m", "hil", "run", *options, *pytest_args]
        print(f"calibration run {number}/{args.runs}: hil run {shlex.join(argv[4:])}", flush=True)
        status = subprocess.run(argv, check=False).returncode
        run_id = _run_id(results)
        if status not in MEASURED or run_id is None or run_id == before:
            raise RunFailed(status, f"calibration run {number} ended with exit status {status}: nothing proposed")
        ids.append(run_id)
    return ids


def _run_id(results: Path) -> str | None:
    try:
        return load_run(results).run.id
    except (ResultsFileError, OSError):
        return None


def load_runs(args: argparse.Namespace, run_ids: list[str]) -> list[StoredRun]:
    engine = db_engine.connect(args, create=False)
    try:
        found = {stored.run.id: stored for stored in runs_by_id(engine, run_ids)}
    finally:
        engine.dispose()
    if missing := [run_id for run_id in run_ids if run_id not in found]:
        raise CalibrationError(f"run {missing[0]}: not in the results database, or not complete")
    return [found[run_id] for run_id in run_ids]


def _layer(config: MetricConfig | None, params: dict[str, object]) -> str | None:
    """The parameter override that sets this case's band, None: the metric's own entry."""
    if config is None or config.informative:
        return None
    matching = [s for s in config.params if all(str(params.get(k)) == v for k, v in parse_selector(s).items())]
    return max(matching, key=lambda selector: len(parse_selector(selector)), default=None)


def _number(value: float) -> str:
    digits = 0 if value <= 0 else max(0, 2 - math.floor(math.log10(value)))
    return f"{value:.{digits}f}"


def _machine(runs: list[StoredRun], board: str) -> str:
    hosts = ", ".join(sorted({str(stored.run.host.get("hostname", "?")) for stored in runs}))
    cpus = {stored.run.host.get("cpus") for stored in runs} - {None}
    facts = [r.facts.pc_load or "" for stored in runs for r in stored.results if r.board == board]
    cpus |= {int(m.group(1)) for m in (re.search(r"(\d+) CPUs", str(fact)) for fact in facts) if m}
    loads = [stored.run.host["load_average"][0] for stored in runs if stored.run.host.get("load_average")]
    busy = [s.observed.pc_load for st in runs for r in st.results if r.board == board for s in r.samples]
    parts = [f"{'/'.join(map(str, sorted(cpus)))} CPUs" if cpus else "CPUs not recorded"]
    if loads:
        parts.append(f"load average {min(loads):.2f}-{max(loads):.2f} at the runs' start")
    if measured := [value for value in busy if value is not None]:
        parts.append(f"the PC at most {max(measured):.0f}% busy outside hil while sampling")
    return f"{hosts} ({', '.join(parts)})"


def source_text(proposals: list[Proposal], runs: list[StoredRun], board: str, factors: tuple[float, float]) -> str:
    """A band's `source`: the runs, their date, the machine, the figures and the rule."""
    dates = sorted({stored.run.started[:10] for stored in runs})
    build = runs[0].run.build
    of_build = f" of build {build.get('name')} {build.get('version')}" if build else ""
    lines = []
    for proposal in proposals:
        found = proposal.figures
        name = ",".join(f"{k}={v}" for k, v in sorted(found.params.items()))
        cv = f", largest sample CV {max(found.cvs):.1%}" if found.cvs else ""
        medians = "/".join(f"{value:.4g}" for value in found.run_medians)
        lines.append(
            f"{name + ': ' if name else ''}run medians {medians} {found.unit} (median {found.center:.4g}, "
            f"run spread {found.spread or 0:.1%}{cv})"
        )
    band = proposals[0].band
    edges = [f"{factors[0]:g}x the lowest run median"] * (band.low is not None)
    edges += [f"{factors[1]:g}x the highest"] * (band.high is not None)
    return (
        f"hil calibrate {' .. '.join(dates)}, {len(runs)} runs{of_build} ({', '.join(s.run.id for s in runs)}) on "
        f"{_machine(runs, board)}: {'; '.join(lines)}; band = {' .. '.join(edges)}; "
        "run_spread = the run spread rounded up"
    )


def plan(
    runs: list[StoredRun], board: str, loaded: LoadedInventory, factors: tuple[float, float]
) -> tuple[list[Proposal], list[MetricEdit]]:
    """Each measured metric's proposal, and the edits of boards.yaml that make them its bands."""
    pair = loaded.boards.get(board)
    if pair is None:
        raise CalibrationError(f"{loaded.path}: no pair {board!r} (pairs: {', '.join(loaded.boards)})")
    proposals: list[Proposal] = []
    grouped: dict[str, dict[str | None, list[Proposal]]] = {}
    for found in figures(runs, board):
        if len(found.run_medians) < 2:
            print(f"{found.key}: measured in {len(found.run_medians)} of {len(runs)} runs: no spread, not proposed")
            continue
        config = pair.config.metrics.get(found.metric)
        spec = pair.spec_for(loaded.inventory, found.metric, found.params)
        informative = config is not None and config.informative  # no max_cv gated its samples
        metric = CATALOGUE.metrics.get(found.metric)
        needs_max = metric is not None and needs_maximum(metric, pair.config.link)
        proposal = propose(found, spec.band, None if informative else spec.max_cv, factors=factors, needs_max=needs_max)
        if proposal is None:
            print(f"{found.key}: no edge these figures could set (a share near its ceiling?): not proposed")
            continue
        proposals.append(proposal)
        grouped.setdefault(found.metric, {}).setdefault(_layer(config, found.params), []).append(proposal)
    edits = []
    for metric, layers in grouped.items():
        config = pair.config.metrics.get(metric)
        unit = (config.unit if config else None) or next(iter(layers.values()))[0].figures.unit
        values = {selector: _values(group, unit) for selector, group in layers.items()}
        every = [proposal for group in layers.values() for proposal in group]
        drop = ("informative",) if config is not None and config.informative else ()
        edits.append(MetricEdit(metric, unit, values, source_text(every, runs, board, factors), drop))
    return proposals, edits


def _values(group: list[Proposal], unit: str) -> dict[str, str]:
    """One layer's keys: the loosest band of the cases it rules (written in the layer's unit), the widest spread."""
    values = {}
    lows = [p.band.low for p in group if p.band.low is not None]
    highs = [p.band.high for p in group if p.band.high is not None]
    metric_unit = group[0].figures.unit
    if lows:
        values["min"] = _number(significant(convert(min(lows), metric_unit, unit), up=False))
    if highs:
        values["max"] = _number(significant(convert(max(highs), metric_unit, unit), up=True))
    values["run_spread"] = f"{max(p.run_spread for p in group) * 100:.0f}%"
    return values


def _band(band: Band | None) -> str:
    if band is None:
        return "none"
    return " .. ".join("" if edge is None else fmt_num(edge) for edge in (band.low, band.high))


def table(proposals: list[Proposal], sources: dict[str, str]) -> str:
    """The figures beside the band boards.yaml sets now (and the start of its source) and the proposal."""
    lines = [
        "| metric | run medians | median | run spread | largest CV | current band (source) | proposed | run_spread |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for p in proposals:
        found = p.figures
        source = sources.get(found.metric, "")
        source = f" ({source[:60]}{'...' if len(source) > 60 else ''})" if source else ""
        medians = "/".join(fmt_num(value) for value in found.run_medians)
        cv = f"{max(found.cvs):.1%}" if found.cvs else ""
        cells = [f"`{found.key}`", f"{medians} {found.unit}", fmt_num(found.center), f"{found.spread or 0:.1%}", cv]
        cells += [_band(p.current) + source, _band(p.band), f"{p.run_spread:.0%}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _refusal(path: Path, text: str) -> str | None:
    """Why the edited inventory does not load as hil will load it (beside the file: its env paths are relative)."""
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".yaml", encoding="utf-8") as temp:
        temp.write(text)
        temp.flush()
        try:
            load_inventory(temp.name)
        except InventoryError as exc:  # named as the file it edits, not the copy it loaded
            return str(exc).replace(temp.name, str(path))
    return None


def _loadable(path: Path, text: str, board: str, edits: list[MetricEdit]) -> str:
    """boards.yaml's text with every edit that loads: a metric's edit the inventory's rules refuse is noted in
    its edit and left out, the others are still made (one refused band never costs the pair its other bands)."""
    edited = edit_inventory(text, board, edits)
    if _refusal(path, edited) is None:
        return edited
    for edit in edits:
        if not edit.notes and (why := _refusal(path, edit_inventory(text, board, [edit]))):
            edit.notes.append(f"refused by the inventory's rules ({why})")
    edited = edit_inventory(text, board, [edit for edit in edits if not edit.notes])
    if why := _refusal(path, edited):  # each loads alone, not together: nothing is written
        raise CalibrationError(f"the proposal does not load as an inventory, nothing written: {why}")
    return edited


def _options() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hil calibrate",
        allow_abbrev=False,  # --hil, --b: pytest's or hil's options, never one of these cut short
        description=__doc__.split("\n\n")[0],
        epilog="Other arguments go to each `hil run` (pytest and hil options: -k, --samples, --build, --lg-env, ...).",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--runs", type=int, metavar="N", help="run the pair N times (at least 2), then propose")
    source.add_argument("--from-runs", nargs="+", metavar="ID", help="propose from these stored runs (at least 2)")
    parser.add_argument("--board", help="the pair (required with --runs)")
    parser.add_argument("--boards", type=Path, help="the inventory to propose for (default: boards.yaml)")
    db_engine.add_options(parser)
    parser.add_argument("--diff", type=Path, help="where the proposal goes (default: reports/calibrate-PAIR.diff)")
    parser.add_argument("--write", action="store_true", help="edit boards.yaml in place instead of writing a diff")
    parser.add_argument("--min-factor", type=float, default=MIN_FACTOR, help="min = this x the lowest run median")
    parser.add_argument("--max-factor", type=float, default=MAX_FACTOR, help="max = this x the highest run median")
    return parser


def _propose(args: argparse.Namespace, run_ids: list[str]) -> int:
    runs = load_runs(args, run_ids)
    board = check_runs(runs, args.board)
    path = args.boards or Path("boards.yaml")
    loaded = load_inventory(path)
    proposals, edits = plan(runs, board, loaded, (args.min_factor, args.max_factor))
    sources = {name: metric.source for name, metric in loaded.boards[board].config.metrics.items()}
    print(f"\n{board}: {len(runs)} runs ({', '.join(run_ids)})\n\n{table(proposals, sources)}")
    for warning in not_passed(runs, board) + [warning for proposal in proposals for warning in proposal.warnings]:
        print(f"WARNING {board} {warning}")
    text = path.read_text(encoding="utf-8")
    edited = _loadable(path, text, board, edits)
    for edit in edits:
        for note in edit.notes:
            print(f"not written: {board} {edit.metric}: {note}: edit it by hand")
    if edited == text:
        print(f"{path}: nothing to change")
        return HilExit.OK
    if args.write:
        atomic_write_text(path, edited)
        print(f"{path}: edited ({sum(not edit.notes for edit in edits)} metrics)")
        return HilExit.OK
    named, top = _diff_path(path)
    diff = "".join(difflib.unified_diff(text.splitlines(True), edited.splitlines(True), f"a/{named}", f"b/{named}"))
    target = args.diff or args.hil_reports / f"calibrate-{board}.diff"
    atomic_write_text(target, diff)
    where = "" if top.resolve() == Path.cwd().resolve() else f"in {top}: "
    print(
        f"{target}: the proposal as a diff of {path} ({where}git apply {target.resolve() if where else target}; "
        "or run again with --write)"
    )
    return HilExit.OK


def _diff_path(path: Path) -> tuple[str, Path]:
    """The inventory as a diff names it, and the folder `git apply` takes it in: the top of the inventory's git
    work tree (a lab repository), else the inventory's own folder. Never an absolute or ../ name, which git apply
    refuses, whatever --boards path was given and wherever hil calibrate ran."""
    resolved = path.resolve()
    top = next((folder for folder in resolved.parents if (folder / ".git").exists()), resolved.parent)
    return resolved.relative_to(top).as_posix(), top


def not_passed(runs: list[StoredRun], board: str) -> list[str]:
    """The results of `board` in the runs that neither passed nor were informative, one line each: a run the PC's
    load made UNSTABLE is no known-good figure of the board, and a calibration says so rather than take it silently."""
    return [
        f"run {stored.run.id}: {result.key} was {result.verdict.value}: {result.reason}"
        for stored in runs
        for result in stored.results
        if result.board == board and result.verdict not in (Verdict.PASS, Verdict.INFO)
    ]


def main(argv: Sequence[str] | None = None, *, prog: str = "hil calibrate") -> int:
    parser = _options()
    parser.prog = prog
    args, pytest_args = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    if args.from_runs and pytest_args:
        parser.error(f"unrecognized arguments: {shlex.join(pytest_args)} (--from-runs runs nothing)")
    if args.runs is not None and (args.runs < 2 or not args.board):
        parser.error("--runs needs --board and at least 2 runs: a spread needs two")
    if args.from_runs is not None and len(args.from_runs) < 2:
        parser.error("--from-runs needs at least 2 runs: a spread needs two")
    if not (0 < args.min_factor <= 1 <= args.max_factor < math.inf):  # false for nan too
        parser.error(f"--min-factor {args.min_factor} and --max-factor {args.max_factor}: 0 < min <= 1 <= max")
    if twice := sorted({run_id for run_id in args.from_runs or () if args.from_runs.count(run_id) > 1}):
        parser.error(f"--from-runs names {', '.join(twice)} twice: a spread needs runs of their own")
    try:
        return _propose(args, args.from_runs or measure(args, pytest_args))
    except RunFailed as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return exc.status
    except (CalibrationError, DatabaseError, InventoryError, OSError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return HilExit.USAGE_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
