"""UVC gadget cases skip, before their board is touched, where no frame can stream (hil.lab.camera)."""

from __future__ import annotations

import pytest

from hil.lab.camera import skip_where_no_frame_streams


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_where_no_frame_streams(config, items, "test_uvc.py")
