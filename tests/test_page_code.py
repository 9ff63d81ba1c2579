"""A page's code as one .py to download (sitebuild/steps/page_code.py), checked on the session's build.

For every page of both languages that has a Python block (the chapters, the short path, the home page):
- the built site serves `<name>.py` beside the page, and the page links it;
- every Python block of the page (as tests/support/pages.py reads it: snippets expanded, culpa's listings
  in the page's language as sitebuild/steps/culpa_listings.py shows them) is in the file, in page order,
  each followed by the output the page shows under it, as comments; a block the page does not run is there
  too, commented out;
- the file, run with `python` in a fresh folder with only the installed culpa importable, exits 0 and prints
  every output the page shows, in order. A page and its translation whose files hold the same code,
  comments aside (their comments, the shown outputs among them, are in their languages), run it once.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from sitebuild.steps import page_code
from support.pages import all_pages, as_shown, run_params

PAGES = [p for p in all_pages() if p.python_blocks]


def served(built_site: Path, page) -> tuple[Path, Path]:
    """(the page's HTML, its .py) in the built site."""
    stem = Path(page.rel).stem
    folder = built_site / ("" if page.lang == "pt" else page.lang) / ("" if stem == "index" else stem)
    return folder / "index.html", folder / page_code.file_name(f"{page.lang}/{page.rel}")


def runs(block) -> bool:
    return not any("skip" in mark for mark in block.marks)


BETWEEN_LINES = r"\n(?:[ \t]*#?[ \t]*\n)*"


def missing_blocks(page, text: str) -> list[str]:
    """The page's Python blocks (and shown outputs) that the file lacks, in page order: each must come
    after the one before it."""
    missing, pos = [], 0
    for n, block in enumerate(page.python_blocks, start=1):
        code = [ln for ln in page_code.without_annotations(block.code).split("\n") if ln.strip()]
        body = code if runs(block) else [f"# {ln}" for ln in code]
        # pytest-codeblocks drops the blank lines of a block indented in an admonition: lines in order,
        # blank (or a bare "#") lines allowed between them
        pattern = BETWEEN_LINES.join(re.escape(ln) for ln in body)
        if block.expected_output is not None:
            shown = [f"# {ln}".rstrip() for ln in block.expected_output.rstrip("\n").split("\n")]
            pattern += r"\n# [^\n]+\n" + re.escape("\n".join(shown))
        found = re.compile(pattern).search(text, pos)
        if found is None:
            missing.append(f"block {n} (line {block.line} of {page.name})"
                           + (" with its shown output" if block.expected_output is not None else ""))
        else:
            pos = found.end()
    return missing


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.id)
def test_the_page_links_its_code_and_the_file_holds_every_block(built_site, page):
    html_path, py_path = served(built_site, page)
    assert py_path.is_file(), f"{page.name}: the built site has no {py_path.relative_to(built_site)}"
    html = html_path.read_text(encoding="utf-8")
    link = rf'<p class="page-code"[^>]*><a [^>]*href="{re.escape(py_path.name)}" download>'
    assert re.search(link, html), (
        f"{page.name}: the page does not link its code ({py_path.name})"
    )
    missing = missing_blocks(as_shown(page), py_path.read_text(encoding="utf-8"))
    assert not missing, f"{page.name}: its .py ({py_path.name}) lacks, or has out of order: " + "; ".join(
        missing
    )


def test_a_lab_or_a_page_without_python_gets_no_file(built_site):
    for lab in sorted((built_site / "labs").glob("*/index.html")):
        assert 'class="page-code"' not in lab.read_text(encoding="utf-8"), f"{lab}: a lab offers its notebook"
        assert not list(lab.parent.glob("*.py")), f"{lab.parent}: a lab got a .py"


def code_without_comments(text: str) -> tuple:
    """The file's Python tokens, comments and blank lines left out: two downloads with the same tokens (a
    page and its translation: their comments, the page's outputs among them, are in their languages) run
    the very same code."""
    drop = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING}
    return tuple((t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                 if t.type not in drop)


_FILE_RUNS: dict[tuple, subprocess.CompletedProcess] = {}


def run_downloaded(py_path: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """`python -I` the downloaded file in a fresh folder with only the installed culpa importable; a file
    whose code (comments aside) already ran and exited 0 is not run again."""
    key = code_without_comments(py_path.read_text(encoding="utf-8"))
    if key in _FILE_RUNS:
        return _FILE_RUNS[key]
    work = tmp_path / "reader"
    work.mkdir()
    shutil.copy(py_path, work / py_path.name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLBACKEND"] = "Agg"
    proc = subprocess.run([sys.executable, "-I", py_path.name], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode == 0:  # a failure is never shared: each page's test names its own
        _FILE_RUNS[key] = proc
    return proc


@pytest.mark.parametrize("page", run_params(PAGES))
def test_the_downloaded_file_runs_and_prints_the_page_outputs(built_site, page, tmp_path):
    _, py_path = served(built_site, page)
    proc = run_downloaded(py_path, tmp_path)
    assert proc.returncode == 0, (
        f"{page.name}: python {py_path.name} exited {proc.returncode}:\n{proc.stderr}"
    )
    pos = 0
    for block in page.python_blocks:
        if block.expected_output is None:
            continue
        at = proc.stdout.find(block.expected_output, pos)
        assert at >= 0, (
            f"{page.name}: python {py_path.name} does not print, after what came before, the output the page "
            f"shows under its block at line {block.line}:\n--- page shows ---\n{block.expected_output}"
            f"--- the file printed, from there on ---\n{proc.stdout[pos:pos + 2000]}"
        )
        pos = at + len(block.expected_output)


HTML_BLOCKS = """<h1>T</h1>
<div class="language-python highlight"><pre><span></span><code>x = 1  <span class="c1"># (1)!</span>
print(x &lt; 2)
</code></pre></div>
<!-- pytest-codeblocks:expected-output -->
<div class="language-text highlight"><pre><span></span><code>True
</code></pre></div>
<!--pytest.mark.skip(reason="a fragment")-->
<div class="language-python highlight"><pre><span></span><code>def f(self):

    return self
</code></pre></div>
"""


def test_the_file_is_the_blocks_in_order_with_outputs_and_skipped_blocks_commented():
    blocks = page_code.blocks_of(HTML_BLOCKS)
    assert blocks == [
        {"code": "x = 1  # (1)!\nprint(x < 2)\n", "skip": None, "output": "True\n"},
        {"code": "def f(self):\n\n    return self\n", "skip": "a fragment", "output": None},
    ]
    text = page_code.script(blocks, "en", title="T", page_url="https://x/t/", install="https://x/c.whl",
                            name="t.py")
    assert "x = 1\nprint(x < 2)\n# Output:\n# True\n" in text
    assert "a fragment\n# def f(self):\n#\n#     return self\n" in text
    assert "(1)!" not in text
    compile(text, "t.py", "exec")
    assert page_code.download_link(HTML_BLOCKS, "t.py", "pt").startswith(
        '<h1>T</h1><p class="page-code" data-search-exclude><a class="md-button" href="t.py" download>'
        "Baixar o código"
    )
    assert page_code.file_name("en/index.md") == "home.py"
    assert page_code.file_name("pt/03-worked-example.md") == "03-worked-example.py"
