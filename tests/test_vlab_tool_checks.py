"""The virtual image's tools are exercised as hil uses them when the image is built: all of this PC's pass,
and one that misbehaves is named with its Debian package and version (here busybox's `date`, which has no
nanoseconds, put first on the PATH)."""

from __future__ import annotations

import os
import shutil

import pytest

from hil.errors import VlabImageError
from hil.vlab import image, tool_checks


def test_every_tool_of_this_pc_behaves_as_hil_uses_it():
    tool_checks.check_tools(image.TOOLS, image.build_inputs()["packages"])


def test_a_tool_that_misbehaves_is_named_with_its_package_and_version(tmp_path, monkeypatch):
    (tmp_path / "date").symlink_to(shutil.which("busybox"))
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    with pytest.raises(VlabImageError) as raised:
        tool_checks.check_tools(image.TOOLS, {"coreutils": "9.1-1"})
    assert "date (coreutils 9.1-1): `date +%s%N` gave no nanoseconds" in str(raised.value)
    assert "fio (" not in str(raised.value)  # the others still behave
