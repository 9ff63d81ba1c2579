"""A figure draws the very objects its page computes: run named sections of a lesson file.

A page shows code from snippets/lessons/<page>.py by named section (`# --8<-- [start:forward]` ...
`# --8<-- [end:forward]`). `run("worked_example.py", "forward")` runs those sections in order, in one
fresh namespace, with what they print swallowed, and returns the namespace. A figure script that uses a
lesson lists the file in `INPUTS`, so that the figure is redrawn when the lesson changes.
"""

from __future__ import annotations

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


def run(lesson: str, *sections: str) -> dict:
    """Run the named sections of snippets/lessons/<lesson> (all of it without names); their namespace."""
    path = LESSONS / lesson
    parts = [(name, section(path, name)) for name in sections] or [("all", path.read_text(encoding="utf-8"))]
    namespace = {"__name__": f"lesson_{path.stem}"}
    printing = np.get_printoptions()  # a lesson may set them for its page; the build's process keeps its own
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for _, code in parts:
                exec(compile(code, str(path), "exec"), namespace)
    finally:
        np.set_printoptions(**printing)
    return namespace
