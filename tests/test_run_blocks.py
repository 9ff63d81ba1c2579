"""Run in the page, as built: each runnable block's bar and output are in the page's HTML, where run.js
expects them (sitebuild/steps/run_blocks.py), so that loading a page adds nothing to its article."""

from __future__ import annotations

import html as html_lib
import json
import re

import pytest

from sitebuild.steps import run_blocks

PY = '<div class="language-python highlight"><pre><code>{code}\n</code></pre></div>'
TEXT = '<div class="language-text highlight"><pre><code>{code}\n</code></pre></div>'
RUN_CONFIG = re.compile(r'<script type="application/json" id="run-config">(.*?)</script>', re.S)
BAR = re.compile(r'<div class="run-bar(?: run-note)?" data-run-bar="(\d+)"')
TAGS = re.compile(r"<[^>]+>")
NEXT_PART = re.compile(
    r'data-run-block="|<h[1-6][\s>]|</article>'
    r'|<script type="application/json" id="run-config"'
)


def test_a_bar_follows_its_block_or_the_blocks_annotation_list():
    page = (
        PY.format(code="a = 1  # (1)!")
        + "\n<ol>\n<li>a list <ol><li>inside</li></ol> in an annotation</li>\n</ol>\n<p>prose</p>\n"
        + '<!-- pytest.mark.skip(reason="needs a GPU") -->\n'
        + PY.format(code="b = 2")
        + "<!-- pytest-codeblocks:expected-output -->\n"
        + TEXT.format(code="2")
        + PY.format(code="print(3)")  # right after the text block, no space between them
    )
    html, blocks = run_blocks.mark_markdown_page(page, "en")
    assert [b["skip"] for b in blocks] == [None, "needs a GPU", None]
    # block 0's bar after its annotations (nested list included), before the paragraph
    end_of_list = html.index("in an annotation</li>\n</ol>") + len("in an annotation</li>\n</ol>")
    assert html.index('<div class="run-bar" data-run-bar="0"') == end_of_list
    # the skipped block says why, with no button and no output
    skipped = html[html.index('data-run-bar="1"') : html.index("run-expected")]
    assert "This block does not run here: needs a GPU" in skipped
    # a page's note is the page's only copy of it: it shows without JavaScript and on paper (run-note)
    assert '<div class="run-bar run-note" data-run-bar="1"' in html
    assert "<button" not in skipped and "data-run-output" not in skipped
    # the expected output is labelled; the last block's bar and output close the page, in that order
    assert 'data-run-expected="1" data-label="Output"' in html
    assert html.endswith('aria-label="Output of this run"></output>')
    assert html.index('data-run-bar="2"') < html.index('data-run-output="2"')
    # each bar has Run, Stop (hidden), Reset (aria-disabled: it keeps the focus) and Restart Python (hidden)
    # until run.js has something to say; each button but Restart is named after its block
    bar0 = html[html.index('data-run-bar="0"') : html.index('data-run-output="0"')]
    assert re.findall(r'data-run="(\w+)"', bar0) == ["run", "stop", "reset", "restart"]
    assert 'data-run="stop" hidden aria-label="Stop block 1">Stop<' in bar0
    assert 'aria-disabled="true"' in bar0.split('data-run="reset"')[1].split(">")[0]
    assert 'data-run="run" aria-label="Run block 1">Run<' in bar0
    assert 'data-run="restart" hidden>Restart Python<' in bar0
    assert "data-search-exclude" in bar0


def test_a_lab_cells_bar_sits_inside_the_cell_after_its_code():
    cell = (
        '<div class="jp-Cell jp-CodeCell jp-Notebook-cell"><div class="jp-InputArea">'
        '<div class="highlight-ipynb hl-python"><pre>{code}</pre></div></div></div>'
    )
    html, blocks = run_blocks.mark_lab_page(
        cell.format(code="x = 1") + cell.format(code="import matplotlib"), "pt"
    )
    assert [b["skip"] for b in blocks] == [None, None]  # every lab cell runs in the page, figures included
    assert '<pre>x = 1</pre></div><div class="run-bar" data-run-bar="0"' in html
    assert 'data-run-output="0"' in html and 'data-run-output="1"' in html
    # the figure cell says who draws it in the browser (the page's stand-in for matplotlib)
    assert [b["limit"] for b in blocks] == [None, run_blocks.strings.of("pt")["run_limits"]["matplotlib"]]
    assert "substituto pequeno do matplotlib" in html
    assert "run-note" not in html  # a lab cell's reason is the browser's: it goes with the Run bars


def test_an_annotation_list_that_is_not_closed_fails_the_build():
    with pytest.raises(Exception, match="not closed"):
        run_blocks.mark_markdown_page(PY.format(code="a = 1") + "<ol><li>never closed", "en")


def test_every_built_page_has_one_bar_per_runnable_block_after_it(built_site):
    pages = 0
    for path in sorted(built_site.rglob("index.html")):
        text = path.read_text(encoding="utf-8")
        found = RUN_CONFIG.search(text)
        if not found:
            assert "data-run-bar" not in text, f"{path.relative_to(built_site)}: a Run bar without run-config"
            continue
        pages += 1
        blocks = json.loads(found.group(1))["blocks"]
        where = path.relative_to(built_site)
        assert [int(k) for k in BAR.findall(text)] == list(range(len(blocks))), (
            f"{where}: the bars are not one per block, in page order"
        )
        for k, block in enumerate(blocks):
            box, bar = text.index(f'data-run-block="{k}"'), text.index(f'data-run-bar="{k}"')
            assert box < bar and (k + 1 == len(blocks) or bar < text.index(f'data-run-block="{k + 1}"')), (
                f"{where}: block {k}'s bar is not between it and the next block"
            )
            assert (f'data-run-output="{k}"' in text) == (not block["skip"]), f"{where}: block {k}'s output"
    assert pages >= 20, f"only {pages} built pages have runnable blocks"


def notes_said_twice(text: str, blocks: list[dict]) -> list[str]:
    """The notes (why a block does not run here, or runs with a limit) that a page shows more than once
    under one block: between the block's bar and the next block, heading or the article's end. One line per
    note."""
    problems = []
    for k, block in enumerate(blocks):
        note = block.get("skip") or block.get("limit")
        if not note:
            continue
        start = text.index(f'data-run-bar="{k}"')
        after = NEXT_PART.search(text, start)
        part = text[start : after.start() if after else len(text)]
        shown = " ".join(html_lib.unescape(TAGS.sub(" ", part)).split())
        said = shown.count(" ".join(note.rstrip(".").split()))
        if said > 1:
            problems.append(f"block {k + 1} says {said} times: {note!r}")
    return problems


def test_a_note_said_twice_under_a_block_is_found():
    note = "it is a piece of the Tensor class, and the next block puts it to work."
    page = f'<!--pytest.mark.skip(reason="{note}")-->\n' + PY.format(code="def f(self): ...")
    elsewhere = "<p>prose</p>\n<h2>Next</h2>\n<p>" + note + "</p>"
    once, blocks = run_blocks.mark_markdown_page(page + elsewhere, "en")
    assert notes_said_twice(once, blocks) == []  # the same words under the next heading are another place
    twice, blocks = run_blocks.mark_markdown_page(page + f"<p><em>This listing: {note}</em></p>", "en")
    assert notes_said_twice(twice, blocks) == [f"block 1 says 2 times: {note!r}"]


def test_no_page_says_a_blocks_note_twice(built_site):
    """Page 06 used to write under six listings, in both languages, the note its Run bar writes too."""
    problems = []
    for path in sorted(built_site.rglob("index.html")):
        text = path.read_text(encoding="utf-8")
        found = RUN_CONFIG.search(text)
        if found:
            blocks = json.loads(found.group(1))["blocks"]
            problems += [f"{path.relative_to(built_site)}: {line}" for line in notes_said_twice(text, blocks)]
    assert not problems, "\n".join(problems)
