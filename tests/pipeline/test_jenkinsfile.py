"""The Jenkinsfile without a Jenkins server: its shell steps, extracted from the file and run as written, in
order, with its parameters' defaults and Jenkins' environment, on the virtual lab (one pair, one case, 3
samples); twice, the second build carrying the first one's history as copyArtifacts would."""

import fnmatch
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from lxml import etree

from tests.pipeline.jenkinsfile import Jenkinsfile

REPO = Path(__file__).resolve().parents[2]
JENKINSFILE = Jenkinsfile.read(REPO / "Jenkinsfile")
SCHEMA = REPO / "tests" / "data" / "junit" / "junit-10.xsd"

# The tiny selection; every other parameter keeps the default the Jenkinsfile declares.
SELECTION = {"BOARDS": "vlab-hs", "SAMPLES": "3", "PYTEST_ARGS": "-k 'read and 1M'", "SELFTEST": False}
# The first build stores a baseline, the second compares with it (no re-measure: one boot is enough here).
BUILD_PARAMS = {1: {"UPDATE_BASELINE": True}, 2: {"BASELINE": True, "PYTEST_ARGS": "-k 'read and 1M' --no-confirm"}}
BRANCH_FUNCTION = "runBranch"  # the top-level function a parallel branch runs; its env comes from withEnv
SELFTEST_STAGE = "Framework tests"  # the whole tests/ folder: not run from inside it


def test_sh_scripts_are_plain_strings():
    # A "..." script would paste Groovy values (parameters) into the shell; they must arrive as env vars.
    scripts = [step for step in JENKINSFILE.steps if step.name == "sh"]
    assert len(scripts) >= 5
    assert [step.line for step in scripts if "script" in step.interpolated] == []


def test_selftest_stage_is_guarded_by_its_parameter():
    text = (REPO / "Jenkinsfile").read_text()
    stage = text[text.index(f"stage('{SELFTEST_STAGE}')") :]
    assert stage[: stage.index("steps")].count("when { expression { return params.SELFTEST } }") == 1
    assert JENKINSFILE.parameters["SELFTEST"] is True


def test_parameters_the_scripts_read_are_in_the_environment():
    # Jenkins exports parameters as variables only for builds started with parameters; the first is not.
    scripts = " ".join(str(step.args["script"]) for step in JENKINSFILE.steps if step.name == "sh")
    read = {name for name in JENKINSFILE.parameters if re.search(rf"\b{name}\b", scripts)}
    assert read >= {"INVENTORY", "BOARDS", "SAMPLES", "MATRIX", "BASELINE", "PYTEST_ARGS"}
    assert {name: name for name in read} == {k: v for k, v in JENKINSFILE.environment.items() if k in read}
    assert read == set(JENKINSFILE.environment)


def _workspace(target: Path) -> Path:
    """A checkout as Jenkins makes one: the repository's files (committed or not, minus ignored ones)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (target / ".venv").symlink_to(REPO / ".venv")  # set-up finds it installed and reuses it
    return target


def _environment(workspace: Path, build: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # nothing of the outer run
    params = {**JENKINSFILE.parameters, **SELECTION, **BUILD_PARAMS[build]}
    # As the pipeline's environment {} sets them: "${params.X}" (Groovy prints booleans as true/false).
    for name, param in JENKINSFILE.environment.items():
        value = params[param]
        env[name] = str(value).lower() if isinstance(value, bool) else str(value)
    env.update(
        WORKSPACE=str(workspace), BUILD_NUMBER=str(build), JOB_NAME="hil-gate", BUILD_TAG=f"jenkins-hil-gate-{build}"
    )
    return env


def _sh(script: str, workspace: Path, env: dict[str, str]) -> int:
    """As Jenkins' durable task runs a script: through its #! line if it has one, else `sh -xe`."""
    path = workspace.parent / f"script-{os.getpid()}.sh"
    path.write_text(script)
    path.chmod(0o755)
    command = [str(path)] if script.startswith("#!") else ["sh", "-xe", str(path)]
    return subprocess.run(command, cwd=workspace, env=env, timeout=900).returncode


def _copy_artifacts(filters: str, archive: Path | None, workspace: Path) -> None:
    """copyArtifacts from the last build with artifacts: the archived files that match the filter."""
    if archive is None:
        return  # the first build: optional, nothing to copy
    patterns = [p.strip() for p in filters.split(",")]
    for path in archive.rglob("*"):
        name = path.relative_to(archive).as_posix()
        if path.is_file() and any(fnmatch.fnmatch(name, pattern) for pattern in patterns):
            (workspace / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, workspace / name)


def _build(workspace: Path, number: int, archive: Path | None) -> dict[str, int]:
    """One build: the main steps in order, the branch steps once per line of reports/branches.txt."""
    env = _environment(workspace, number)
    statuses: dict[str, int] = {}
    for step in JENKINSFILE.main_steps():
        if step.stage == SELFTEST_STAGE:
            continue
        if step.name == "copyArtifacts":
            _copy_artifacts(str(step.args["filter"]), archive, workspace)
            continue
        assert _sh(str(step.args["script"]), workspace, env) == 0, f"sh step at Jenkinsfile line {step.line} failed"
    for line in (workspace / "reports" / "branches.txt").read_text().splitlines():
        branch = "+".join(line.split())
        branch_env = {**env, "HIL_PAIRS": line, "HIL_BRANCH": branch}
        for step in JENKINSFILE.function_steps(BRANCH_FUNCTION):
            status = _sh(str(step.args["script"]), workspace, branch_env)
            assert step.args.get("returnStatus") is True or status == 0
            statuses[branch] = status
    return statuses


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """Two builds in fresh workspaces; the second gets the first one's archived reports/** as its last build."""
    first = _workspace(tmp_path_factory.mktemp("build1"))
    statuses1 = _build(first, 1, archive=None)
    second = _workspace(tmp_path_factory.mktemp("build2"))
    statuses2 = _build(second, 2, archive=first)
    return first, statuses1, second, statuses2


def test_build_runs_one_branch_per_selected_pair(builds):
    first, statuses1, _, statuses2 = builds
    assert (first / "reports" / "branches.txt").read_text() == "vlab-hs\n"
    assert list(statuses1) == list(statuses2) == ["vlab-hs"]


def test_branch_writes_reports_and_exits_with_hil_status(builds):
    first, statuses, _, _ = builds
    reports = first / "reports" / "vlab-hs"
    run = json.loads((reports / "results.json").read_text())
    assert statuses["vlab-hs"] == run["run"]["exit_status"]
    assert statuses["vlab-hs"] in (0, 1)  # PASS, or a gate the loaded machine failed: both are verdicts
    assert run["run"]["host"]["ci"]["BUILD_NUMBER"] == "1"
    assert "--samples 3" in run["run"]["command"]
    assert [(r["board"], r["metric"], len(r["samples"])) for r in run["results"]] == [("vlab-hs", "usb.msc.read", 3)]
    assert "usb.msc.read[bs=1M]" in (reports / "report.html").read_text()
    meaning = "passed" if statuses["vlab-hs"] == 0 else "gate failed"
    assert (reports / "summary.txt").read_text().startswith(f"vlab-hs: {meaning}; ")


def test_second_build_compares_with_the_baseline_the_first_stored(builds):
    first, _, second, _ = builds
    run1 = json.loads((first / "reports" / "vlab-hs" / "results.json").read_text())
    run2 = json.loads((second / "reports" / "vlab-hs" / "results.json").read_text())
    stored = first / "reports" / "baselines" / "vlab-hs.json"
    assert (second / "reports" / "baselines" / "vlab-hs.json").read_bytes() == stored.read_bytes()  # carried
    assert [r["baseline"]["baseline_run"] for r in run2["results"]] == [run1["run"]["id"]]


def test_second_build_carries_history_into_the_trend(builds):
    first, _, second, _ = builds
    runs1 = sorted(p.name for p in (first / "reports" / "vlab-hs" / "history").iterdir())
    runs2 = sorted(p.name for p in (second / "reports" / "vlab-hs" / "history").iterdir())
    assert len(runs1) == 1
    assert len(runs2) == 2
    assert runs2[0] == runs1[0]
    assert (second / "reports" / "vlab-hs" / "trend.html").is_file()


# pytest's xunit1 JUnit XML against the xUnit plugin's schema: exactly these differ, nothing else. The JUnit
# plugin (the `junit` step) reads both: per-testcase <properties> with keepProperties, and ignores file/line.
XUNIT1_DEVIATIONS = {
    "Element 'testcase', attribute 'file': The attribute 'file' is not allowed.",
    "Element 'testcase', attribute 'line': The attribute 'line' is not allowed.",
    "Element 'properties': This element is not expected.",  # what libxml2 says it expected varies by position
}


def test_junit_xml_deviates_from_xunit_schema_only_by_xunit1_extras(builds):
    first, _, _, _ = builds
    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))
    document = etree.parse(str(first / "reports" / "vlab-hs" / "junit.xml"))
    schema.validate(document)
    assert {error.message.split(" Expected is")[0] for error in schema.error_log} == XUNIT1_DEVIATIONS
    case = next(c for c in document.iter("testcase") if c.get("name", "").startswith("test_msc_throughput"))
    properties = {p.get("name"): p.get("value") for p in case.iterfind("properties/property")}
    assert properties["metric"] == "usb.msc.read[bs=1M]"
    assert properties["verdict"] in ("PASS", "MARGINAL", "FAIL", "UNSTABLE")
    for element in document.iter("testcase"):  # without the extras it is valid
        element.attrib.pop("file", None)
        element.attrib.pop("line", None)
        for extra in element.findall("properties"):
            element.remove(extra)
    assert schema.validate(document), schema.error_log
