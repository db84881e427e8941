"""A calibration written into boards.yaml as an edit of its text: every comment and every other line stays.

PyYAML's parser events give where each key and value is written; a value is replaced where it stands, a
missing key goes on a line of its own after its mapping's last (block style) or before its `}` (flow style).
A mapping or value shared through a YAML anchor is left alone (editing it would change another pair's band
too): the edit names it, for a hand edit.
Plain module: no pytest.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass, field

import yaml

from hil.inventory.schema import parse_selector


@dataclass
class Node:
    """Where a value is written: [start, end) of its text (a scalar without its trailing blank lines)."""

    start: int
    end: int
    flow: bool = False
    anchor: str | None = None
    alias: bool = False
    entries: dict[str, tuple[int, Node]] | None = None  # a mapping's: key -> (where the key starts, value)


@dataclass
class MetricEdit:
    """What one metric's entry of a pair becomes: values (YAML text) per layer, its source."""

    metric: str
    unit: str  # for an entry that is new
    layers: dict[str | None, dict[str, str]]  # parameter selector (None: the metric itself) -> key -> value
    source: str
    drop: tuple[str, ...] = ()  # keys of the metric's own layer that go (informative: a band replaces it)
    notes: list[str] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.events = list(yaml.parse(text, Loader=yaml.SafeLoader))
        self.at = 0
        self.aliased = {e.anchor for e in self.events if isinstance(e, yaml.AliasEvent)}

    def root(self) -> Node:
        while not isinstance(self.events[self.at], yaml.NodeEvent):
            self.at += 1
        return self.node()

    def node(self) -> Node:
        event = self.events[self.at]
        self.at += 1
        start = event.start_mark.index
        if isinstance(event, yaml.AliasEvent):
            return Node(start, event.end_mark.index, alias=True)
        if isinstance(event, yaml.ScalarEvent):
            return Node(start, start + len(self.text[start : event.end_mark.index].rstrip()), anchor=event.anchor)
        assert isinstance(event, yaml.CollectionStartEvent)
        entries: dict[str, tuple[int, Node]] | None = {} if isinstance(event, yaml.MappingStartEvent) else None
        end = start
        while not isinstance(self.events[self.at], yaml.CollectionEndEvent):
            if entries is None:
                end = self.node().end
                continue
            key = self.events[self.at]
            self.node()  # past the key (a complex key, which no boards.yaml has, is named "")
            value = self.node()
            entries[str(getattr(key, "value", ""))] = (key.start_mark.index, value)
            end = value.end
        closing = self.events[self.at]
        self.at += 1
        flow = bool(event.flow_style)
        return Node(start, closing.end_mark.index if flow else end, flow, event.anchor, entries=entries)


def _column(text: str, index: int) -> int:
    return index - (text.rfind("\n", 0, index) + 1)


def _folded(source: str, indent: int) -> str:
    lines = textwrap.wrap(source, width=max(60, 118 - indent), break_on_hyphens=False)
    return ">-\n" + "\n".join(" " * indent + line for line in lines)


class _Edits:
    def __init__(self, text: str, aliased: set[str]) -> None:
        self.text, self.aliased = text, aliased
        self.changes: list[tuple[int, int, str]] = []

    def shared(self, node: Node) -> bool:
        return node.alias or (node.anchor is not None and node.anchor in self.aliased)

    def layer(self, node: Node, values: dict[str, str], drop: tuple[str, ...] = ()) -> str | None:
        """Set `values` in mapping `node`, removing `drop`; why not, or None when done."""
        assert node.entries is not None
        if self.shared(node) or "<<" in node.entries:
            return "shared with another entry through a YAML anchor"
        if "nominal" in node.entries:
            return "its band is nominal with tolerance"
        if any(node.entries[key][1].anchor in self.aliased for key in values if key in node.entries):
            return "a value is shared through a YAML anchor"
        indent = _column(self.text, next(iter(node.entries.values()))[0]) if node.entries else 0
        added = []
        for key, value in values.items():
            if key in node.entries:
                spot = node.entries[key][1]
                self.changes.append((spot.start, spot.end, self._value(key, value, node, indent)))
            elif drop and drop[0] in node.entries:  # the dropped key's place takes this one
                where, old = node.entries[drop[0]]
                self.changes.append((where, old.end, f"{key}: {self._value(key, value, node, indent)}"))
                drop = drop[1:]
            else:
                added.append((key, value))
        if added:
            self._add(node, added, indent)
        return None

    def _value(self, key: str, value: str, node: Node, indent: int) -> str:
        if key != "source":
            return value
        return json.dumps(value, ensure_ascii=False) if node.flow else _folded(value, indent + 2)

    def _add(self, node: Node, added: list[tuple[str, str]], indent: int) -> None:
        if node.flow:
            text = "".join(f", {key}: {self._value(key, value, node, indent)}" for key, value in added)
            self.changes.append((node.end - 1, node.end - 1, text))
            return
        # After the last value, or before `params:` when it ends the mapping: a layer's own keys come first.
        last = [value for key, (_, value) in (node.entries or {}).items() if key != "params"]
        line_end = self.text.find("\n", last[-1].end if last else node.end)
        at = len(self.text) if line_end < 0 else line_end + 1
        lines = "".join(f"{' ' * indent}{key}: {self._value(key, value, node, indent)}\n" for key, value in added)
        self.changes.append((at, at, ("\n" if line_end < 0 else "") + lines))

    def apply(self) -> str:
        text = self.text
        for start, end, new in sorted(self.changes, key=lambda change: change[0], reverse=True):
            text = text[:start] + new + text[end:]
        return text


def _override(metric: Node, selector: str) -> Node | None:
    params = (metric.entries or {}).get("params")
    if params is None or params[1].entries is None:
        return None
    wanted = parse_selector(selector)
    return next((node for key, (_, node) in params[1].entries.items() if parse_selector(key) == wanted), None)


def _new_metric(edits: _Edits, metrics: Node, edit: MetricEdit) -> str | None:
    assert metrics.entries is not None
    if metrics.flow or not metrics.entries or edits.shared(metrics):
        return "the pair's metrics are not a block mapping of their own"
    indent = _column(edits.text, next(iter(metrics.entries.values()))[0])
    inner = " " * (indent + 2)
    lines = [f"{' ' * indent}{edit.metric}:", f"{inner}unit: {edit.unit}"]
    lines += [f"{inner}{key}: {value}" for key, value in edit.layers[None].items()]
    lines.append(f"{inner}source: {_folded(edit.source, indent + 4)}")
    line_end = edits.text.find("\n", metrics.end)
    at = len(edits.text) if line_end < 0 else line_end + 1
    edits.changes.append((at, at, "\n".join(lines) + "\n"))
    return None


def edit_inventory(text: str, pair: str, metric_edits: list[MetricEdit]) -> str:
    """boards.yaml's text with each metric's edit made; what could not be made is in that edit's notes."""
    parser = _Parser(text)
    edits = _Edits(text, parser.aliased)
    root = parser.root()
    pairs = (root.entries or {}).get("pairs")
    node = (pairs[1].entries or {}).get(pair) if pairs else None
    metrics = (node[1].entries or {}).get("metrics") if node else None
    for edit in metric_edits:
        if metrics is None or metrics[1].entries is None:
            edit.notes.append(f"{pair} has no metrics mapping in the file")
            continue
        entry = metrics[1].entries.get(edit.metric)
        if entry is None:
            why = _new_metric(edits, metrics[1], edit) if None in edit.layers else "no entry for it"
            if why:
                edit.notes.append(why)
            continue
        if edits.shared(entry[1]):
            edit.notes.append("the entry is shared with another through a YAML anchor")
            continue
        for selector, values in {**edit.layers, None: edit.layers.get(None, {})}.items():  # the source: the entry's
            target = entry[1] if selector is None else _override(entry[1], selector)
            if target is None or target.entries is None:
                edit.notes.append(f"params {selector}: not a mapping in the file")
                continue
            own = {**values, "source": edit.source} if selector is None else values
            if why := edits.layer(target, own, edit.drop if selector is None else ()):
                edit.notes.append(f"{'the entry' if selector is None else f'params {selector}'}: {why}")
    return edits.apply()
