"""YAML files hil reads from users (boards.yaml, labgrid env files), bounded before anything parses them.

A YAML file is input like any other: `--boards /dev/zero` must not read forever, a 300-byte file of nested
aliases must not expand into billions of nodes, and 3000 nested brackets must not exhaust Python's
recursion. Each is refused with a YamlProblem naming the line, before PyYAML or labgrid builds anything.
"""

from __future__ import annotations

import math
import stat
from pathlib import Path

import yaml

MAX_BYTES = 4 * 1024 * 1024  # an inventory of 50 pairs is ~50 KB; a labgrid env file a few KB
MAX_DEPTH = 64  # nesting of mappings and sequences; boards.yaml needs 6, a labgrid env file 5
MAX_NODES = 100_000  # nodes after alias expansion; a real inventory of 50 pairs has a few thousand


class YamlProblem(ValueError):
    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message

    @classmethod
    def of(cls, exc: yaml.YAMLError) -> YamlProblem:
        """PyYAML's error (composing or constructing) with the line it names."""
        if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
            return cls(None, f"not valid YAML: {exc}")
        problem = f"not valid YAML: {exc.problem}"
        if exc.context and exc.context_mark is not None:
            problem += f" ({exc.context} on line {exc.context_mark.line + 1})"
        return cls(exc.problem_mark.line + 1, problem)


def read_text(path: Path) -> str:
    """The file's text: a regular file of at most MAX_BYTES, UTF-8."""
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):
            raise YamlProblem(None, "not a regular file (a device, a pipe or a directory is no YAML file)")
        if status.st_size > MAX_BYTES:
            raise YamlProblem(None, f"{status.st_size} bytes: larger than the {MAX_BYTES} accepted")
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError as exc:
        raise YamlProblem(None, f"cannot read: {exc.strerror}") from None
    if len(data) > MAX_BYTES:
        raise YamlProblem(None, f"larger than the {MAX_BYTES} bytes accepted")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise YamlProblem(line, f"not UTF-8 text (byte {data[exc.start]:#x})") from None


def compose(text: str) -> yaml.Node | None:
    """The YAML node tree (aliases not expanded), refused when too deep or too large once expanded."""
    _check_depth(text)
    try:
        tree = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise YamlProblem.of(exc) from None
    if tree is None:
        return None
    try:
        size = expanded_size(tree, {})
    except RecursionError:
        raise YamlProblem(1, "refused: its aliases nest too deeply") from None
    if size > MAX_NODES:
        why = "an alias refers to itself" if math.isinf(size) else f"{size:.3g} nodes once its aliases are expanded"
        raise YamlProblem(1, f"refused: {why} (at most {MAX_NODES} are accepted)")
    _refuse_binary(tree, set())
    return tree


BINARY = "tag:yaml.org,2002:binary"


def _refuse_binary(node: yaml.Node, seen: set[int]) -> None:
    """`!!binary` makes bytes, which no setting is: refused with its line, not compared as b'3' to 3 later."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if node.tag == BINARY:
        raise YamlProblem(node.start_mark.line + 1, "refused: !!binary gives bytes, and no value here is bytes")
    for child in _children(node):
        _refuse_binary(child, seen)


def _children(node: yaml.Node) -> list[yaml.Node]:
    """A mapping's keys and values, a sequence's items, nothing for a scalar or an alias."""
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return node.value if isinstance(node, yaml.SequenceNode) else []


def _check_depth(text: str) -> None:
    """PyYAML's parser is iterative, its composer recursive: the depth is measured on the events first."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    line = event.start_mark.line + 1 if event.start_mark is not None else None
                    raise YamlProblem(line, f"refused: nested deeper than {MAX_DEPTH} levels")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return  # compose reports the syntax error with its line


def expanded_size(node: yaml.Node, memo: dict[int, float]) -> float:
    """Nodes the tree would have with every alias expanded (inf for a recursive alias)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = math.inf  # while inside this node: meeting it again means it contains itself
    memo[key] = 1 + sum(expanded_size(child, memo) for child in _children(node))
    return memo[key]


def check_file(path: Path) -> str:
    """A user's YAML file read and bounded (its text, for a loader of its own such as labgrid's)."""
    text = read_text(path)
    compose(text)
    return text
