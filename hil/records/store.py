"""The results store: `reports/results.json`, one JSON document per run, valid at every instant.

Rewritten atomically after every result: after Ctrl-C, a crash or a killed Jenkins job it holds every result
finished so far. Plain module: no pytest.
"""

from __future__ import annotations

import math
import os
import platform
import secrets
import shlex
import socket
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict  # not typing's: pydantic reads this one on 3.11 (hil.records.schema)

import hil
from hil import signals
from hil.build.identity import BuildIdentity
from hil.errors import without_passwords
from hil.install import debian_versions
from hil.records.files import UnreadableJson, atomic_write_text, dumps, read_json
from hil.verdict.result import MetricResult, json_object

SCHEMA = 1
RESULTS_FILE = "results.json"

# Tool versions that change what a number means; recorded so a trend step can be explained.
_VERSIONED = ("pytest", "pytest-html", "pytest-xdist", "labgrid", "numpy", "scipy")
# CI identity only: never the whole environment (it holds credentials).
_CI_VARIABLES = ("BUILD_TAG", "BUILD_URL", "JOB_NAME", "BUILD_NUMBER", "GIT_COMMIT", "GIT_BRANCH", "NODE_NAME")


class Host(TypedDict, total=False):
    """The lab PC that ran the session (host_facts): never the whole environment, which holds credentials."""

    hostname: str
    platform: str
    python: str
    cpus: int | None
    load_average: list[float]  # 1, 5, 15 minutes when the run starts: was the lab PC busy?
    packages: dict[str, str]  # the Python tools that change what a number means (pytest, labgrid, numpy, scipy)
    debian_packages: dict[str, str]  # the measuring tools' and the emulator's versions (lrzsz, fio, QEMU)
    hil_commit: str  # the git commit hil ran from; absent for an installed wheel
    ci: dict[str, str]  # Jenkins' identity of the build (BUILD_URL, JOB_NAME, ...)


class InventoryIdentity(TypedDict):
    """The inventory that set the bands: its path as given and its SHA-256."""

    path: str
    sha256: str


class ResultsFileError(ValueError):
    """A results or history file cannot be read; the message starts with the file's path."""


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def hil_commit() -> str | None:
    """The git commit hil runs from, "+dirty" when its tracked files were changed; None when hil was installed
    from a wheel (its version says what it is) or git cannot tell."""
    root = Path(hil.__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    git = ["git", "-C", str(root)]
    try:
        head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True)
        changed = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if changed.stdout.strip() else "")


def host_facts() -> Host:
    """What ran the test session (not the boards: their facts travel with each result)."""
    versions: dict[str, str] = {}
    for dist in _VERSIONED:
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    facts = Host(
        hostname=socket.gethostname(),
        platform=platform.platform(),
        python=platform.python_version(),
        cpus=os.cpu_count(),
        load_average=list(os.getloadavg()),
        packages=versions,
        debian_packages=debian_versions(),
    )
    if commit := hil_commit():
        facts["hil_commit"] = commit
    if ci := {name: os.environ[name] for name in _CI_VARIABLES if os.environ.get(name)}:
        facts["ci"] = ci
    return facts


@dataclass
class RunInfo:
    id: str
    started: str  # ISO 8601, UTC
    finished: str | None = None  # None while running, or when the run never finished (crash)
    exit_status: int | None = None  # the run's exit status (hil.records.exitcodes): 0 passed, 1 gate failed, ...
    aborted_by: str | None = None  # the signal that ended the run (SIGTERM, SIGHUP), None otherwise
    hil_version: str = hil.__version__
    host: Host = field(default_factory=lambda: Host())
    command: str = ""
    # Tests per outcome, one per test, and "ran": every test that ran, ERROR included (hil.report.tally).
    # Kept current during the run; a test that errored before measuring has no result, only this count.
    tests: dict[str, int] = field(default_factory=dict)
    # What was measured: the build under test (hil.build: name, version, image hashes; None: whatever the
    # boards ran) and the inventory that set the bands (its path and SHA-256): a comparison of two runs
    # needs both (hil.report.compare).
    build: BuildIdentity | None = None
    inventory: InventoryIdentity | None = None

    def __post_init__(self) -> None:
        # `--hil-db postgresql://USER:PASSWORD@HOST/DB` as the docs write it: the command is stored in the
        # database, results.json, the spool and the export and shown on the dashboard; a file of an older hil too
        self.command = without_passwords(self.command)

    @classmethod
    def start(cls, command: str = "", **identity: Any) -> RunInfo:
        """A run starting now; `identity`: `build` and `inventory` as above."""
        now = datetime.now(UTC)
        return cls(
            # sortable and unique: UTC start time plus a random suffix (two CI nodes may start together)
            id=f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}",
            started=now.isoformat(timespec="seconds"),
            host=host_facts(),
            command=command or shlex.join(sys.argv),
            **identity,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunInfo:
        for name in ("host", "tests", "build", "inventory"):
            if data.get(name) is not None:
                json_object(data[name], repr(name))
        return cls(**json_object(data, "a run"))


@dataclass
class StoredRun:
    """One run as read back from results.json or the results database."""

    run: RunInfo
    results: list[MetricResult]
    path: Path | None = None


def document(run: RunInfo, results: list[MetricResult]) -> dict[str, Any]:
    """What results.json holds (and `hil db export` writes)."""
    return {"schema": SCHEMA, "run": run.to_dict(), "results": [result.to_dict() for result in results]}


class ResultStore:
    """Collects a run's results and keeps `path` current after each one."""

    def __init__(self, path: Path, run: RunInfo) -> None:
        self.path = path
        self.run = run
        self.results: list[MetricResult] = []

    def begin(self) -> None:
        """Write the empty run: a stale results.json from an earlier run must not pass for this one."""
        self.flush()

    def add(self, result: MetricResult) -> None:
        self.results.append(result)
        self.flush()

    def finish(self, exit_status: int | None = None) -> None:
        self.run.finished = utc_now()
        self.run.exit_status = exit_status
        self.run.aborted_by = signals.received
        self.flush()

    def flush(self) -> None:
        atomic_write_text(self.path, dumps(document(self.run, self.results), indent=1))


def load_run(path: Path) -> StoredRun:
    """Read a results.json (or an earlier version's history file); anything malformed is a ResultsFileError
    naming the file."""
    try:
        data = read_json(path)
    except UnreadableJson as exc:
        raise ResultsFileError(str(exc)) from exc
    if not isinstance(data, dict):
        raise ResultsFileError(f"{path}: expected a JSON object, found {type(data).__name__}")
    if data.get("schema") != SCHEMA:
        raise ResultsFileError(f"{path}: schema {data.get('schema')!r} is not the supported {SCHEMA}")
    for key, kind in (("run", dict), ("results", list)):
        if not isinstance(data.get(key), kind):
            raise ResultsFileError(f"{path}: '{key}' is missing or not a JSON {kind.__name__}")
    try:
        run = RunInfo.from_dict(data["run"])
    except (TypeError, ValueError) as exc:
        raise ResultsFileError(f"{path}: run: {exc}") from exc
    if not isinstance(run.started, str) or not isinstance(run.id, str):
        raise ResultsFileError(f"{path}: run: 'id' and 'started' must be strings")
    results = []
    for index, entry in enumerate(data["results"]):
        name = entry.get("metric", "?") if isinstance(entry, dict) else "?"
        try:
            result = MetricResult.from_dict(entry)
            _check_numbers(result)
        except Exception as exc:  # any shape the file may take: it is named, never a traceback
            raise ResultsFileError(f"{path}: result #{index} ({name}): {type(exc).__name__}: {exc}") from exc
        results.append(result)
    return StoredRun(run=run, results=results, path=path)


def _check_numbers(result: MetricResult) -> None:
    """What the trend and the baselines compute with must be finite numbers."""
    numbers = [sample.value for sample in result.samples]
    if result.stats is not None:
        stats = result.stats
        numbers += [stats.median, stats.mean, stats.ci_low, stats.ci_high]
    for value in numbers:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"{value!r} is not a finite number")
