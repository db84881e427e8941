"""`python -m hil.catalogue`: the catalogue as the Markdown tables docs/catalogue.md shows (a test keeps them equal)."""

from __future__ import annotations

import argparse

from hil.catalogue import CATALOGUE, Catalogue


def _row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def markdown(catalogue: Catalogue = CATALOGUE) -> str:
    lines = [
        "| Metric | Unit | Better | Ceiling or floor | Source | What is measured |",
        "|---|---|---|---|---|---|",
    ]
    for family in catalogue.families:
        for metric in family.metrics:
            ceiling = metric.ceiling.describe() if metric.ceiling else "none"
            if metric.floor:  # the standard's least (USB 2.0 resume timing): a sample below it is a FAIL
                ceiling = f"floor {metric.floor.describe()}"
            cells = (f"`{metric.name}`", metric.unit, metric.direction.value, ceiling, metric.seed, metric.description)
            lines.append(_row(cells))
    lines += ["", "| Setting | Type | Default | Range | What it sets |", "|---|---|---|---|---|"]
    for family in catalogue.families:
        for setting in family.settings:
            bounds = ", ".join(setting.choices)
            if not setting.choices and (setting.minimum is not None or setting.maximum is not None):
                low, high = (f"{b:g}" if b is not None else "" for b in (setting.minimum, setting.maximum))
                bounds = f"{low}..{high}"
            lines.append(_row((f"`{setting.name}`", setting.kind.__name__, str(setting.default), bounds, setting.help)))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or "python -m hil.catalogue", description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    print(markdown(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
