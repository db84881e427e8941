"""What results.json keeps of a build (a run's `build`), and the name every page gives it; plain types, so that a
page naming a build does not load the manifest's reader (pydantic)."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict  # not typing's: pydantic reads this one on 3.11 (hil.records.schema)


class ImageIdentity(TypedDict):
    file: str
    sha256: str
    bytes: int


class BuildIdentity(TypedDict):
    """What results.json keeps of a build (its run's `build`)."""

    name: str
    version: str | None
    manifest: str
    images: dict[str, ImageIdentity]
    kernel_args: str
    kernel_release: str | None


def build_label(identity: BuildIdentity | dict[str, Any]) -> str:
    """The name of a build as results.json keeps it (run.build): NAME VERSION, or NAME; how every page names it."""
    return f"{identity['name']} {identity['version']}" if identity.get("version") else identity["name"]
