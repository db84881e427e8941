"""boards.yaml validation: every problem names the file, the line, the key path and what is wrong."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hil.errors import InventoryError
from hil.inventory.loader import load_inventory

REPO = Path(__file__).resolve().parents[2]
METRIC = "pairs/vpair/metrics/usb.msc.read"
MARK = "# <-"  # the line a case expects the error to point at


def _marked_line(text: str) -> int:
    lines = [number for number, line in enumerate(text.splitlines(), start=1) if MARK in line]
    assert len(lines) == 1, "a case marks exactly one line"
    return lines[0]


def _variant(text: str, *replacements: tuple[str, str]) -> str:
    for old, new in replacements:
        assert text.count(old) == 1, f"{old!r} must occur once in the scratch inventory"
        text = text.replace(old, new)
    return text


def test_the_repository_inventory_loads(monkeypatch):
    # Loading parses the env files but instantiates no target: their !template values stay unresolved.
    monkeypatch.delenv("LG_HIL_VLAB_IMAGE", raising=False)
    loaded = load_inventory(REPO / "boards.yaml")
    assert set(loaded.boards) == {
        "vlab-hs",
        "vlab-ss",
        "vlab-nvme",
        "vlab-bar",
        "vlab-usbdisk-bot",
        "vlab-usbdisk-uas",
        "vlab-usbdisks",
        "vlab-android-hs",
        "vlab-usbnet",
        "vlab-modem",
    }
    # The gadget families run inside the guest: on its instruction-counted clock (the android backend not yet:
    # boards.yaml says why; the modem's paced streams on a virtual CPU 8x as fast), and so does the BAR, guest memory.
    # The pairs through a QEMU device model's I/O (NVMe, xHCI disks, usb-net, SD) on the PC's (docs/virtual-lab.md).
    clocks = {name: board.config.clock_name for name, board in loaded.boards.items()}
    virtual = {name: clock for name, clock in clocks.items() if clock != "real"}
    assert virtual == {**dict.fromkeys(("vlab-hs", "vlab-ss", "vlab-bar"), "virtual"), "vlab-modem": "virtual-1000mips"}
    for name, speed in (("vlab-hs", "high"), ("vlab-ss", "super")):
        board = loaded.boards[name]
        assert board.env_path == REPO / "hil/vlab/env.yaml"
        assert board.config.vlab
        assert board.config.link.speed == speed
        assert board.config.link.driver.module == "dummy_hcd"
        assert {r.target for r in board.config.roles.values()} == {"vboard"}
        assert {"usb.msc.read", "usb.msc.write"} <= set(board.config.metrics)


def test_the_repository_inventory_points_at_the_real_pair_example_which_loads():
    """boards.yaml names the RK3399 example users copy (it replaced a commented block): it must exist and load."""
    text = (REPO / "boards.yaml").read_text()
    assert "examples/boards-rk3399-gadget.yaml" in text
    loaded = load_inventory(REPO / "examples/boards-rk3399-gadget.yaml")
    board = loaded.boards["rk3399-evb-usb3"]
    assert board.env_path == REPO / "examples/rockchip-usb-env.yaml"
    read_1m = board.spec_for(loaded.inventory, "usb.msc.read", {"bs": "1M"})
    assert (read_1m.band.low, read_1m.band.high) == (225, None)


CASES = {
    "unknown key": (
        [("        min: 8\n", f"        min: 8\n        max_vc: 5%  {MARK}\n")],
        f"{METRIC}/max_vc",
        "unknown key (typo?)",
    ),
    "wrong type": ([("        min: 8\n", f"        min: fast  {MARK}\n")], f"{METRIC}/min", "is a number, not 'fast'"),
    "not finite": ([("        min: 8\n", f"        min: .nan  {MARK}\n")], f"{METRIC}/min", "finite number"),
    "nominal without tolerance": (
        [("      usb.msc.read:\n", f"      usb.msc.read:  {MARK}\n"), ("min: 8", "nominal: 8")],
        METRIC,
        "nominal and tolerance go together",
    ),
    "min and nominal together": (
        [
            ("      usb.msc.read:\n", f"      usb.msc.read:  {MARK}\n"),
            ("        min: 8\n", "        min: 8\n        nominal: 9\n        tolerance: 10%\n"),
        ],
        METRIC,
        "either min/max or nominal/tolerance, not both",
    ),
    "min above max": (
        [
            ("      usb.msc.read:\n", f"      usb.msc.read:  {MARK}\n"),
            ("        min: 8\n", "        min: 8\n        max: 7\n"),
        ],
        METRIC,
        "min 8.0 is above max 7.0",
    ),
    "min above max in a parameter override": (
        [("bs=64K: {max: 10}", f"bs=64K: {{min: 20, max: 10}}  {MARK}")],
        f"{METRIC}/params/bs=64K",
        "min 20.0 is above max 10.0",
    ),
    "unknown unit": ([("unit: MB/s", f"unit: MB/sec  {MARK}")], f"{METRIC}/unit", "unknown unit 'MB/sec'"),
    "bad percentage in defaults": (
        [("  max_cv: 5%\n", f"  max_cv: five  {MARK}\n")],
        "defaults/max_cv",
        "'five' is not a percentage like '5%'",
    ),
    "bad percentage in a metric": (
        [("        min: 8\n", f"        min: 8\n        max_cv: five  {MARK}\n")],
        f"{METRIC}/max_cv",
        "'five' is not a percentage like '5%'",
    ),
    "bad tolerance": (
        [("        min: 8\n", f"        nominal: 8\n        tolerance: lots  {MARK}\n")],
        f"{METRIC}/tolerance",
        "neither a percentage",
    ),
    "bad parameter selector": (
        [("bs=64K: {max: 10}", f"bs64K: {{max: 10}}  {MARK}")],
        f"{METRIC}/params/bs64K",
        "parameter selector 'bs64K' must look like 'name=value[,name=value]'",
    ),
    "unknown key in a parameter override": (
        [("bs=64K: {max: 10}", f"bs=64K: {{mxa: 10}}  {MARK}")],
        f"{METRIC}/params/bs=64K/mxa",
        "unknown key",
    ),
    "usb pair with PCIe roles": (
        [
            ("    roles:\n", f"    roles:  {MARK}\n"),
            ("host: {target: vboard}", "rc: {target: vboard}"),
            ("device: {target: vboard}", "ep: {target: vboard}"),
        ],
        "pairs/vpair/roles",
        "a usb pair needs roles ['device', 'host'] (and optionally ['peer']), found ['ep', 'rc']",
    ),
    "unknown link speed": (
        [("speed: high,", "speed: hihg,"), ("udc: dummy_udc.0}\n", f"udc: dummy_udc.0}}  {MARK}\n")],
        "pairs/vpair/link/speed",
        "USB speed 'hihg' has no ceiling in hil.verdict.ceilings",
    ),
    "env file missing": (
        [("env: env.yaml", f"env: missing.yaml  {MARK}")],
        "pairs/vpair/env",
        "missing.yaml does not exist",
    ),
    "role target not in the env file": (
        [("host: {target: vboard}", f"host: {{target: vbaord}}  {MARK}")],
        "pairs/vpair/roles/host/target",
        "target 'vbaord' is not in env.yaml (targets: vboard)",
    ),
    "virtual clock on a pair that is not the virtual board": (
        [("  vpair:\n", f"  vpair:  {MARK}\n"), ("    env: env.yaml\n", "    env: env.yaml\n    clock: virtual\n")],
        "pairs/vpair",
        "clock: virtual is the virtual board's instruction-counted clock: vlab: true pairs only",
    ),
    "virtual clock's speed on the real clock": (
        [("  vpair:\n", f"  vpair:  {MARK}\n"), ("    env: env.yaml\n", "    env: env.yaml\n    virtual_mips: 1000\n")],
        "pairs/vpair",
        "virtual_mips is the speed of the virtual clock: set clock: virtual with it",
    ),
    "key given twice": (
        [("        min: 8\n", f"        min: 8\n        min: 80  {MARK}\n")],
        f"{METRIC}/min",
        "given twice (first on line 14)",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_malformed_inventory_names_file_line_key_and_problem(write_boards, boards_yaml, case):
    replacements, key, problem = CASES[case]
    text = _variant(boards_yaml, *replacements)
    path = write_boards(text)
    with pytest.raises(InventoryError) as caught:
        load_inventory(path)
    error = caught.value
    where = f"line {_marked_line(text)}: {key}"
    assert (error.path, error.key) == (str(path), where), str(error)
    assert problem in error.problem
    assert str(error).startswith(f"{path}: {where}: ")


def test_empty_pairs_say_so(write_boards):
    path = write_boards("defaults:\n  warmup: 0\npairs: {}\n")
    with pytest.raises(InventoryError, match=r"line 3: pairs: no pairs defined"):
        load_inventory(path)


def test_invalid_yaml_names_the_line_the_parser_stopped_at(write_boards, boards_yaml):
    text = _variant(boards_yaml, ("        min: 8\n", f"\tmin: 8  {MARK}\n"))
    path = write_boards(text)
    with pytest.raises(InventoryError) as caught:
        load_inventory(path)
    assert caught.value.key == f"line {_marked_line(text)}"
    assert caught.value.problem.startswith("not valid YAML: found character '\\t'")


def test_invalid_yaml_also_names_where_the_open_construct_began(write_boards, boards_yaml):
    text = _variant(boards_yaml, ("        min: 8\n", f"        min: [8  {MARK}\n"))
    path = write_boards(text)
    with pytest.raises(InventoryError) as caught:
        load_inventory(path)
    # The parser notices on the next line (`params:`); the unclosed `[` is on the marked one.
    assert caught.value.key == f"line {_marked_line(text) + 1}"
    assert f"while parsing a flow sequence on line {_marked_line(text)}" in caught.value.problem


@pytest.mark.parametrize("text", ["- vpair\n- other\n", "just words\n", ""])
def test_an_inventory_that_is_not_a_mapping_is_rejected(write_boards, text):
    path = write_boards(text)
    with pytest.raises(InventoryError) as caught:
        load_inventory(path)
    assert (caught.value.path, caught.value.key) == (str(path), "line 1")
    assert "must be a mapping with a 'pairs' key" in caught.value.problem


def test_a_missing_inventory_file_is_named(lab):
    path = lab / "nope.yaml"
    with pytest.raises(InventoryError, match=r"nope\.yaml: cannot read: No such file or directory"):
        load_inventory(path)


@pytest.mark.parametrize(
    ("env_text", "problem"),
    [
        ("- not\n- a mapping\n", "target 'vboard' is not in env.yaml (targets: none)"),
        ("targets: [\n", "env.yaml line 2: not valid YAML"),
        ("targets:\n  other: {}\n", "target 'vboard' is not in env.yaml (targets: other)"),
        # Bounded before labgrid's loader sees it (it would expand the aliases for minutes, or recurse).
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)},"
                f" *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
                for i in range(9)
            ),
            "env.yaml line 1: refused: 1.23e+10 nodes once its aliases are expanded",
        ),
        ("targets: " + "[" * 500 + "]" * 500 + "\n", "env.yaml line 1: refused: nested deeper than 64 levels"),
    ],
)
def test_a_broken_env_file_is_an_inventory_error(lab, write_boards, boards_yaml, env_text, problem):
    (lab / "env.yaml").write_text(env_text)
    path = write_boards(boards_yaml)
    with pytest.raises(InventoryError) as caught:
        load_inventory(path)
    assert caught.value.key.startswith("line ")
    assert problem in caught.value.problem


def test_the_scratch_inventory_itself_is_valid(lab, write_boards, boards_yaml):
    # The cases above each break one line of a file that is otherwise valid: prove it is.
    loaded = load_inventory(write_boards(boards_yaml))
    assert set(loaded.boards) == {"vpair"}
    assert loaded.boards["vpair"].env_path == lab / "env.yaml"


@pytest.mark.parametrize(
    ("special", "problem"),
    [
        ("/dev/zero", "not a regular file"),  # read for ever, until memory ran out (issue "numbers that cannot lie")
        ("/dev/null", "not a regular file"),
        (".", "not a regular file"),
    ],
)
def test_a_special_file_given_as_the_inventory_is_refused(special, problem):
    with pytest.raises(InventoryError, match=problem):
        load_inventory(special)


def test_deeply_nested_yaml_is_refused_with_its_line_not_a_recursion_error(tmp_path):
    path = tmp_path / "boards.yaml"
    path.write_text("pairs:\n  x: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n")
    with pytest.raises(InventoryError, match=r"line 2: refused: nested deeper than 64 levels"):
        load_inventory(path)


def test_the_virtual_lab_page_counts_the_virtual_pairs_boards_yaml_has():
    text = (REPO / "docs/virtual-lab.md").read_text(encoding="utf-8")
    said = re.search(r"The virtual lab's (\w+) pairs in `boards.yaml`", text)
    assert said, "docs/virtual-lab.md no longer counts the virtual pairs"
    vlab = [name for name, board in load_inventory(REPO / "boards.yaml").boards.items() if board.config.vlab]
    words = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
    ]
    assert said.group(1) == words[len(vlab)], f"docs/virtual-lab.md says {said.group(1)}, boards.yaml has {len(vlab)}"
    # Nor does another page speak of all of them by another count ("the two virtual pairs", "both virtual pairs").
    whole = re.compile(r"\b(the|its|all|both)\s+(?:(\w+)\s+)?virtual pairs\b", re.IGNORECASE)
    for page in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        for found in whole.finditer(" ".join(page.read_text(encoding="utf-8").split())):
            count = "two" if found.group(1).lower() == "both" else (found.group(2) or "").lower()
            assert count not in words or count == words[len(vlab)], f"{page.relative_to(REPO)}: {found.group(0)!r}"
