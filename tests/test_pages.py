"""Every page's code runs, prints what the page says it prints, and backs every number the prose states.

For each page of each language, the page's Python blocks (includes expanded) run in order in a fresh
interpreter, in an empty folder, with only the installed project importable. Then:
- each block followed by an expected-output fence must print exactly that;
- each number marker {{ literal <- expression | format }} must show the expression's value formatted
  for the page's language (0,659 in pt, 0.659 in en; numbers in math as the program prints them);
- a decimal or a four-digit number in the prose must be a marker (or listed in the page's
  `plain_numbers` front matter, for numbers no code computes: lesson numbers, years);
- a fence that looks like Python but that the runner would skip (```py, ```python title=...) fails,
  and a block that is deliberately not run must carry a reason that the reader sees.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from support.pages import (
    PYTHONISH_INFO,
    SKIP_REASON,
    all_pages,
    fences,
    prose_numbers,
    run_once,
    run_params,
)

PAGES = all_pages()
RUNNER = Path(__file__).parent / "support" / "run_page.py"


def run_page(page, tmp_path: Path) -> dict:
    blocks = [b for b in page.python_blocks if not any("skip" in m for m in b.marks)]
    markers = page.markers()
    payload = {
        "page": page.name,
        "blocks": [{"code": b.code, "line": b.line} for b in blocks],
        "markers": [{"expr": m.expr, "fmt": m.fmt} for m in markers],
    }

    # the code and the numbers asked for, without the page's name and the blocks' lines in its source (they
    # only name a block in a traceback, and a failed run is never shared): a translation runs the same
    same = json.dumps({"code": [b["code"] for b in payload["blocks"]], "markers": payload["markers"]})
    result = run_once(RUNNER, json.dumps(payload), same, tmp_path, page.name,
                      lambda r: all(o["error"] is None for o in r["outputs"])
                      and not any("error" in v for v in r["values"].values()))
    return {"blocks": blocks, "markers": markers, **result}


@pytest.mark.parametrize("page", run_params(PAGES))
def test_page_code_runs_and_prints_what_the_page_shows(page, tmp_path):
    result = run_page(page, tmp_path)
    for block, out in zip(result["blocks"], result["outputs"], strict=False):
        assert out["error"] is None, (
            f"{page.name}: the Python block at line {block.line} raised "
            f"(blocks of a page run in order in one interpreter):\n{out['error']}"
        )
        if block.expected_output is not None:
            assert out["stdout"] == block.expected_output, (
                f"{page.name}: the block at line {block.line} prints something else than the output "
                f"the page shows under it.\n--- page shows ---\n{block.expected_output}"
                f"--- code prints ---\n{out['stdout']}"
            )
    for marker in result["markers"]:
        value = result["values"][f"{marker.expr}|{marker.fmt}"]
        assert "error" not in value, (
            f"{page.name}, line {marker.line}: the number {marker.literal!r} is tied to "
            f"`{marker.expr}`, which fails after the page's code ran: {value.get('error')}"
        )
        expected = prose_numbers.localize(value["text"], page.lang, marker.in_math)
        assert marker.literal == expected, (
            f"{page.name}, line {marker.line}: the prose says {marker.literal!r} but the code computes "
            f"`{marker.expr}` = {expected!r} (formatted {marker.fmt!r} for '{page.lang}')"
        )


NUMBER_IN_PROSE = re.compile(r"(?<![\w.,\-])\d+(?:[.,]\d+)+(?![\w])|(?<![\w.,])\d{4,}(?![\w])")
NOT_PROSE = [
    re.compile(r"\{\{.*?\}\}"),  # number markers
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"<!--.*?-->"),  # comments (pytest-codeblocks markers)
    re.compile(r"\]\([^)]*\)"),  # link and image targets
    re.compile(r"<[^>]+>"),  # html tags and their attributes
    re.compile(r"--8<--.*"),  # includes
]


def unmarked_numbers(page) -> list[tuple[int, str]]:
    allowed = {str(n) for n in page.meta.get("plain_numbers", [])}
    found = []
    in_front_matter = page.text.startswith("---\n")
    for number, line, mask in prose_numbers.prose_lines(page.text):
        if in_front_matter:
            if number > 1 and line.strip() == "---":
                in_front_matter = False
            continue
        chars = list(line)
        for i, is_math in enumerate(mask):
            if is_math:
                chars[i] = " "
        text = "".join(chars)
        for pattern in NOT_PROSE:
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)
        for m in NUMBER_IN_PROSE.finditer(text):
            if m.group(0) not in allowed:
                found.append((number, m.group(0)))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.id)
def test_numbers_in_prose_are_tied_to_code(page):
    loose = unmarked_numbers(page)
    assert not loose, (
        f"{page.name}: numbers in the prose that no code backs: "
        + ", ".join(f"line {n}: {v}" for n, v in loose)
        + ". Write them as {{ LITERAL <- EXPRESSION | FORMAT }}, or, for a number that no code computes "
        "(a lesson number, a year), list it under `plain_numbers:` in the page's front matter."
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.id)
def test_no_python_block_is_skipped_silently(page):
    for line, info in fences(page.text):
        assert not (PYTHONISH_INFO.match(info) and info != "python"), (
            f"{page.name}, line {line}: the fence ```{info} looks like Python but the code-block runner "
            "only runs a bare ```python fence, so this block would never be tested. Write ```python."
        )
    for block in page.python_blocks:
        for mark in block.marks:
            if "skip" not in mark:
                continue
            reason = SKIP_REASON.search(mark)
            assert reason, f"{page.name}, line {block.line}: a skipped block needs skip(reason=...)"
            # the build says it under the block, once, in every medium (sitebuild/steps/run_blocks.py, its
            # "run-note"; tests/test_run_blocks.py): a page that says it too shows the note twice
            visible = re.sub(r"<!--.*?-->", "", page.text)
            assert reason.group("reason").strip() and reason.group("reason") not in visible, (
                f"{page.name}, line {block.line}: the block is not run ({reason.group('reason')!r}); "
                "the build writes that under the block, so the page must not say it again"
            )
