"""Run in the page, as built: each runnable block's bar and output are in the page's HTML, where run.js
expects them (sitebuild/steps/run_blocks.py), so that loading a page adds nothing to its article."""

from __future__ import annotations

import json
import re

import pytest

from sitebuild.steps import run_blocks

PY = '<div class="language-python highlight"><pre><code>{code}\n</code></pre></div>'
TEXT = '<div class="language-text highlight"><pre><code>{code}\n</code></pre></div>'
RUN_CONFIG = re.compile(r'<script type="application/json" id="run-config">(.*?)</script>', re.S)
BAR = re.compile(r'<div class="run-bar" data-run-bar="(\d+)"')


def test_a_bar_follows_its_block_or_the_blocks_annotation_list():
    page = (
        PY.format(code="a = 1  # (1)!")
        + "\n<ol>\n<li>a list <ol><li>inside</li></ol> in an annotation</li>\n</ol>\n<p>prose</p>\n"
        + "<!-- pytest.mark.skip(reason=\"needs a GPU\") -->\n"
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
    skipped = html[html.index('data-run-bar="1"'):html.index("run-expected")]
    assert "This block does not run here: needs a GPU" in skipped
    assert "<button" not in skipped and "data-run-output" not in skipped
    # the expected output is labelled; the last block's bar and output close the page, in that order
    assert 'data-run-expected="1" data-label="Output"' in html
    assert html.endswith('aria-label="Output of this run"></output>')
    assert html.index('data-run-bar="2"') < html.index('data-run-output="2"')
    # each bar has Run, Stop (hidden), Reset (aria-disabled: it keeps the focus) and Restart Python (hidden)
    # until run.js has something to say; each button but Restart is named after its block
    bar0 = html[html.index('data-run-bar="0"'):html.index('data-run-output="0"')]
    assert re.findall(r'data-run="(\w+)"', bar0) == ["run", "stop", "reset", "restart"]
    assert 'data-run="stop" hidden aria-label="Stop block 1">Stop<' in bar0
    assert 'aria-disabled="true"' in bar0.split('data-run="reset"')[1].split(">")[0]
    assert 'data-run="run" aria-label="Run block 1">Run<' in bar0
    assert 'data-run="restart" hidden>Restart Python<' in bar0
    assert "data-search-exclude" in bar0


def test_a_lab_cells_bar_sits_inside_the_cell_after_its_code():
    cell = ('<div class="jp-Cell jp-CodeCell jp-Notebook-cell"><div class="jp-InputArea">'
            '<div class="highlight-ipynb hl-python"><pre>{code}</pre></div></div></div>')
    html, blocks = run_blocks.mark_lab_page(cell.format(code="x = 1") + cell.format(code="import matplotlib"),
                                            "pt")
    assert [b["skip"] is None for b in blocks] == [True, False]
    assert '<pre>x = 1</pre></div><div class="run-bar" data-run-bar="0"' in html
    assert 'data-run-output="0"' in html and 'data-run-output="1"' not in html
    assert "Este bloco não roda aqui: usa o matplotlib" in html


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
            f"{where}: the bars are not one per block, in page order")
        for k, block in enumerate(blocks):
            box, bar = text.index(f'data-run-block="{k}"'), text.index(f'data-run-bar="{k}"')
            assert box < bar and (k + 1 == len(blocks) or bar < text.index(f'data-run-block="{k + 1}"')), (
                f"{where}: block {k}'s bar is not between it and the next block")
            assert (f'data-run-output="{k}"' in text) == (not block["skip"]), f"{where}: block {k}'s output"
    assert pages >= 20, f"only {pages} built pages have runnable blocks"
