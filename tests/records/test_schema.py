"""results.json's published JSON Schema: it matches the classes that write the file, and real results files
(and the history files older versions wrote) validate against it with a JSON Schema validator."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from hil.records import schema
from hil.records.store import load_run

PUBLISHED = Path(schema.__file__).with_name("results.schema.json")
DATA = Path(__file__).resolve().parents[1] / "data" / "results"


def test_the_published_schema_is_the_one_the_classes_give():
    assert json.loads(PUBLISHED.read_text()) == schema.results_schema(), (
        "regenerate it: python -m hil.records.schema > hil/records/results.schema.json"
    )


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.json")))
def test_real_results_files_validate_and_load(name):
    document = json.loads((DATA / name).read_text())
    jsonschema.validate(document, json.loads(PUBLISHED.read_text()), cls=jsonschema.Draft202012Validator)
    assert load_run(DATA / name).results


def test_a_file_that_breaks_the_schema_is_refused_by_the_validator():
    document = json.loads(next(DATA.glob("*.json")).read_text())
    document["results"][0]["samples"][0]["value"] = "41.2 MB/s"
    with pytest.raises(jsonschema.ValidationError, match="is not of type 'number'"):
        jsonschema.validate(document, json.loads(PUBLISHED.read_text()), cls=jsonschema.Draft202012Validator)
