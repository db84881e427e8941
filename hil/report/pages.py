"""Every HTML page and fragment hil writes, from the Jinja2 templates in templates/.

One environment with autoescaping on: a board, build, metric or parameter name is text wherever it lands, and
no caller escapes by hand. Plain module: no pytest.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from hil.report.summary import VERDICT_COLORS, fmt_num, fmt_pct

ENVIRONMENT = Environment(
    loader=PackageLoader("hil.report", "templates"),
    autoescape=True,
    undefined=StrictUndefined,  # a name the code forgot to pass is an error, not an empty cell
    trim_blocks=True,
    lstrip_blocks=True,
)
ENVIRONMENT.globals["verdict_colors"] = {str(verdict): colour for verdict, colour in VERDICT_COLORS.items()}
ENVIRONMENT.filters["num"] = fmt_num
ENVIRONMENT.filters["pct"] = fmt_pct


def render(template: str, **context: Any) -> str:
    return ENVIRONMENT.get_template(template).render(**context)
