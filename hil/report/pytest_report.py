"""pytest plugin of the report layer: results store and database, HTML extras and summary, JUnit, terminal.

Registered through the `pytest11` entry point `hil_report`. Data flow, the same with or without
pytest-xdist (without it, "worker" and "controller" are the one process):

    worker      collect.attach(item, result)         the measuring fixture stashes the result
                live.emit(item, line)                the live per-sample lines (hil.report.live)
                pytest_runtest_makereport            report.hil_results = [result dicts], HTML extras,
                                                     report.hil_measurement_error on an ERROR outcome,
                                                     report.hil_live = [lines] (under xdist)
                    |  xdist ships report.__dict__ to the controller (pytest_report_to_serializable)
                    v
    controller  pytest_runtest_logreport             live lines written, the test's outcome counted,
                                                     results.json rewritten with the new results
                pytest_report_teststatus, pytest_html_*, junitxml: read the same report
                pytest_sessionfinish                 run finished, baselines, trend, JUnit relabelling,
                                                     the HTML page's test count corrected

Only the controller writes files: one results.json, no write race between workers.
"""

from __future__ import annotations

import functools
import os
import shlex
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from markupsafe import Markup
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from hil import hookspecs, signals
from hil.build.identity import build_label
from hil.db import gates
from hil.db.baselines import DEFAULT_RUNS_KEPT, Baselines, BaselineUpdate
from hil.db.engine import DatabaseError, describe, engine_for, open_chosen, resolve_url
from hil.db.gates import CompareError, Comparison, Side, compare_sides, load_side
from hil.db.spool import Spool, spool_path
from hil.db.write import RunWriter
from hil.paths import shown
from hil.records.exitcodes import pipeline_exit_status
from hil.records.files import atomic_write_text, jsonable
from hil.records.store import RESULTS_FILE, ResultStore, RunInfo, StoredRun
from hil.report import junit, live
from hil.report.collect import take_unreported
from hil.report.compare import EXIT as GATE_EXIT
from hil.report.compare import gate_banner, gate_files
from hil.report.html import correct_run_count, result_block, summary_table
from hil.report.outcome import MeasurementErrorOutcome
from hil.report.summary import TERMINAL_MARKUP, fmt_num, fmt_p, fmt_pct, terminal_table, verdict_counts, verdict_text
from hil.report.tally import OutcomeTally, counts_text, phase_outcome
from hil.verdict.gate import Gate
from hil.verdict.result import MetricResult

# Report attributes. TestReport keeps unknown keyword attributes and xdist ships report.__dict__
# (pytest_report_to_serializable), so plain JSON values here reach the controller intact.
RESULTS_ATTR = "hil_results"  # list of MetricResult.to_dict(), the results attached during this phase
ERROR_ATTR = "hil_measurement_error"  # the reason, on a call report failed by MeasurementErrorOutcome

TREND_FILE = "trend.html"
SESSION_TREND_RUNS = 60  # the page a session ends with: a big database must not make every session end slow
_SESSION = pytest.StashKey["ReportSession"]()
# What the run measures, set by hil's plugin at configure: RunInfo's `build` and `inventory` (hil.records.store).
RUN_IDENTITY = pytest.StashKey[dict[str, Any]]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hil-report", "hil results, baselines and trend")
    group.addoption(
        "--hil-reports",
        metavar="DIR",
        default="reports",
        help=f"write {RESULTS_FILE}, {TREND_FILE} and the results database's default file here (default: reports)",
    )
    group.addoption(
        "--hil-db",
        metavar="URL",
        help="the results database every run is written to and every comparison reads (SQLAlchemy URL, e.g. "
        "postgresql://user@host/hil; default: $HIL_DB, else hil.db in the --hil-reports directory)",
    )
    group.addoption(
        "--baseline",
        action="store_true",
        help="compare each metric with its board pair's baseline in the results database (regression check)",
    )
    group.addoption(
        "--update-baseline",
        action="store_true",
        help="after the run, add this run's results to the baselines in the results database",
    )
    group.addoption(
        "--baseline-runs",
        type=int,
        metavar="N",
        default=DEFAULT_RUNS_KEPT,
        help=f"runs (boots) a baseline keeps per metric; --update-baseline adds this run (default {DEFAULT_RUNS_KEPT})",
    )
    group.addoption(
        "--no-confirm",
        action="store_true",
        help="with --baseline: call a regression on the first attempt, without re-measuring after a power cycle",
    )
    group.addoption(
        "--reference-build",
        metavar="NAME",
        help="the release gate: compare this run with the stored runs of build NAME (in the results database) "
        "and write gate.md, gate.html and gate.json; a regression blocks (exit 1), a metric without a verdict "
        "leaves the gate incomplete (exit 6)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """report.html and junit.xml beside results.json (--hil-reports) unless the command line or an ini file's
    addopts named them: a lab on a released hil gets every report without copying hil's pytest.ini. Runs
    before any plugin's configure (pytest-html and junitxml read these there); xdist copies them to workers."""
    if config.option.collectonly:
        return  # a collection writes no report
    reports = config.invocation_params.dir / config.getoption("hil_reports")
    # Checked here, before pytest-html's configure makes its directory (a traceback otherwise): exit 4
    _require_writable([reports])
    if config.pluginmanager.has_plugin("html") and not config.getoption("htmlpath", default=None):
        config.option.htmlpath = str(reports / "report.html")
        config.option.self_contained_html = True
    if not config.getoption("xmlpath", default=None):
        config.option.xmlpath = str(reports / "junit.xml")


def pytest_configure(config: pytest.Config) -> None:
    session = ReportSession(config)
    if not session.is_worker and not config.option.collectonly:
        _require_writable([session.reports_dir, *(f.parent for f in (session.html_path, session.junit_path) if f)])
        session.open_database()  # unreachable, or a reference build with no stored run: exit 4, no board touched
    config.stash[_SESSION] = session
    config.pluginmanager.register(session, "hil_report_session")


@pytest.fixture(scope="session")
def hil_baselines(pytestconfig: pytest.Config) -> Baselines | None:
    """The baselines to compare against, or None when --baseline was not given."""
    return pytestconfig.stash[_SESSION].baselines() if pytestconfig.getoption("baseline") else None


def _require_writable(directories: list[Path]) -> None:
    """Before any board is touched: every directory a report goes to can take a file."""
    for directory in directories:
        try:
            directory.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=directory, prefix=".hil-write-test-"):
                pass
        except OSError as exc:
            raise pytest.UsageError(
                f"reports cannot be written to {directory}: {exc.strerror or exc} "
                "(choose another place with --hil-reports, --html and --junitxml)"
            ) from None


class ReportSession:
    """Per-session state and the hooks that need it."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.is_worker = live.on_worker(config)
        here = config.invocation_params.dir
        # Reports sit beside --html/--junitxml, which pytest resolves from the invocation directory.
        self.reports_dir = here / config.getoption("hil_reports")
        self.db_url = resolve_url(config.getoption("hil_db"), self.reports_dir)
        self._baselines: Baselines | None = None
        xmlpath = config.getoption("xmlpath", default=None)
        # As junitxml resolves --junitxml: variables, ~, then relative to the current directory.
        self.junit_path = Path(os.path.expandvars(xmlpath)).expanduser().resolve() if xmlpath else None
        htmlpath = config.getoption("htmlpath", default=None)
        self.html_path = Path(htmlpath).resolve() if htmlpath else None
        self.store: ResultStore | None = None  # controller only
        self.engine: Engine | None = None  # the results database (controller only)
        self.db: RunWriter | None = None  # this run's writer into it
        self.measurement_errors = 0
        self.tally = OutcomeTally()  # one outcome per test: the counts every report shows, and the exit status
        self.collection_aborted = False
        self.environment_table: dict[str, Any] | None = None  # pytest-html's Environment (pytest-metadata)
        self.lab: dict[str, str] = {}  # board -> where it ran (the `lab` fact)
        self.baseline_updates: list[BaselineUpdate] = []
        self.written: list[tuple[str, Path]] = []
        self.problems: list[str] = []
        self.warnings: list[str] = []  # printed, but they never change the exit status
        self.unsaved = False  # a write of results failed: the run's exit status says so
        self.reference: Side | None = None  # --reference-build: its stored runs
        self.gate: Comparison | None = None  # this run against them, once the tests are over
        self.gate_refused = False  # the reference's runs are not comparable with this one (exit 4)

    def open_database(self) -> None:
        """The results database, and --reference-build's stored runs in it."""
        try:
            self.engine = open_chosen(self.config.getoption("hil_db"), self.reports_dir)
        except DatabaseError as exc:
            raise pytest.UsageError(f"results database: {exc}") from None
        if (name := self.config.getoption("reference_build")) is not None:
            try:
                self.reference = load_side(name, self.engine)
            except CompareError as exc:
                raise pytest.UsageError(f"--reference-build: {exc}") from None

    def baselines(self) -> Baselines:
        if self._baselines is None:
            if self.engine is None:  # an xdist worker: the controller has checked the schema
                self.engine = engine_for(self.db_url)
            self._baselines = Baselines(self.engine, runs_kept=max(1, self.config.getoption("baseline_runs")))
        return self._baselines

    def pytest_unconfigure(self) -> None:
        if self.engine is not None:
            self.engine.dispose()

    def _compare_with_reference(self) -> None:
        """This run against the reference build's runs; the gate files beside the other reports."""
        if self.reference is None or self.store is None:
            return
        this = StoredRun(self.store.run, list(self.store.results), self.store.path)
        try:
            self.gate = compare_sides(self.reference, Side("this run", [this]), live=True)
        except CompareError as exc:
            self.problems.append(f"release gate not decided: {exc}")
            self.gate_refused = True
            return
        for kind, text in gate_files(self.gate).items():
            path = self.reports_dir / f"gate.{kind}"
            self._saved(functools.partial(atomic_write_text, path, text), path.name)
            self.written.append(("gate", path))

    def _saved(self, write: Callable[[], None], what: str) -> None:
        """Write results to disk; a full or vanished disk is a problem reported at the end, never an abort:
        the file keeps the results of its last successful write (writes are atomic)."""
        try:
            write()
        except OSError as exc:
            problem = f"{what}: {exc.strerror or exc}; {shown(self.reports_dir)} keeps the results written before"
            if problem not in self.problems:
                self.problems.append(problem)
            self.unsaved = True

    # --- run lifecycle (controller) ---------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)  # before the terminal header, which names the run
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.is_worker or self.config.option.collectonly:
            return
        command = shlex.join(["pytest", *self.config.invocation_params.args])
        run = RunInfo.start(command, **self.config.stash.get(RUN_IDENTITY, {}))
        self.store = ResultStore(self.reports_dir / RESULTS_FILE, run)
        self._saved(self.store.begin, "results.json not started")
        if self.engine is not None:
            self.db = RunWriter(self.engine, run, Spool(spool_path(self.reports_dir, run.id)))
            self.db.begin()
        self._describe_environment(run)

    def _describe_environment(self, run: RunInfo) -> None:
        """What the HTML report's Environment table says of the run: hil's commit, the inventory, the build
        (pytest-html reads it at session start, after this hook)."""
        try:
            from pytest_metadata.plugin import metadata_key
        except ImportError:  # pytest-html without pytest-metadata: no Environment table to fill
            return
        table = self.config.stash.get(metadata_key, None)
        if table is None:
            return
        self.environment_table = table  # pytest-html renders this very dict at the end: the lab joins it later
        table["hil"] = f"{run.hil_version} ({run.host.get('hil_commit', 'installed package')})"
        if run.inventory:
            table["inventory"] = f"{run.inventory['path']} (SHA-256 {run.inventory['sha256'][:12]})"
        if run.build:
            images = ", ".join(f"{kind} {image['sha256'][:12]}" for kind, image in run.build["images"].items())
            table["build"] = f"{build_label(run.build)} ({images})"

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        return [] if self.store is None else [f"hil run: {self.store.run.id} -> {shown(self.store.path)}"]

    # --- per test (worker, or the only process) ---------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report = yield
        if signals.received is not None:  # an abort whose KeyboardInterrupt a library lost: no further test
            item.session.shouldstop = f"{signals.received} received"
        if self.is_worker and (lines := live.take(item)):
            setattr(report, live.REPORT_ATTR, lines)
        if fresh := take_unreported(item):
            setattr(report, RESULTS_ATTR, [jsonable(result.to_dict()) for result in fresh])
            if self.html_path is not None:
                report.extras = [*getattr(report, "extras", []), *map(_html_extra, fresh)]
        error = call.excinfo if call.when == "call" and report.failed else None
        if error is not None and error.errisinstance(MeasurementErrorOutcome):
            reason = str(error.value)
            setattr(report, ERROR_ATTR, reason)
            # Travels with the teardown report's user_properties into the JUnit testcase, where
            # junit.mark_measurement_errors finds it.
            item.user_properties.append((junit.MEASUREMENT_ERROR_PROPERTY, reason))
        return report

    # --- per report (controller, or the only process) ---------------------------------------

    @pytest.hookimpl(tryfirst=True)  # a worker's live lines go before the terminal shows the test's outcome
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.store is None:
            return
        live.relay(self.config, report)
        error = _is_measurement_error(report)
        outcome = phase_outcome(report.when, report.outcome, measurement_error=error, xfail=hasattr(report, "wasxfail"))
        self.tally.add(report.nodeid, outcome)
        self.store.run.tests = self.tally.counts()  # on disk with the next write
        for data in getattr(report, RESULTS_ATTR, None) or ():
            result = MetricResult.from_dict(data)
            self._saved(functools.partial(self.store.add, result), "results.json not updated")  # on disk now
            if self.db is not None:
                self.db.add(result)  # in the database now, or spooled
            self._tell_sinks(result)
            self._note_lab(result)
        self.measurement_errors += error

    def _note_lab(self, result: MetricResult) -> None:
        """The Environment table's `lab` row: where each pair's boards were (an environment file on this PC, or
        places and their exporters on a coordinator), as the pair's results say; known once a pair has run."""
        where = result.facts.lab
        if not where or self.environment_table is None or self.lab.get(result.board) == where:
            return
        self.lab[result.board] = where
        self.environment_table["lab"] = "; ".join(f"{board}: {text}" for board, text in sorted(self.lab.items()))

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # pytest stops on collection errors by raising its own Interrupted: status 2, yet nobody interrupted.
        self.collection_aborted = excinfo.errisinstance(pytest.Session.Interrupted)

    def _tell_sinks(self, result: MetricResult) -> None:
        """pytest_hil_result implementations (a dashboard, a database): one that raises is named, never fatal."""
        try:
            self.config.hook.pytest_hil_result(result=result, config=self.config)
        except Exception as exc:
            problem = f"a pytest_hil_result sink failed on {result.board} {result.metric}: {type(exc).__name__}: {exc}"
            if problem not in self.problems:
                self.problems.append(problem)

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> Any:
        # The terminal's own categories: "error" puts the test under ERRORS ("ERROR at call of ...")
        # and into the "N errors" count, as pytest does for a broken fixture.
        if _is_measurement_error(report):
            return "error", "E", ("ERROR", {"red": True})
        return None

    # --- pytest-html (optional hooks: pytest-html may be absent) -----------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        cells.insert(2, '<th class="sortable" data-column-type="verdict">Verdict</th>')
        cells.insert(3, "<th>Median</th>")  # not sortable: pytest-html's JS sorts these as text
        if self.config.getoption("baseline"):
            cells.insert(4, "<th>vs baseline (p)</th>")

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report: pytest.TestReport, cells: list[str]) -> None:
        results = [MetricResult.from_dict(data) for data in getattr(report, RESULTS_ATTR, None) or ()]
        verdicts = " / ".join(verdict_text(result) for result in results)
        medians = " / ".join(f"{fmt_num(r.stats.median)} {r.unit}" for r in results if r.stats is not None)
        if _is_measurement_error(report):
            cells[0] = '<td class="col-result">Error</td>'  # row colour, filter and sort follow this cell
            _move_html_count_to_errors(self.config)
        cells.insert(2, Markup('<td class="col-verdict">{}</td>').format(verdicts))
        cells.insert(3, Markup('<td class="col-median">{}</td>').format(medians))
        if self.config.getoption("baseline"):
            changes = " / ".join(
                f"{fmt_pct(r.baseline.change, signed=True)} (p={fmt_p(r.baseline.p_value)})"
                for r in results
                if r.baseline is not None
            )
            cells.insert(4, Markup('<td class="col-baseline">{}</td>').format(changes))

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_report_title(self, report: Any) -> None:
        """The page says what was measured: the build under test and the inventory (not pytest-html's file name)."""
        identity = self.config.stash.get(RUN_IDENTITY, {})
        build, inventory = identity.get("build"), identity.get("inventory")
        what = f"build {build_label(build)}" if build else "the boards as they are"
        where = f" on {Path(inventory['path']).name} ({inventory['sha256'][:12]})" if inventory else ""
        report.title = f"hil: {what}{where}"

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_summary(
        self, prefix: list[str], summary: list[str], postfix: list[str], session: pytest.Session
    ) -> None:
        if self.gate is not None:
            prefix.append(gate_banner(self.gate))
        if self.store is not None and (self.store.results or self.tally.outcomes):
            prefix.append(summary_table(self.store.results, counts_text(self.tally.counts())))

    # --- end of run (controller) ------------------------------------------------------------

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Any:
        # A wrapper: junitxml and pytest-html write their files in the plain implementations, which
        # all run inside this yield; trylast keeps it inside the terminal reporter's wrapper, so the
        # terminal summary (printed after that one's yield) sees everything written here.
        if not self.is_worker:
            self._compare_with_reference()  # before the yield: the HTML report opens with the gate
        outcome = yield
        if self.is_worker:
            return outcome
        # A test's worst outcome: "failed" (a gate) outranks "error" (a measurement, setup or teardown error).
        counts = self.tally.counts()
        session.exitstatus = pipeline_exit_status(
            session.exitstatus,
            gate_failures=counts.get("failed", 0),
            errors=counts.get("error", 0),
            collection_aborted=self.collection_aborted,
            interrupted=signals.received is not None,
        )
        if self.gate is not None and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = int(GATE_EXIT[self.gate.gate])  # every test passed, the build may still not
        if self.gate_refused and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        if self.store is None:
            return outcome
        store = self.store
        try:
            if self.config.getoption("update_baseline"):
                self._update_baselines(session)  # may turn the exit status into a failure
        finally:
            # then results.json is final
            self._saved(lambda: store.finish(int(session.exitstatus)), "results.json not finished")
            self._finish_database()
        if self.unsaved and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR  # measured, but not all of it is on disk
        if store.results or self.measurement_errors:
            self.written.append(("results", store.path))
        if store.results:
            self._write_trend()
        if self.measurement_errors and self.junit_path is not None and self.junit_path.exists():
            junit.mark_measurement_errors(self.junit_path)
        if self.html_path is not None and self.html_path.exists():
            self._saved(self._correct_html_run_count, "report.html: test count not corrected")
        return outcome

    def _finish_database(self) -> None:
        if self.db is None:
            return
        self.db.finish()
        build = (self.db.info.build or {}).get("name")
        if self.db.failure is not None:
            self.problems.append(
                f"results database: {self.db.failure}; this run is spooled to {shown(self.db.spool.path)}: "
                f"deliver it with `hil db push --hil-reports {shlex.quote(shown(self.reports_dir))}` and this run's "
                "--hil-db (or HIL_DB) once that database is back"
            )
        elif build:
            try:  # the dashboard's cells of this build, and of the build whose reference it is
                gates.refresh(self.db.engine, {build}, {result.board for result in self.db.results})
            except (SQLAlchemyError, DatabaseError) as exc:
                self.problems.append(f"stored gates of {build} not decided: {type(exc).__name__}: {exc}")

    def _correct_html_run_count(self) -> None:
        """pytest-html's "N tests took" leaves out the tests that ended in ERROR: count every test that ran."""
        assert self.html_path is not None
        page = self.html_path.read_text(encoding="utf-8")
        corrected = correct_run_count(page, self.tally.counts()["ran"])
        if corrected is None:
            self.warnings.append(f"{shown(self.html_path)}: no test count found to correct (pytest-html changed?)")
        elif corrected != page:
            atomic_write_text(self.html_path, corrected)

    def _write_trend(self) -> None:
        from hil.report.trend import write_trend  # matplotlib: import only when there is a trend to draw

        target = self.reports_dir / TREND_FILE
        if self.engine is None or self.db is None or self.db.failure is not None:
            return  # the database did not take this run: no trend from it
        try:
            write_trend(self.engine, target, newest=SESSION_TREND_RUNS)
        except (SQLAlchemyError, OSError) as exc:
            self.problems.append(f"trend not written: {type(exc).__name__}: {exc}")
        else:
            self.written.append(("trend", target))

    def _update_baselines(self, session: pytest.Session) -> None:
        assert self.store is not None and self.db is not None
        try:
            if self.db.failure is not None:
                raise DatabaseError("the results database did not take this run")
            self.baseline_updates = self.baselines().update_all(self.store.results, self.store.run.id)
        except (DatabaseError, SQLAlchemyError) as exc:
            self.problems.append(f"baselines not updated: {type(exc).__name__}: {exc}")
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED  # --update-baseline was asked and failed

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        notes = self.problems or self.warnings
        if self.store is None or not (self.store.results or notes or self.baseline_updates):
            return
        tr = terminalreporter
        if self.store.results:
            tr.write_sep("=", f"hil metrics ({len(self.store.results)})")
            for line, verdict in terminal_table(self.store.results):
                tr.write_line(line, **(TERMINAL_MARKUP[verdict] if verdict is not None else {"bold": True}))
            metrics = f"{len(self.store.results)} metrics: {verdict_counts(self.store.results)}"
            tr.write_line(f"{counts_text(self.tally.counts())}; {metrics}")
        tr.write_sep("-", "hil reports")
        if self.gate is not None:
            colour = {"green": True} if self.gate.gate is Gate.PASS else {"red": True}
            tr.write_line(
                f"release gate against {self.gate.reference['label']}: {self.gate.summary}", bold=True, **colour
            )
        for update in self.baseline_updates:
            skipped = f"; not written (ERROR or < 2 samples): {', '.join(update.skipped)}" if update.skipped else ""
            fewest, most = update.runs_held
            held = ""
            if update.written:
                held = f", holding {fewest} run(s)" if fewest == most else f", holding {fewest}-{most} runs"
                if fewest < 2:
                    held += ": the run-to-run spread stays unknown until it holds 2 or more"
            tr.write_line(
                f"baseline {update.status}: {update.board} "
                f"({len(update.written)} metric(s) from this run{held}{skipped})",
                yellow=update.status != "unchanged",
            )
        for label, path in self.written:
            tr.write_line(f"{label}: {shown(path)}")
        if self.db is not None and self.db.failure is None and self.store.results:
            tr.write_line(f"database: {describe(self.db.engine.url)}")
        for warning in self.warnings:
            tr.write_line(warning, yellow=True)
        for problem in self.problems:
            tr.write_line(problem, red=True, bold=True)


def _is_measurement_error(report: pytest.TestReport) -> bool:
    return report.when == "call" and report.failed and getattr(report, ERROR_ATTR, None) is not None


def _html_extra(result: MetricResult) -> dict[str, Any]:
    from pytest_html import extras  # only with --html: pytest-html is then loaded anyway

    from hil.report.plots import data_uri, result_plot

    try:
        png = result_plot(result)
    except Exception as exc:  # a plot must never cost the run its report: say so in its place
        block = result_block(result, None, plot_error=f"{type(exc).__name__}: {exc}")
    else:
        block = result_block(result, data_uri(png) if png else None)
    # One html extra with the image inline rather than an extras.png: pytest-html 4 shows images in a
    # 320x240 thumbnail viewer, too small to read a band edge, and inline keeps the table beside it.
    return extras.html(block)


def _move_html_count_to_errors(config: pytest.Config) -> None:
    # pytest-html 4.2 counts a report as "Error" only by its phase (setup/teardown) and has no hook to
    # re-classify one: its outcome counters (the filter checkboxes) are moved by hand. The row hook
    # runs before pytest-html counts this report as failed, so -1/+1 here nets out right.
    from pytest_html.basereport import BaseReport

    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, BaseReport):
            outcomes = plugin._report.outcomes
            outcomes["failed"]["value"] -= 1
            outcomes["error"]["value"] += 1
