"""`hil calibrate --from-runs`: bands proposed from two real runs of the virtual lab's vlab-msc pair, stored by the
results database's writer in a lab repository made by `hil init` (tests/data/results/calibrate-*.json, their
README.source says how they were taken); runs of another build or pair are refused naming the run."""

from __future__ import annotations

import math
import re
import statistics
import subprocess
from pathlib import Path

import pytest

from hil.calibrate.bands import Figures, propose, significant
from hil.calibrate.cli import main as calibrate
from hil.db.engine import open_db
from hil.db.write import write_run
from hil.inventory.loader import load_inventory
from hil.labrepo import make
from hil.records.store import load_run
from hil.verdict.spec import Band, Direction

DATA = Path(__file__).resolve().parents[1] / "data" / "results"
RUNS = [load_run(DATA / name) for name in ("calibrate-vlab-msc-1.json", "calibrate-vlab-msc-2.json")]
IDS = [stored.run.id for stored in RUNS]
OTHER_BUILD = load_run(DATA / "vlab-build-msc.json")  # vlab-hs, build vlab-ref 2026.11


@pytest.fixture
def lab(tmp_path, monkeypatch) -> Path:
    """A lab repository whose results database holds the runs, written as a session writes them."""
    make(tmp_path / "lab")
    (tmp_path / "lab" / "reports").mkdir()
    engine = open_db(f"sqlite:///{tmp_path / 'lab' / 'reports' / 'hil.db'}")
    for stored in [*RUNS, OTHER_BUILD]:
        write_run(engine, stored.run, stored.results)
    engine.dispose()
    monkeypatch.chdir(tmp_path / "lab")
    return tmp_path / "lab"


def _medians() -> list[float]:
    return [r.stats.median for stored in RUNS for r in stored.results if r.metric == "usb.msc.read"]


def test_the_proposal_is_a_diff_of_the_bands_lines_and_write_makes_it(lab, capsys):
    original = (lab / "boards.yaml").read_text()
    assert calibrate(["--from-runs", *IDS]) == 0
    out = capsys.readouterr().out
    medians = _medians()
    assert len(medians) == 2 and f"| `usb.msc.read[bs=1M]` | {medians[0]:.4g}"[:30] in out
    # runs that did not PASS are named (these two MARGINAL against the seed's band; an UNSTABLE one the same way)
    assert f"WARNING vlab-msc run {IDS[0]}: usb.msc.read[bs=1M] was MARGINAL: " in out
    diff = (lab / "reports" / "calibrate-vlab-msc.diff").read_text()
    assert diff.startswith("--- a/boards.yaml\n+++ b/boards.yaml\n")
    changed = [line for line in diff.splitlines()[2:] if line[:1] in "+-"]
    assert all(re.match(r"[+-]( {8}(min|max|run_spread|source): | {10}\S)", line) for line in changed), changed
    assert (lab / "boards.yaml").read_text() == original  # a proposal, nothing edited

    assert calibrate(["--from-runs", *IDS, "--write"]) == 0
    edited = (lab / "boards.yaml").read_text()
    entry = load_inventory(lab / "boards.yaml").boards["vlab-msc"].config.metrics["usb.msc.read"]
    spread = statistics.stdev(medians) / statistics.fmean(medians)
    assert (entry.min, entry.max) == (significant(0.4 * min(medians), up=False), significant(3 * max(medians), up=True))
    assert entry.run_spread == max(math.ceil(spread * 100), 1) / 100
    for word in [*IDS, RUNS[0].run.host["hostname"], RUNS[0].run.started[:10], "0.4x the lowest run median"]:
        assert word in " ".join(entry.source.split()), word
    assert [line for line in original.splitlines() if line.lstrip().startswith("#")] == [
        line for line in edited.splitlines() if line.lstrip().startswith("#")
    ]  # every comment kept
    assert edited.split("usb.msc.write:")[1] == original.split("usb.msc.write:")[1]  # not measured: as it was


def test_a_figure_outside_the_band_by_more_than_the_spread_is_a_warning_naming_the_metric(lab, capsys):
    boards = lab / "boards.yaml"
    floor = round(2 * max(_medians()))  # the band asks twice what the board measured
    boards.write_text(boards.read_text().replace("        min: 4\n", f"        min: {floor}\n", 1))
    assert calibrate(["--from-runs", *IDS]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"WARNING vlab-msc usb\.msc\.read\[bs=1M\]: .* below the current band's min {floor} ", out), out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--from-runs", IDS[0], OTHER_BUILD.run.id], f"run {OTHER_BUILD.run.id} measured build vlab-ref 2026.11"),
        (["--board", "vlab-hs", "--from-runs", *IDS], f"run {IDS[0]} measured vlab-msc, not pair vlab-hs"),
        (["--from-runs", IDS[0], "20261128T000000Z-0"], "run 20261128T000000Z-0: not in the results database"),
    ],
    ids=["another build", "another pair", "no such run"],
)
def test_runs_that_do_not_belong_together_are_refused_naming_the_run(lab, capsys, args, said):
    assert calibrate(args) == 4
    assert said in capsys.readouterr().err
    assert not (lab / "reports" / "calibrate-vlab-msc.diff").exists()


def _usbdisks_runs(tmp_path: Path) -> tuple[str, list[str]]:
    """A database of two stored runs of vlab-usbdisks (the disks one by one and their sum): its URL, the runs' ids."""
    runs = [load_run(DATA / f"calibrate-vlab-usbdisks-{n}.json") for n in (1, 2)]
    url = f"sqlite:///{tmp_path / 'hil.db'}"
    engine = open_db(url)
    for stored in runs:
        write_run(engine, stored.run, stored.results)
    engine.dispose()
    return url, [stored.run.id for stored in runs]


def test_an_informative_rate_on_an_emulated_link_is_proposed_a_max_too(tmp_path, capsys):
    """The host's sum of several disks is INFO on vlab-usbdisks; banding it there needs a max (no physical ceiling
    on an emulated link), else the proposal does not load as an inventory and nothing is proposed."""
    url, ids = _usbdisks_runs(tmp_path)
    boards = Path(__file__).resolve().parents[2] / "boards.yaml"
    diff = tmp_path / "proposal.diff"
    assert calibrate(["--from-runs", *ids, "--boards", str(boards), "--hil-db", url, "--diff", str(diff)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| `usb.disk.together.total.read[bs=4K]`"))
    low, high = row.split(" | ")[6].split(" .. ")
    assert float(low) > 0 and float(high) > float(low), row
    assert "total.read[bs=4K]: samples spread" not in out  # INFO gates no CV: no warning of one
    assert "+      usb.disk.together.total.read:" not in diff.read_text()  # an entry edited, not added twice


def test_a_share_whose_max_would_reach_100_percent_gets_no_band_and_a_lower_one_keeps_its_max():
    """TCP over ECM keeps the virtual clock's one vCPU 91.8% busy (vlab-hs, hil calibrate 2026-11-29): 3x that
    bounds nothing, and a proposal of it made the whole proposal fail to load ("nothing written")."""
    busy = Figures("usb.net.tcp.tx.cpu_busiest", {"function": "ecm"}, "%", Direction.LOWER, [91.8, 91.8], [0.01])
    assert propose(busy, None, None) is None
    light = Figures("usb.msc.read.cpu_busiest", {"bs": "1M"}, "%", Direction.LOWER, [5.8, 3.2], [0.5])
    assert propose(light, None, None).band == Band(None, 17.4)


def test_a_run_given_twice_is_refused_and_an_absolute_inventory_path_makes_a_diff_git_applies(lab, capsys):
    with pytest.raises(SystemExit) as exited:
        calibrate(["--from-runs", IDS[0], IDS[0]])
    assert exited.value.code == 2 and f"--from-runs names {IDS[0]} twice" in capsys.readouterr().err
    for factors in (["--min-factor", "nan"], ["--max-factor", "inf"], ["--min-factor", "2"]):
        with pytest.raises(SystemExit) as exited:
            calibrate(["--from-runs", *IDS, *factors])
        assert exited.value.code == 2 and "0 < min <= 1 <= max" in capsys.readouterr().err
    assert calibrate(["--from-runs", *IDS, "--boards", str(lab / "boards.yaml")]) == 0
    diff = (lab / "reports" / "calibrate-vlab-msc.diff").read_text()
    assert diff.startswith("--- a/boards.yaml\n+++ b/boards.yaml\n"), diff[:200]
    subprocess.run(["git", "init", "-q"], cwd=lab, check=True)
    applied = subprocess.run(
        ["git", "apply", "--check", "reports/calibrate-vlab-msc.diff"], cwd=lab, text=True, capture_output=True
    )
    assert applied.returncode == 0, applied.stderr


def test_a_refused_metric_is_named_and_the_others_are_still_written(tmp_path, capsys):
    """An override of usb.disk.together.read above the max the runs propose for its metric: that metric's edit does
    not load (min above max) and is named; the disks' sum, measured in the same runs, still gets its bands."""
    url, ids = _usbdisks_runs(tmp_path)
    boards = tmp_path / "boards.yaml"
    repo = (Path(__file__).resolve().parents[2] / "boards.yaml").read_text()
    repo = repo.replace("env: hil/vlab/env.yaml", "env: hil:vlab/env.yaml")
    boards.write_text(repo.replace("          bs=64K: {min: 34}\n", "          bs=64K: {min: 1200}\n", 1))
    assert calibrate(["--from-runs", *ids, "--boards", str(boards), "--hil-db", url, "--write"]) == 0
    out = capsys.readouterr().out
    assert (
        f"not written: vlab-usbdisks usb.disk.together.read: refused by the inventory's rules ({boards}: line " in out
    )
    assert "band min 1200.0 is above max 1100.0" in out
    pair = load_inventory(boards).boards["vlab-usbdisks"].config.metrics
    assert pair["usb.disk.together.read"].max == 1500  # as it was
    assert (
        not pair["usb.disk.together.total.read"].informative
        and "hil calibrate" in pair["usb.disk.together.total.read"].source
    )


def test_a_diff_made_from_another_folder_names_the_inventory_in_its_lab_and_says_where_to_apply_it(lab, capsys):
    subprocess.run(["git", "init", "-q"], cwd=lab, check=True)
    elsewhere = lab.parent / "elsewhere"
    elsewhere.mkdir()
    url = f"sqlite:///{lab / 'reports' / 'hil.db'}"
    for boards in ("../lab/boards.yaml", str(lab / "boards.yaml")):
        diff = elsewhere / "proposal.diff"
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(elsewhere)
            assert calibrate(["--from-runs", *IDS, "--boards", boards, "--hil-db", url, "--diff", "proposal.diff"]) == 0
        assert diff.read_text().startswith("--- a/boards.yaml\n+++ b/boards.yaml\n")
        assert f"(in {lab}: git apply {diff}; or run again with --write)" in capsys.readouterr().out
        applied = subprocess.run(["git", "apply", "--check", str(diff)], cwd=lab, text=True, capture_output=True)
        assert applied.returncode == 0, applied.stderr
