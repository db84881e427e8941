"""The dashboard's pages over a store of 25 builds: a page of the matrix holds 20 builds and links the next,
a history finds the step and names its build, a gate's default reference is the build before."""

from __future__ import annotations

import html
import re
from dataclasses import replace

from hil.dashboard.app import url
from hil.db import gates
from hil.db.engine import connect
from hil.db.write import write_run
from hil.records.store import RunInfo
from hil.report.testing import example_result
from hil.verdict.result import Verdict

BUILDS = 25
STEP = 15  # from this build on, reads are 20% slower
# The failed build's diagnosis: lines of a real one (docs/failures.md), one with a character HTML escapes.
DIAGNOSIS = [
    "the raw device sda reads 2.0 MB/s (1M blocks, dd direct)",
    "requests averaged 32 KiB for 1024 KiB blocks (max_sectors_kb 32, controller 1024): max_sectors_kb caps the "
    "requests below what the controller takes; the loss is in the block layer",
    "operating point of host: no CPU offline, no cpufreq, no thermal zone <none>",
    "diagnosed in 42 s",
]


class _Args:
    def __init__(self, reports):
        self.hil_db, self.hil_reports = None, reports


def _store(reports) -> None:
    engine = connect(_Args(reports))
    for build in range(BUILDS):
        info = RunInfo(
            id=f"202511{build + 1:02d}T100000Z-{build:06d}", started=f"2025-11-{build + 1:02d}T10:00:00+00:00"
        )
        info.build = {"name": f"rc{build}", "version": ""}
        level = 40.0 * (0.8 if build >= STEP else 1.0) * (1 + (build % 3) / 500)
        verdict = Verdict.FAIL if build == BUILDS - 1 else Verdict.PASS
        facts = {"diagnosis": DIAGNOSIS} if verdict is Verdict.FAIL else {}
        values = [level * f for f in (0.99, 1.0, 1.01, 1.005, 0.995, 1.002, 0.998, 1.003)]  # 8 vs 8: p < 0.01 reachable
        result = example_result(verdict, values=values, facts=facts)
        write_run(engine, info, [replace(result, min_run_spread=0.02)])  # calibrated: one run a build can block
    gates.refresh(engine, {f"rc{build}" for build in range(BUILDS)})  # as `hil db import` does after its files
    engine.dispose()


def _rows(page: str) -> list[str]:
    return re.findall(r'<tr(?: class="hil-found")?><th>([^<]*)</th>', page)


def test_the_matrix_pages_the_history_steps_and_the_gate_takes_the_build_before(tmp_path, serve):
    _store(tmp_path)
    server = serve(tmp_path)
    _, first, _ = server.get("/")
    assert _rows(first)[1:] == [f"rc{b}" for b in range(BUILDS - 1, BUILDS - 21, -1)]  # newest first, 20
    assert 'href="/?page=1">older</a>' in first and "newer" not in first
    assert 'style="background:#c62828"><a href="/gate?candidate=rc24&amp;board=vboard-hs"' in first  # FAIL blocks
    # Each cell is the build's gate against the one before it: the 20% step blocks rc15, naming metric and change.
    assert re.search(
        r'candidate=rc15&amp;board=vboard-hs" [^>]*>BLOCKED<br/>\s*<small[^>]*>usb\.msc\.read\[bs=1M\] -20\.\d%', first
    )
    assert "could catch no drop" not in first
    _, found, _ = server.get(url("/", build="rc3"))  # a build found: its page, its row marked
    assert _rows(found)[1:] == [f"rc{b}" for b in range(4, -1, -1)] and '<tr class="hil-found"><th>rc3</th>' in found
    assert server.get(url("/", build="rc99"))[0] == 404
    _, second, _ = server.get("/?page=1")
    assert _rows(second)[1:] == [f"rc{b}" for b in range(4, -1, -1)] and "older" not in second

    _, history, _ = server.get(url("/history", board="vboard-hs", metric="usb.msc.read", key="usb.msc.read[bs=1M]"))
    steps = re.findall(r'<p class="hil-step-text">([^<]*)</p>', history)
    assert len(steps) == 1 and html.unescape(steps[0]).startswith(
        f"stepped at 2025-11-{STEP + 1} 10:00 (build rc{STEP})"
    )
    assert re.search(rf'<text class="hil-step"[^>]*>rc{STEP} -20\.\d%</text>', history)  # named on the plot
    whole = history[history.index('<div id="hil-all-steps">') :]
    assert f"In the whole history ({BUILDS} runs):" in whole and f"(build rc{STEP}): " in whole
    assert len(re.findall(r"<circle cx", history)) == BUILDS + 2  # every run, and the legend's two verdicts

    _, gate, _ = server.get(url("/gate", candidate="rc24", board="vboard-hs"))
    assert "Release gate: candidate rc24 (1 run)" in gate and "Reference: rc23 (1 run)" in gate
    assert "BLOCKED: vboard-hs usb.msc.read[bs=1M] (band)" in gate
    assert "<b>every row (1)</b> · " in gate and 'show=BLOCKED">BLOCKED (1)</a>' in gate  # rows filtered by gate
    _, only, _ = server.get(url("/gate", candidate="rc24", board="vboard-hs", show="PASS"))
    table = only[only.index('id="hil-gate-rows"') :]
    assert "usb.msc.read[bs=1M]" not in table and ">every row (1)</a>" in only  # no PASS row; the way back
    # The candidate's diagnosis under its row, each line escaped, on the gate page and on its run's page.
    shown = "<br/>".join(html.escape(line, quote=False) for line in DIAGNOSIS)
    assert f'<tr class="hil-diagnosis"><td></td><td colspan="8">diagnosis: {shown}</td></tr>' in gate
    _, run, _ = server.get(url(f"/run/20251125T100000Z-{BUILDS - 1:06d}"))
    assert f"<th>diagnosis</th><td>{shown}</td>" in run


def test_no_database_yet_is_a_usage_error_that_creates_nothing(tmp_path, capsys):
    from hil.dashboard.serve import main

    reports = tmp_path / "reports"
    assert main(["--hil-reports", str(reports)]) == 4
    assert f"SQLite file {reports / 'hil.db'}: no such file: no run is stored there" in capsys.readouterr().err
    assert not reports.exists()  # a dashboard only reads: no empty database left behind
