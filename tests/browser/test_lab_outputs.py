"""A lab's printed output, on a phone: a line longer than the column wraps (sitebuild/steps/notebook.css), so
nothing of what a cell printed hides sideways; the code cells keep their lines."""

from __future__ import annotations

import pytest
from visiting import NO_CHROMIUM, PHONE, find_chromium, in_ci, kept_tab

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

LABS = ["labs/build-check-train/", "en/labs/build-check-train/"]

OUTPUTS = """() => [...document.querySelectorAll('.jp-RenderedText pre')].map((pre) => ({
  text: pre.textContent.slice(0, 60), longest: Math.max(...pre.textContent.split('\\n').map((l) => l.length)),
  scroll: pre.parentElement.scrollWidth, width: pre.parentElement.clientWidth,
  wraps: getComputedStyle(pre).whiteSpace,
}))"""
CODE = """() => [...document.querySelectorAll('.highlight-ipynb pre')]
  .map((pre) => getComputedStyle(pre).whiteSpace)"""


@pytest.mark.parametrize("path", LABS)
def test_long_printed_lines_wrap_on_a_phone(browser, served_site, path):
    context, tab = kept_tab(browser, served_site.base + path, viewport=PHONE)
    try:
        outputs = tab.evaluate(OUTPUTS)
        code = tab.evaluate(CODE)
    finally:
        context.close()
    assert any(o["longest"] > 200 for o in outputs), f"{path}: no long printed line to look at: {outputs}"
    sideways = [o for o in outputs if o["scroll"] > o["width"] + 1]
    assert not sideways, f"{path}: printed output that scrolls sideways on a phone: {sideways}"
    assert code and set(code) == {"pre"}, f"{path}: code cells must keep their lines, got {set(code)}"
