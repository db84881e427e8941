"""The rehearsal bench for the tests: started once per session from a run directory of its own (it uses the
fixed ports examples/rehearsal-env.yaml names: a bench someone else started on this PC makes these fail), and
environments built from that env file, or from a variant of it a test writes (a fault to rehearse)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from labgrid import Environment

from hil.bench import bench as bench_service
from hil.lab.board.role import Role

REPO = Path(__file__).resolve().parents[2]
ENV_FILE = REPO / "examples" / "rehearsal-env.yaml"


@pytest.fixture(scope="session")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    run_dir = tmp_path_factory.mktemp("bench")
    state = bench_service.start(run_dir)
    previous = os.environ.get("LG_HIL_BENCH")
    os.environ["LG_HIL_BENCH"] = str(run_dir)
    try:
        yield state
    finally:
        bench_service.stop(run_dir)
        if previous is None:
            os.environ.pop("LG_HIL_BENCH", None)
        else:
            os.environ["LG_HIL_BENCH"] = previous


@pytest.fixture
def rehearsal_env(bench: dict, tmp_path: Path) -> Iterator[Callable[..., Environment]]:
    """Environments of the bench's env file; `changes` edits drivers of a target first:
    rehearsal_env(rboard={"UBootDriver": {"boot_command": "..."}}); `only`: just these targets."""
    made: list[Environment] = []

    def make(only: tuple[str, ...] = (), **changes: dict) -> Environment:
        text = ENV_FILE.read_text().replace("!template ", "").replace("$LG_HIL_BENCH", bench["run_dir"])
        config = yaml.safe_load(text)
        if only:
            config["targets"] = {name: config["targets"][name] for name in only}
        for target, drivers in changes.items():
            for driver, fields in drivers.items():
                config["targets"][target]["drivers"][driver].update(fields)
        path = tmp_path / f"env-{len(made)}.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))  # labgrid binds drivers in their order
        env = Environment(config_file=str(path))
        made.append(env)
        return env

    yield make
    for env in made:
        for target in env.targets.values():
            with contextlib.suppress(Exception):  # a target whose power switch was the fault
                target.get_strategy().transition("off")
        env.cleanup()


def role(env: Environment, target: str) -> Role:
    return Role("board", env.get_target(target), "rehearsal")
