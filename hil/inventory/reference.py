"""`python -m hil.inventory.reference`: the boards.yaml reference, generated from the schema hil validates with.

One table per section of the file (the inventory's top level, a pair, a link, a metric's band, the tuning
profile...): each key with its type, default and allowed values from the pydantic models' JSON Schema, and
what it means from the comment above its field in hil/inventory/ (the models' own documentation, so the
reference cannot drift from the code). docs/boards-yaml.md holds the output; a test keeps the two equal.
"""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

from pydantic import BaseModel

from hil.inventory import schema, tuning

_FIELD = re.compile(r"^    (?P<name>[a-z_][a-z0-9_]*): ")


def _comments(model: type[BaseModel]) -> dict[str, str]:
    """The `# ...` lines right above each field of the model's class body (or a base class's), joined."""
    found: dict[str, str] = {}
    for base in reversed(model.__mro__):
        if isinstance(base, type) and issubclass(base, BaseModel) and base.__module__.startswith("hil."):
            found.update(_own_comments(base))
    return found


def _own_comments(model: type[BaseModel]) -> dict[str, str]:
    found: dict[str, str] = {}
    pending: list[str] = []
    for line in inspect.getsource(model).splitlines()[1:]:
        if line.startswith("    #"):
            pending.append(line.strip().lstrip("# ").rstrip())
            continue
        field = _FIELD.match(line)
        inline = line.partition("  # ")[2].strip() if field else ""
        if field and (pending or inline):
            found[field["name"]] = " ".join([*pending, inline]).strip()
        if not line.startswith("        "):  # a decorator or method body ends the comment run too
            pending = []
    return found


def _models() -> dict[str, type[BaseModel]]:
    """Every model reachable from the inventory, by name (the schema's $defs names)."""
    candidates = [*vars(schema).values(), *vars(tuning).values()]
    return {c.__name__: c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)}


def _type(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[1]
    for union in ("anyOf", "oneOf"):
        if union in prop:
            return " or ".join(_type(option) for option in prop[union] if option.get("type") != "null")
    if "const" in prop:
        return json.dumps(prop["const"])
    if "enum" in prop:
        return " \\| ".join(json.dumps(value) for value in prop["enum"])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type(prop.get('items', {}))}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"map of {_type(prop['additionalProperties'])}"
    words = (("exclusiveMinimum", ">"), ("minimum", ">="), ("exclusiveMaximum", "<"), ("maximum", "<="))
    bounds = [f"{word} {prop[key]}" for key, word in words if key in prop]
    pattern = f" matching `{prop['pattern']}`" if "pattern" in prop else ""
    return kind + (f" ({', '.join(bounds)})" if bounds else "") + pattern


def _default(prop: dict[str, Any], required: bool) -> str:
    if required:
        return "required"
    return f"`{json.dumps(prop['default'])}`" if "default" in prop else ""


def markdown() -> str:
    """The reference: the top level first, then each section in the order the schema names them."""
    top = schema.Inventory.model_json_schema()
    defs = top.pop("$defs")
    models = _models()
    sections = [("Inventory (the file's top level)", "Inventory", top), *((name, name, defs[name]) for name in defs)]
    out = []
    for title, name, section in sections:
        comments = _comments(models[name]) if name in models else {}
        required = set(section.get("required", []))
        out += [f"### {title}", ""]
        doc = inspect.getdoc(models[name]) if name in models else None
        if doc and not doc.startswith(("!!!", "Usage docs")):
            out += [doc.split("\n\n")[0].replace("\n", " "), ""]
        out += ["| key | type | default | meaning |", "|---|---|---|---|"]
        for key, prop in section.get("properties", {}).items():
            meaning = comments.get(key, "").replace("|", "\\|")
            kind = _type(prop).replace("|", "\\|").replace("\\\\|", "\\|")
            out.append(f"| `{key}` | {kind} | {_default(prop, key in required)} | {meaning} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown(), end="")
