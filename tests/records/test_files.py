import json
import math

import numpy as np
import pytest

from hil.records.files import atomic_write_text, dumps, jsonable


def test_jsonable_unwraps_numpy_and_blanks_non_finite():
    data = {"n": np.int64(3), "x": np.float64(1.5), "idx": [np.int64(1)], "cv": math.nan, "t": (1, 2)}
    assert jsonable(data) == {"n": 3, "x": 1.5, "idx": [1], "cv": None, "t": [1, 2]}
    assert json.loads(dumps(data))["cv"] is None


def test_jsonable_refuses_unknown_objects():
    with pytest.raises(TypeError, match="object"):
        jsonable({"x": object()})


def test_atomic_write_replaces_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "sub" / "f.json"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]
    assert target.stat().st_mode & 0o777 == 0o644
