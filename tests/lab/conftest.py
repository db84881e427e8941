"""A labgrid target on this PC (hil's LocalShellDriver): roles whose commands run here, for real."""

from __future__ import annotations

import pytest
from labgrid import Environment

from hil.lab.role import Role

LOCAL_ENV = """\
targets:
  lab-pc:
    drivers:
      LocalShellDriver: {}
imports:
  - hil.lab.local
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    path = tmp_path_factory.mktemp("lab") / "env.yaml"
    path.write_text(LOCAL_ENV)
    env = Environment(config_file=str(path))
    yield env
    env.cleanup()


@pytest.fixture
def role(env) -> Role:
    return Role("host", env.get_target("lab-pc"), "pc-pair")
