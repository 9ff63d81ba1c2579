"""A figure draws the very objects its page computes: run named sections of a lesson file.

A page shows code from snippets/lessons/<page>.py by named section (`# --8<-- [start:forward]` ...
`# --8<-- [end:forward]`). `run("worked_example.py", "forward")` runs those sections in order, in one
fresh namespace, with what they print swallowed, and returns the namespace. A figure script that uses a
lesson lists the file in `INPUTS`, so that the figure is redrawn when the lesson changes.

An explorer that takes the reader's numbers runs the same code with them in place of the book's:
`run("worked_example.py", "forward", given={"z": [0.5, 2.5, -1.0]})` puts that list where the section's
`z = culpa.Tensor([2.0, 1.0, 0.1], ...)` writes its literal (the first list of numbers in the value of the
assignment to `z`); a text replaces the first text literal instead: `given={"net": "tanh"}` makes
`net = culpa.nn.MLP(sizes, activation="sigmoid", rng=0)` build a tanh network with the same weights. A name
the sections never assign such a literal to is an error, not a silent book value.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import numpy as np

LESSONS = Path(__file__).resolve().parent.parent / "lessons"


def section(path: Path, name: str) -> str:
    """The code between the snippet markers `[start:name]` and `[end:name]` of `path`, at its own line
    numbers (blank lines before it), so that a traceback points into the lesson file."""
    text = path.read_text(encoding="utf-8")
    found = re.search(rf"^# --8<-- \[start:{re.escape(name)}\]\n(.*?)^# --8<-- \[end:{re.escape(name)}\]",
                      text, re.M | re.S)
    if found is None:
        raise LookupError(f"{path.name} has no section {name!r} (the figure expects it; was it renamed?)")
    return "\n" * text.count("\n", 0, found.start(1)) + found.group(1)


def run(lesson: str, *sections: str, given: dict | None = None) -> dict:
    """Run the named sections of snippets/lessons/<lesson> (all of it without names); their namespace.
    `given` maps names to lists of numbers (or to a text) put in place of the literals the sections assign
    them."""
    path = LESSONS / lesson
    parts = [(name, section(path, name)) for name in sections] or [("all", path.read_text(encoding="utf-8"))]
    if given:
        parts = _with_given(path, parts, given)
    namespace = {"__name__": f"lesson_{path.stem}"}
    printing = np.get_printoptions()  # a lesson may set them for its page; the build's process keeps its own
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for _, code in parts:
                exec(compile(code, str(path), "exec"), namespace)  # code: text, or a tree with given numbers
    finally:
        np.set_printoptions(**printing)
    return namespace


def _with_given(path: Path, parts: list, given: dict) -> list:
    """The sections' code (as syntax trees) with each name of `given` assigned the given list (or text)
    instead of the book's literal."""
    left = dict(given)
    trees = []
    for name, code in parts:
        tree = ast.parse(code, str(path))
        for node in tree.body:
            targets = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
            for target in [t for t in targets if t in left]:
                if isinstance(left[target], str):
                    literal = next((n for n in ast.walk(node.value) if isinstance(n, ast.Constant)
                                    and isinstance(n.value, str)), None)
                    if literal is not None:
                        literal.value = left.pop(target)
                    continue
                literal = next((n for n in ast.walk(node.value) if isinstance(n, ast.List | ast.Tuple)
                                and n.elts and all(_is_number(e) for e in n.elts)), None)
                if literal is None:
                    continue
                values = [float(v) for v in left.pop(target)]
                literal.elts = [ast.copy_location(ast.Constant(v), literal) for v in values]
        trees.append((name, tree))  # each new number has its literal's place (copy_location)
    if left:
        raise LookupError(f"{path.name}, sections {[n for n, _ in parts]}: no list of numbers (or text) is "
                          f"assigned to {sorted(left)}, so the reader's numbers have nowhere to go")
    return trees


def _is_number(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    value = getattr(node, "value", None)
    return isinstance(node, ast.Constant) and isinstance(value, int | float) and not isinstance(value, bool)
