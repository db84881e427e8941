"""The Jenkinsfile without a Jenkins server: its shell steps, extracted from the file and run as written, in
order, with its parameters' defaults and Jenkins' environment, on the virtual lab behind a labgrid
coordinator, started with docs/shared-lab.md's lab-admin commands: the two pairs of hil/vlab/remote-boards.yaml, one
parallel branch each (one case, 3 samples), each reserving a place; then a second build aborted in the middle
of each branch, whose finished results the steps of `post { always { ... } }` still find."""

import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from lxml import etree

from tests import readme
from tests.pipeline.jenkinsfile import Jenkinsfile

REPO = Path(__file__).resolve().parents[2]
JENKINSFILE = Jenkinsfile.read(REPO / "Jenkinsfile")
SCHEMA = REPO / "tests" / "data" / "junit" / "junit-10.xsd"

# The tiny selection; every other parameter keeps the default the Jenkinsfile declares (COORDINATOR: the lab's).
SELECTION = {
    "INVENTORY": "hil/vlab/remote-boards.yaml",
    "BOARDS": "remote-*",
    "SAMPLES": "3",
    "PYTEST_ARGS": "-k 'read and 1M'",
    "SELFTEST": False,
}
BRANCHES = ["remote-hs", "remote-ss"]  # pairs asking for any place tagged kind=vlab: a branch each
LAB_ADMIN = ("A shared lab: pairs on labgrid places", "**From nothing to a coordinator with two virtual places**")
# The second build runs two cases per branch (read, then write) and is aborted once the first has a result and
# the second has started.
BUILD_PARAMS = {1: {}, 2: {"PYTEST_ARGS": "-k 1M"}}
SECOND_CASE = "write"
ABORT_INTO_CASE_S = 3  # the abort lands in the second case's set-up or sampling, not between two cases
BRANCH_FUNCTION = "runPytest"  # the top-level function a parallel branch runs the suite in; its env: withEnv
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
    assert JENKINSFILE.parameters["SELFTEST"] is False  # a release job measures boards; CI tests the framework


# Read by hil itself in every step, not by the scripts: the results database (a SQLAlchemy URL).
READ_BY_HIL = {"HIL_DB": "RESULTS_DB"}


def test_parameters_the_scripts_read_are_in_the_environment():
    # Jenkins exports parameters as variables only for builds started with parameters; the first is not.
    scripts = " ".join(str(step.args["script"]) for step in JENKINSFILE.steps if step.name == "sh")
    read = {name for name in JENKINSFILE.parameters if re.search(rf"\b{name}\b", scripts)}
    assert read >= {"INVENTORY", "BOARDS", "SAMPLES", "MATRIX", "BASELINE", "PYTEST_ARGS"}
    assert {name: name for name in read} == {k: v for k, v in JENKINSFILE.environment.items() if k in read}
    assert set(JENKINSFILE.environment) == read | set(READ_BY_HIL)
    assert {k: JENKINSFILE.environment[k] for k in READ_BY_HIL} == READ_BY_HIL


def test_builds_run_at_once_and_chain_nothing_through_artifacts():
    """Boards are serialised by the pair locks (all of a branch's at once, `extra`), not whole builds; each
    branch has its own timeout; no build copies another's files."""
    text = (REPO / "Jenkinsfile").read_text()
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    assert "disableConcurrentBuilds" not in code and "copyArtifact" not in code
    branch = code[code.index("Map runBranch(") :]
    branch = branch[: branch.index("\n}\n")]
    assert re.search(r"lock\(resource: locks\[0\], extra: ", branch)
    assert re.search(
        r"timeout\(time: params\.PAIR_TIMEOUT_HOURS as int, unit: 'HOURS'\) \{\s+status = runPytest", branch
    )
    assert "PAIR_TIMEOUT_HOURS" in JENKINSFILE.parameters


PUBLISHERS = ("junit", "publishHTML", "archiveArtifacts")


def test_results_are_published_whatever_ends_the_build():
    """JUnit and the archive in `post { always }`; the HTML reports from a function only that block calls."""
    steps = Jenkinsfile.read(REPO / "Jenkinsfile", PUBLISHERS).steps
    suite = [s for s in steps if s.name == "junit" and s.stage is None]
    assert [s.post for s in suite] == ["always"] and suite[0].args["testResults"] == "reports/*/junit.xml"
    assert [s.post for s in steps if s.name == "archiveArtifacts"] == ["always"]
    assert {s.function for s in steps if s.name == "publishHTML"} == {"publishReports"}
    text = (REPO / "Jenkinsfile").read_text()
    post = text[text.index("\n    post {\n        always {") : text.index("\n    }\n}\n")]
    assert "publishReports()" in post and text.count("publishReports()") == 2  # called there, and defined


# The Jenkins admin's section of docs/jenkins.md: the job it sets up is this file's.
PLUGINS = {  # step -> plugin
    "junit": "JUnit",
    "publishHTML": "HTML Publisher",
    "archiveArtifacts": "Pipeline",
    "lock": "Lockable Resources",
    "timestamps": "Timestamper",
}


def test_readme_parameters_are_the_jenkinsfiles_with_their_defaults():
    rows = readme.table("Jenkins", "parameter")
    assert list(rows) == list(JENKINSFILE.parameters)
    for name, default in JENKINSFILE.parameters.items():
        shown = rows[name][0]
        if default == "":
            assert shown.startswith("empty"), name
        else:
            assert shown == (str(default).lower() if isinstance(default, bool) else default), name


def test_readme_names_the_plugin_of_every_step_and_the_script_path():
    setup = readme.section("Jenkins")
    plugins = setup[setup.index("1. Plugins:") : setup.index("2. ")]
    used = {step.name for step in Jenkinsfile.read(REPO / "Jenkinsfile", tuple(PLUGINS)).steps}
    assert used >= set(PLUGINS) - {"lock", "timestamps"}  # lock and timestamps take a block, not arguments
    assert [PLUGINS[name] for name in sorted(used) if PLUGINS[name] not in plugins] == []
    assert "Script Path `Jenkinsfile`" in setup


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
    # Set-up finds the repository's environment installed and reuses it. It must be current: a stale one
    # would be reinstalled by the workspace's set-up, pointing the repository's hil at this temporary copy.
    wanted = hashlib.sha256(
        b"".join((REPO / name).read_bytes() for name in ("pyproject.toml", "setup.py", "requirements.lock"))
    )
    installed = REPO / ".venv" / ".hil-installed"
    if not installed.is_file() or installed.read_text().strip() != wanted.hexdigest():
        pytest.fail(".venv is not installed from this pyproject.toml and requirements.lock: run scripts/setup.sh")
    (target / ".venv").symlink_to(REPO / ".venv")
    return target


def _admin(command: list[str], env: dict[str, str]) -> str:
    """A lab admin's command, in a checkout of the repository (the docs' `.venv/bin/...` paths)."""
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, f"{shlex.join(command)}:\n{result.stdout}{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def coordinator(tmp_path_factory) -> Iterator[str]:
    """A coordinator with two virtual places, started, shown and stopped with docs/shared-lab.md's commands."""
    start, show, stop = readme.commands_after(LAB_ADMIN[1], LAB_ADMIN[0])
    # Its run directory (under the temp directory) is this test's: nothing shared with another lab here.
    env = {**os.environ, "TMPDIR": str(tmp_path_factory.mktemp("lab-admin"))}
    started = _admin(start, env)
    address = re.search(r"^LG_COORDINATOR=(\S+)$", started, re.M).group(1)
    try:
        places = _admin([address if arg == "127.0.0.1:<port>" else arg for arg in show], env)
        assert [line.split()[0] for line in places.splitlines()] == ["vboard-1", "vboard-2"]
        yield address
    finally:
        assert _admin(stop, env).strip() == "stopped: exporter, power, coordinator"


def _environment(workspace: Path, build: int, coordinator: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LG_"))}  # nothing of the outer run
    params = {**JENKINSFILE.parameters, **SELECTION, "COORDINATOR": coordinator, **BUILD_PARAMS[build]}
    # As the pipeline's environment {} sets them: "${params.X}" (Groovy prints booleans as true/false).
    for name, param in JENKINSFILE.environment.items():
        value = params[param]
        env[name] = str(value).lower() if isinstance(value, bool) else str(value)
    env.update(
        WORKSPACE=str(workspace), BUILD_NUMBER=str(build), JOB_NAME="hil-gate", BUILD_TAG=f"jenkins-hil-gate-{build}"
    )
    return env


def _sh(script: str, workspace: Path, env: dict[str, str], name: str = "main") -> int:
    """As Jenkins' durable task runs a script: through its #! line if it has one, else `sh -xe`."""
    path = workspace.parent / f"script-{os.getpid()}-{name}.sh"
    path.write_text(script)
    path.chmod(0o755)
    command = [str(path)] if script.startswith("#!") else ["sh", "-xe", str(path)]
    return subprocess.run(command, cwd=workspace, env=env, timeout=900).returncode


def _branch(line: str, workspace: Path, env: dict[str, str]) -> tuple[int, float, float]:
    """One parallel branch: runBranch's steps in order, with the variables its withEnv sets."""
    branch = "+".join(line.split())
    branch_env = {**env, "HIL_PAIRS": line, "HIL_BRANCH": branch}
    started, status = time.time(), 0
    for step in JENKINSFILE.function_steps(BRANCH_FUNCTION):
        status = _sh(str(step.args["script"]), workspace, branch_env, branch)
        assert step.args.get("returnStatus") is True or status == 0
    return status, started, time.time()


def _aborted_branch(line: str, workspace: Path, env: dict[str, str]) -> tuple[int, float, float]:
    """One branch aborted as Jenkins aborts a step: SIGTERM to its process group once its first case has a
    result and its second case has started (-v names a case as it starts); returns when every process of it
    has ended. Its console goes to console-<branch>.log beside the workspace."""
    branch = "+".join(line.split())
    (step,) = JENKINSFILE.function_steps(BRANCH_FUNCTION)
    path = workspace.parent / f"script-{os.getpid()}-{branch}.sh"
    path.write_text(str(step.args["script"]))
    path.chmod(0o755)
    console = workspace.parent / f"console-{branch}.log"
    started = time.time()
    with console.open("wb") as out:
        process = subprocess.Popen(
            [str(path)],
            cwd=workspace,
            env={**env, "HIL_PAIRS": line, "HIL_BRANCH": branch, "PYTHONUNBUFFERED": "1"},  # the console as it is
            start_new_session=True,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    results = workspace / "reports" / branch / "results.json"
    second_case = f"::test_msc_throughput[bs=1M-{branch}-{SECOND_CASE}]"
    while process.poll() is None and time.time() - started < 600:
        # results.json is written atomically; a run that ended before its second case started would not
        # test an abort at all (it once raced the end of the run: exit status 1, the abort too late).
        if results.is_file() and json.loads(results.read_text())["results"] and second_case in console.read_text():
            break
        time.sleep(1)
    assert process.poll() is None, f"the branch ended before it could be aborted:\n{console.read_text()[-3000:]}"
    time.sleep(ABORT_INTO_CASE_S)
    os.killpg(process.pid, signal.SIGTERM)
    status = process.wait()  # the shell dies at once (reaped here: a zombie would keep its group alive)
    while time.time() - started < 900:  # pytest writes its reports after the shell has died
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(1)
    return status, started, time.time()


def _build(workspace: Path, number: int, coordinator: str, branch=_branch) -> dict[str, tuple]:
    """One build: the main steps in order, then one branch per line of reports/branches.txt, all at once
    as `parallel` runs them. Returns per branch its exit status, start and end."""
    env = _environment(workspace, number, coordinator)
    for step in JENKINSFILE.main_steps():
        if step.stage == SELFTEST_STAGE:
            continue
        assert _sh(str(step.args["script"]), workspace, env) == 0, f"sh step at Jenkinsfile line {step.line} failed"
    lines = (workspace / "reports" / "branches.txt").read_text().splitlines()
    with ThreadPoolExecutor(max_workers=len(lines) or 1) as pool:
        branches = {"+".join(line.split()): pool.submit(branch, line, workspace, env) for line in lines}
    return {name: future.result() for name, future in branches.items()}


@pytest.fixture(scope="module")
def builds(tmp_path_factory, coordinator):
    """Two builds in fresh workspaces (a build's reports/ are its own): the second aborted mid-branch."""
    first = _workspace(tmp_path_factory.mktemp("build1"))
    branches1 = _build(first, 1, coordinator)
    second = _workspace(tmp_path_factory.mktemp("build2"))
    branches2 = _build(second, 2, coordinator, _aborted_branch)
    return first, branches1, second, branches2


def _run(workspace: Path, branch: str) -> dict:
    return json.loads((workspace / "reports" / branch / "results.json").read_text())


def test_build_runs_one_branch_per_selected_pair(builds):
    first, branches1, _, branches2 = builds
    assert (first / "reports" / "branches.txt").read_text().splitlines() == BRANCHES
    assert sorted(branches1) == sorted(branches2) == BRANCHES


def test_branches_run_in_parallel_each_on_a_place_of_its_own(builds, coordinator):
    for workspace, branches in (builds[0:2], builds[2:4]):
        (_, start_hs, end_hs), (_, start_ss, end_ss) = branches["remote-hs"], branches["remote-ss"]
        assert max(start_hs, start_ss) < min(end_hs, end_ss)
        facts = {branch: _run(workspace, branch)["results"][0]["facts"] for branch in BRANCHES}
        assert {f["coordinator"] for f in facts.values()} == {coordinator}
        places = sorted(f["place.vboard"] for f in facts.values())
        assert places == ["vboard-1 (exporter hil-vlab)", "vboard-2 (exporter hil-vlab)"]


@pytest.mark.parametrize("branch", BRANCHES)
def test_branch_writes_reports_and_exits_with_hil_status(builds, branch):
    first, branches, _, _ = builds
    reports = first / "reports" / branch
    run = _run(first, branch)
    status = branches[branch][0]
    assert status == run["run"]["exit_status"]
    assert status in (0, 1)  # PASS, or a gate the loaded machine failed: both are verdicts
    assert run["run"]["host"]["ci"]["BUILD_NUMBER"] == "1"
    assert "--samples 3" in run["run"]["command"]
    assert [(r["board"], r["metric"], len(r["samples"])) for r in run["results"]] == [(branch, "usb.msc.read", 3)]
    assert "usb.msc.read[bs=1M]" in (reports / "report.html").read_text()
    meaning = "passed" if status == 0 else "gate failed"
    assert (reports / "summary.txt").read_text().startswith(f"{branch}: {meaning}; ")


@pytest.mark.parametrize("branch", BRANCHES)
def test_an_aborted_build_publishes_its_finished_results(builds, branch):
    """What `post { always }` publishes after an abort: the JUnit file its pattern finds holds the case that
    finished, with its verdict; the HTML report and results.json hold it too; hil exited 2 (interrupted)."""
    _, _, second, branches = builds
    (junit_step,) = [s for s in Jenkinsfile.read(REPO / "Jenkinsfile", ("junit",)).steps if s.post and not s.stage]
    found = sorted(second.glob(str(junit_step.args["testResults"])))
    assert second / "reports" / branch / "junit.xml" in found
    document = etree.parse(str(second / "reports" / branch / "junit.xml"))
    finished = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iterfind("properties/property")}
        for case in document.iter("testcase")
    }
    read = next(props for name, props in finished.items() if "read" in name and props)
    assert read["verdict"] in ("PASS", "MARGINAL", "FAIL", "UNSTABLE")
    run = _run(second, branch)
    console = (second.parent / f"console-{branch}.log").read_text()
    assert run["run"]["exit_status"] == 2, f"{run['run']}\n{console[-3000:]}"
    assert run["run"]["aborted_by"] == "SIGTERM" and branches[branch][0] != 0
    assert [(r["metric"], len(r["samples"])) for r in run["results"]][:1] == [("usb.msc.read", 3)]
    assert "usb.msc.read[bs=1M]" in (second / "reports" / branch / "report.html").read_text()


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
    document = etree.parse(str(first / "reports" / BRANCHES[0] / "junit.xml"))
    schema.validate(document)
    assert {error.message.split(" Expected is")[0] for error in schema.error_log} == XUNIT1_DEVIATIONS
    case = next(c for c in document.iter("testcase") if c.get("name", "").startswith("test_msc_throughput"))
    properties = {p.get("name"): p.get("value") for p in case.iterfind("properties/property")}
    assert properties["metrics"] == "usb.msc.read[bs=1M]"
    assert properties["verdict"] == properties["usb.msc.read[bs=1M].verdict"]
    assert properties["verdict"] in ("PASS", "MARGINAL", "FAIL", "UNSTABLE")
    for element in document.iter("testcase"):  # without the extras it is valid
        element.attrib.pop("file", None)
        element.attrib.pop("line", None)
        for extra in element.findall("properties"):
            element.remove(extra)
    assert schema.validate(document), schema.error_log
