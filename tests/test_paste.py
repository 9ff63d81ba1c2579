"""Every page's code pastes cleanly into the standard Python prompt, and prints what the page shows.

A reader copies a block and pastes it into `python`. The prompt reads the paste line by line: a blank line
closes an indented block (so a blank line inside a function body ends the function, and the next indented
line is an IndentationError), and unindented code right after an indented block, with no blank line
between, is a SyntaxError. `code.InteractiveConsole` is that prompt's reading loop; each page's Python
blocks (includes expanded, as the reader sees them) are fed to one console per page, line by line, in page
order, with the Enter a reader presses after a paste that leaves the prompt at "...". Then what the block
printed must equal the output the page shows under it, exactly as tests/test_pages.py compares it, and
nothing may be written to the console's error stream. The prompt also echoes the value of a bare
expression: a block that leaves one would print more than the page shows, and fails too.

Each page runs in a fresh interpreter in an empty folder (this file run as a script), both languages.
"""

from __future__ import annotations

import code
import contextlib
import io
import json
import re
import sys
from pathlib import Path

import pytest

if __name__ != "__main__":  # under pytest; run as a script (below), this file needs nothing of the repo
    from support.pages import all_pages, expand_snippets, run_once, run_params
else:
    def run_params(pages):  # run as a script: there are no tests to parametrize
        return []

HERE = Path(__file__).resolve()


def paste_blocks(blocks: list[str]) -> list[dict]:
    """Feed each block to one InteractiveConsole as the prompt reads a paste; what each printed."""
    errors: list[str] = []

    class Prompt(code.InteractiveConsole):
        def write(self, data):
            errors.append(data)

    console = Prompt(locals={"__name__": "__main__", "__builtins__": __builtins__})
    results = []
    for block in blocks:
        errors.clear()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            waiting = False
            for line in block.splitlines():
                waiting = console.push(line)
            if waiting:  # the prompt shows "...": the reader presses Enter once
                waiting = console.push("")
        results.append({"stdout": out.getvalue(), "errors": "".join(errors), "waiting": waiting})
        if errors:
            break
    return results


FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)[ \t]*(?P<info>[^\n]*)\n"
    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.S | re.M,
)


def shown_code(page) -> list[str]:
    """The code of each Python block as the page shows it (the reader copies that), includes expanded.

    pytest-codeblocks drops the blank lines of a fence indented under an admonition or a list item; the
    page keeps them, and they are what the prompt stumbles on, so the fences are read here, dedented."""
    text = expand_snippets(page.text)
    found = []
    for m in FENCE.finditer(text):
        if m.group("info").strip() != "python":
            continue
        indent = m.group("indent")
        lines = m.group("body").splitlines(keepends=True)
        found.append(
            "".join(line[len(indent) :] if line.startswith(indent) else line.lstrip(" \t") for line in lines)
        )
    blocks = page.python_blocks
    assert len(found) == len(blocks), (
        f"{page.name}: found {len(found)} Python fences, the page runner {len(blocks)}"
    )
    for code_shown, block in zip(found, blocks, strict=True):
        squeeze = lambda c: [line for line in c.splitlines() if line.strip()]  # noqa: E731
        assert squeeze(code_shown) == squeeze(block.code), f"{page.name}, line {block.line}: fences misread"
    return found


PAGES = all_pages() if __name__ != "__main__" else []


@pytest.mark.parametrize("page", run_params(PAGES))
def test_every_block_pastes_into_the_python_prompt_and_prints_what_the_page_shows(page, tmp_path):
    codes = shown_code(page)
    pairs = [
        (b, c)
        for b, c in zip(page.python_blocks, codes, strict=True)
        if not any("skip" in m for m in b.marks)
    ]
    blocks = [b for b, _ in pairs]
    assert blocks, f"{page.name} has no Python block to paste"
    payload = json.dumps([c for _, c in pairs])

    results = run_once(HERE, payload, payload, tmp_path, page.name, lambda r: not any(x["errors"] for x in r))
    for block, result in zip(blocks, results, strict=False):
        assert not result["errors"], (
            f"{page.name}: the block at line {block.line} does not paste into the Python prompt "
            f"(a blank line inside an indented body ends it; unindented code right after an indented "
            f"block needs a blank line between):\n{result['errors']}"
        )
        if block.expected_output is not None:
            assert result["stdout"] == block.expected_output, (
                f"{page.name}: pasted into the Python prompt, the block at line {block.line} prints "
                f"something else than the output the page shows (a bare expression is echoed by the "
                f"prompt).\n--- page shows ---\n{block.expected_output}--- the prompt prints ---\n"
                f"{result['stdout']}"
            )
    assert len(results) == len(blocks)


if __name__ == "__main__":
    payload, result = sys.argv[1], sys.argv[2]
    blocks = json.loads(Path(payload).read_text(encoding="utf-8"))
    Path(result).write_text(json.dumps(paste_blocks(blocks)), encoding="utf-8")
