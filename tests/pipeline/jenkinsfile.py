"""Read a Jenkinsfile the way the tests need it: its parameters' defaults and its steps, in file order.

A small Groovy tokenizer (comments, the four string quotings with their escapes, braces), not a Groovy
parser: enough to find `sh`, `junit` and the parameter declarations with their literal arguments
and to say in which stage or top-level function each step sits. Plain module: no pytest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "\\": "\\", "'": "'", '"': '"', "$": "$"}
_PARAMETERS = ("string", "booleanParam", "choice", "text", "password")


@dataclass
class Token:
    kind: str  # "str" (a literal), "gstr" (a double-quoted literal), "name", or the punctuation itself
    value: str
    line: int


@dataclass
class Step:
    name: str  # sh, junit, ...
    args: dict[str, object]  # keyword arguments with literal values; a plain first argument is "script"
    line: int
    stage: str | None  # innermost stage('...')
    function: str | None  # top-level function the step is written in (e.g. runBranch), None in pipeline {}
    post: str | None = None  # the `post { always { ... } }` condition it runs under (always, failure, ...)
    interpolated: list[str] = field(default_factory=list)  # arguments given as "..." strings (Groovy GStrings)


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char != "\\" or i + 1 == len(text):
            out.append(char)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "\n":  # a line continuation inside a string: both characters vanish
            i += 2
        elif nxt == "u":
            out.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
        elif nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            raise ValueError(f"unknown Groovy escape \\{nxt}")
    return "".join(out)


def tokenize(source: str) -> list[Token]:
    tokens: list[Token] = []
    i, line = 0, 1
    while i < len(source):
        rest = source[i:]
        if rest.startswith("//"):
            i = source.find("\n", i) if "\n" in rest else len(source)
            continue
        if rest.startswith("/*"):
            end = source.index("*/", i) + 2
            line += source.count("\n", i, end)
            i = end
            continue
        quote = next((q for q in ("'''", '"""', "'", '"') if rest.startswith(q)), None)
        if quote:
            j = i + len(quote)
            while not source.startswith(quote, j):
                j += 2 if source[j] == "\\" else 1
            raw = source[i + len(quote) : j]
            tokens.append(Token("gstr" if quote[0] == '"' else "str", _unescape(raw), line))
            line += raw.count("\n")
            i = j + len(quote)
            continue
        match = re.match(r"[A-Za-z_][A-Za-z0-9_]*", rest)
        if match:
            tokens.append(Token("name", match.group(), line))
            i += match.end()
            continue
        if rest[0] == "\n":
            line += 1
        elif not rest[0].isspace():
            tokens.append(Token(rest[0], rest[0], line))
        i += 1
    return tokens


def _literal(tokens: list[Token], start: int) -> tuple[object, int]:
    """A literal at tokens[start]: string, true/false, or a [list] of strings; (None, start+1) otherwise."""
    token = tokens[start]
    if token.kind in ("str", "gstr"):
        return token.value, start + 1
    if token.kind == "name" and token.value in ("true", "false"):
        return token.value == "true", start + 1
    if token.kind == "[":
        items, i = [], start + 1
        while tokens[i].kind != "]":
            if tokens[i].kind in ("str", "gstr"):
                items.append(tokens[i].value)
            i += 1
        return items, i + 1
    return None, start + 1


def _call_args(tokens: list[Token], open_paren: int) -> tuple[dict[str, object], list[str], int]:
    """Keyword arguments (name: literal) at depth 1 of the call opened at `open_paren`; returns past ')'."""
    args: dict[str, object] = {}
    interpolated: list[str] = []
    depth, i = 0, open_paren
    while True:
        token = tokens[i]
        if token.kind in "([":
            depth += 1
        elif token.kind in ")]":
            depth -= 1
            if depth == 0:
                return args, interpolated, i + 1
        elif depth == 1 and token.kind == "name" and tokens[i + 1].kind == ":":
            value, _ = _literal(tokens, i + 2)
            args[token.value] = value
            if tokens[i + 2].kind == "gstr":
                interpolated.append(token.value)
        elif depth == 1 and token.kind in ("str", "gstr") and i == open_paren + 1:
            args["script"] = token.value  # sh('...')
            if token.kind == "gstr":
                interpolated.append("script")
        i += 1


@dataclass
class Jenkinsfile:
    steps: list[Step]
    parameters: dict[str, object]  # name -> default (a choice's first value), as Jenkins would set it
    environment: dict[str, str]  # the pipeline's environment {} entries taken from a parameter: NAME -> parameter

    @classmethod
    def read(cls, path: Path, step_names: tuple[str, ...] = ("sh",)) -> Jenkinsfile:
        text = path.read_text(encoding="utf-8")
        tokens = tokenize(text)
        block = re.search(r"^    environment \{\n(.*?)^    \}", text, re.S | re.M)
        environment = dict(re.findall(r'^\s*(\w+) = "\$\{params\.(\w+)\}"$', block.group(1), re.M)) if block else {}
        steps: list[Step] = []
        parameters: dict[str, object] = {}
        scopes: list[tuple[str, str | None]] = []  # one per open brace: ("stage"|"function"|"post"|"", name)
        pending: tuple[str, str | None] = ("", None)
        i = 0
        while i < len(tokens):
            token = tokens[i]
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if token.kind == "{":
                scopes.append(pending)
                pending = ("", None)
            elif token.kind == "}":
                scopes.pop()
            elif token.kind == "name" and nxt is not None:
                if token.value == "stage" and nxt.kind == "(":
                    pending = ("stage", tokens[i + 2].value)
                elif token.value == "post" and nxt.kind == "{":
                    pending = ("post", None)
                elif scopes and scopes[-1] == ("post", None) and nxt.kind == "{":
                    pending = ("post", token.value)  # post { always {
                elif not scopes and nxt.kind == "name" and tokens[i + 2].kind == "(":
                    pending = ("function", nxt.value)  # `Map runBranch(String pairs) {` at the top level
                    i += 2
                    continue
                elif token.value in step_names or token.value in _PARAMETERS:
                    if nxt.kind == "(":
                        args, interpolated, end = _call_args(tokens, i + 1)
                    elif nxt.kind in ("str", "gstr"):  # sh '...'
                        args, interpolated, end = {"script": nxt.value}, ["script"] * (nxt.kind == "gstr"), i + 2
                    else:
                        i += 1
                        continue
                    if token.value in _PARAMETERS and "name" in args:
                        default = args.get("defaultValue", args.get("choices"))
                        parameters[str(args["name"])] = default[0] if isinstance(default, list) else default
                    elif token.value in step_names:
                        stage = next((name for kind, name in reversed(scopes) if kind == "stage"), None)
                        function = next((name for kind, name in scopes if kind == "function"), None)
                        post = next((name for kind, name in reversed(scopes) if kind == "post" and name), None)
                        steps.append(
                            Step(token.value, args, token.line, stage, function, interpolated=interpolated, post=post)
                        )
                    i = end
                    continue
            i += 1
        return cls(steps, parameters, environment)

    def main_steps(self) -> list[Step]:
        return [step for step in self.steps if step.function is None]

    def function_steps(self, function: str) -> list[Step]:
        return [step for step in self.steps if step.function == function]
