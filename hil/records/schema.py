"""The JSON Schema of results.json (and of `hil db export`'s files), generated from the classes that write it.

    python -m hil.records.schema > hil/records/results.schema.json

tests/records/test_schema.py fails when the published file no longer matches these classes. `schema` in the
document (hil.records.store.SCHEMA) changes when a reader of an older file would misread a newer one; fields
added with a default keep it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from pydantic import TypeAdapter

from hil.records.store import SCHEMA, RunInfo
from hil.verdict.result import MetricResult

assert SCHEMA == 1, "the Literal below names the version"


@dataclass
class ResultsDocument:
    """results.json: the run, and every metric it measured."""

    schema: Literal[1]
    run: RunInfo
    results: list[MetricResult]


def results_schema() -> dict:
    schema = TypeAdapter(ResultsDocument).json_schema(mode="serialization")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "hil results.json", **schema}


def main() -> int:
    print(json.dumps(results_schema(), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
