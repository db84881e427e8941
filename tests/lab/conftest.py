"""A labgrid target on this PC (hil's LocalShellDriver): roles whose commands run here, for real."""

from __future__ import annotations

import pytest
from labgrid import Environment

from hil.lab.board.role import Role

LOCAL_ENV = """\
targets:
  lab-pc:
    drivers:
      LocalShellDriver: {}
imports:
  - hil.lab.board.local
"""


@pytest.fixture(scope="module")
def env(request, tmp_path_factory):
    """The labgrid environment of LOCAL_ENV, or of the test module's own LAB_ENV when it declares one."""
    path = tmp_path_factory.mktemp("lab") / "env.yaml"
    path.write_text(getattr(request.module, "LAB_ENV", LOCAL_ENV))
    env = Environment(config_file=str(path))
    yield env
    env.cleanup()


@pytest.fixture
def role(env) -> Role:
    return Role("host", env.get_target("lab-pc"), "pc-pair")
