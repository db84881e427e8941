"""Fixtures that boot the real virtual board (QEMU, TCG) once for the tests in this folder."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from labgrid import Environment

from hil.lab.board import deploy
from hil.lab.board.role import Role
from hil.vlab import set_vlab_image_env
from hil.vlab.board import environment
from hil.vlab.image import VlabImage, ensure_image


@pytest.fixture(scope="session")
def vlab_image() -> VlabImage:
    image = ensure_image()
    set_vlab_image_env(image.directory)
    return image


@pytest.fixture(scope="session")
def vlab_env(vlab_image: VlabImage) -> Iterator[Environment]:
    with environment() as env:
        yield env


@pytest.fixture
def vboard(vlab_env: Environment) -> Role:
    """The virtual board as one role, answering (booted or power-cycled) at the start of each test."""
    role = Role("device", vlab_env.get_target("vboard"), "vlab-test")
    role.ensure_ready()
    return role


@pytest.fixture
def vboard_with_programs(vboard: Role) -> Role:
    """The virtual board with hil's programs deployed (over its console, once per boot: hil.lab.board.deploy)."""
    deploy.ensure(vboard)
    return vboard


@pytest.fixture
def vlab_subprocess_env(vlab_image: VlabImage) -> dict[str, str]:
    """Environment for a nested pytest run: the same image, no inherited xdist or pytest options."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LG_"))}
    env["LG_HIL_VLAB_IMAGE"] = str(vlab_image.directory)
    return env
