"""USB camera cases skip, before their board is touched, where no frame can stream (hil.lab.camera)."""

from __future__ import annotations

import pytest

from hil.lab.camera import uvc_unavailable
from hil.plugin import INVENTORY


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    inventory = config.stash.get(INVENTORY, None)
    if inventory is None:
        return
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.path.name != "test_camera.py" or "board_pair" not in params:
            continue
        board = inventory.boards.get(params["board_pair"])
        if board is None:  # no pair declares the metric: pytest skips the empty parameter set itself
            continue
        reason = uvc_unavailable(
            getattr(board.config.link, "udc", None),
            bulk=False,
            bulk_supported=False,
        )
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))
