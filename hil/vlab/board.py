"""The virtual board booted outside the suite: for the scripts that capture tool output and for tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from labgrid import Environment

from hil.lab.board.role import Role
from hil.vlab import ENV_FILE, set_vlab_image_env
from hil.vlab.image import ensure_image


@contextmanager
def environment() -> Iterator[Environment]:
    """The virtual lab's labgrid environment on its (built or reused) image; the board is off afterwards."""
    set_vlab_image_env(ensure_image().directory)
    env = Environment(config_file=str(ENV_FILE))
    try:
        yield env
    finally:
        env.get_target("vboard").get_strategy().transition("off")
        env.cleanup()


@contextmanager
def booted(role: str = "rc", pair: str = "capture") -> Iterator[Role]:
    """The virtual board as one role (`role` of `pair`, as logs name it), answering at its shell."""
    with environment() as env:
        board = Role(role, env.get_target("vboard"), pair)
        board.ensure_ready()
        yield board
