"""python -m hil.pipeline: the branches a pipeline runs and the line it puts in the build summary."""

import json
from pathlib import Path

from hil import pipeline
from hil.report.testing import example_result
from hil.verdict.result import Verdict

REPO = Path(__file__).resolve().parents[2]


def test_branches_of_the_repository_inventory(capsys):
    assert pipeline.main(["branches", "--boards", str(REPO / "boards.yaml")]) == 0
    # virtual pairs boot their own QEMU: a branch each
    pairs = [
        "vlab-bar",
        "vlab-hs",
        "vlab-modem",
        "vlab-nvme",
        "vlab-ss",
        "vlab-usbdisk-bot",
        "vlab-usbdisk-uas",
        "vlab-usbnet",
    ]
    assert capsys.readouterr().out == "".join(f"{name}\n" for name in pairs)


def test_a_full_matrix_pair_has_a_branch_in_full_runs_or_when_named(capsys):
    assert pipeline.main(["branches", "--boards", str(REPO / "boards.yaml"), "--matrix", "full"]) == 0
    assert "vlab-android-hs\n" in capsys.readouterr().out
    assert pipeline.branches(str(REPO / "boards.yaml"), "vlab-android-hs") == [["vlab-android-hs"]]
    quick = [name for group in pipeline.branches(str(REPO / "boards.yaml"), "vlab-*") for name in group]
    assert "vlab-hs" in quick and "vlab-android-hs" not in quick  # a pattern does not name it


def test_branches_select_by_patterns_with_spaces_or_commas(capsys):
    assert pipeline.main(["branches", "--boards", str(REPO / "boards.yaml"), "--select", " vlab-s*, nothing-else"]) == 4
    assert "no pair matches nothing-else" in capsys.readouterr().err
    assert pipeline.branches(str(REPO / "boards.yaml"), "vlab-s*,vlab-hs") == [["vlab-hs"], ["vlab-ss"]]


def test_branches_bad_inventory_exits_4(tmp_path, capsys):
    (tmp_path / "boards.yaml").write_text("pairs: [\n")
    assert pipeline.main(["branches", "--boards", str(tmp_path / "boards.yaml")]) == 4
    assert capsys.readouterr().err.startswith("invalid board inventory: ")


def test_summary_names_what_did_not_pass(tmp_path):
    results = [
        example_result(Verdict.PASS, params={"bs": "64K"}),
        example_result(Verdict.FAIL, params={"bs": "1M"}),
        example_result(Verdict.ERROR, metric="usb.msc.write", params={"bs": "1M"}),
    ]
    (tmp_path / "results.json").write_text(json.dumps({"results": [r.to_dict() for r in results]}))
    assert pipeline.summary(tmp_path, 1, "vlab-hs") == (
        "vlab-hs: gate failed; ERROR usb.msc.write[bs=1M]; FAIL usb.msc.read[bs=1M]; 3 metrics: 1 PASS, 1 FAIL, 1 ERROR"
    )


def test_summary_without_results_says_so(tmp_path):
    assert pipeline.summary(tmp_path / "vlab-ss", 2).startswith("vlab-ss: interrupted; no results (FileNotFoundError")
    assert pipeline.summary(tmp_path, 6, "x").startswith("x: measurement error or lab fault; ")


def test_summary_counts_every_test_that_ran_errors_included(tmp_path):
    results = [example_result(Verdict.PASS), example_result(Verdict.FAIL, params={"bs": "4K"})]
    run = {"tests": {"ran": 3, "passed": 1, "failed": 1, "error": 1}}  # the ERROR left no metric result
    (tmp_path / "results.json").write_text(json.dumps({"run": run, "results": [r.to_dict() for r in results]}))
    assert pipeline.summary(tmp_path, 1, "vlab-hs").endswith(
        "; 2 metrics: 1 PASS, 1 FAIL; 3 tests ran: 1 passed, 1 failed, 1 error"
    )


def test_summary_names_a_regression_behind_another_verdict(tmp_path):
    unstable = example_result(Verdict.UNSTABLE, baseline_median=100.0, regression=True)
    (tmp_path / "results.json").write_text(json.dumps({"results": [unstable.to_dict()]}))
    assert "UNSTABLE usb.msc.read[bs=1M] (and regressed -58.7%)" in pipeline.summary(tmp_path, 1, "vlab-hs")


def test_branches_of_pairs_on_places(tmp_path, capsys):
    # Pairs asking by tags get a branch each: the coordinator gives each a place of its own or makes it wait,
    # so they run side by side on as many places as the lab has. Pairs naming one place share a branch.
    env = REPO / "hil" / "vlab" / "remote-env.yaml"
    places = {"tag-a": "{tags: {kind: vlab}}", "tag-b": "{tags: {kind: vlab}}", "rk-a": "{tags: {soc: rk3588}}"}
    places |= {"one-a": "vboard-1", "one-b": "vboard-1", "two": "vboard-2"}
    text = "pairs:\n" + "".join(
        f"  {name}:\n    env: {env}\n    roles:\n      host: {{target: vboard, place: {place}}}\n"
        f"      device: {{target: vboard, place: {place}}}\n    link: {{type: usb, speed: high}}\n"
        for name, place in places.items()
    )
    (tmp_path / "boards.yaml").write_text(text)
    assert pipeline.main(["branches", "--boards", str(tmp_path / "boards.yaml")]) == 0
    assert capsys.readouterr().out == "one-a one-b\nrk-a\ntag-a\ntag-b\ntwo\n"
    assert pipeline.main(["branches", "--boards", str(REPO / "hil" / "vlab" / "remote-boards.yaml")]) == 0
    assert capsys.readouterr().out == "remote-hs\nremote-ss\n"


def test_two_builds_whose_pairs_share_a_board_take_the_same_lock(tmp_path, capsys):
    """examples/boards-rk3399-gadget.yaml: rk3399-evb-usb3 and rk3399-evb-usb2 are one board's two USB ports. Two
    builds that each select one of them locked `hil-pair-<pair>` before, two names: both drove the board at once."""
    example = str(REPO / "examples" / "boards-rk3399-gadget.yaml")
    taken = []
    for pair in ("rk3399-evb-usb3", "rk3399-evb-usb2"):
        assert pipeline.main(["branches", "--boards", example, "--select", pair, "--locks", str(tmp_path / pair)]) == 0
        assert capsys.readouterr().out == f"{pair}\n"
        taken.append((tmp_path / pair).read_text())
    assert taken[0] == taken[1] == "hil-board-lab-pc hil-board-rk3399-evb\n"
    # A virtual pair shares no board (each run boots its own QEMU): its own name, a line per branch.
    virtual = tmp_path / "virtual"
    assert pipeline.main(["branches", "--boards", str(REPO / "boards.yaml"), "--select", "vlab-hs,vlab-ss",
                          "--locks", str(virtual)]) == 0  # fmt: skip
    assert virtual.read_text() == "hil-pair-vlab-hs\nhil-pair-vlab-ss\n"
