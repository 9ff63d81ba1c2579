"""Run in the page, as a reader meets it before pressing Run: the bars the build put in the page.

- with JavaScript, each runnable block's code becomes editable (contenteditable, role textbox, a name)
  soon after the page has loaded, its bar's Run follows it in the keyboard's order, and no output box is
  drawn before a Run prints into it;
- without JavaScript, no bar, no output and no editable code: nothing would run them.
(Running, editing, Reset and Stop: tests/browser/test_run_in_page.py.)
"""

from __future__ import annotations

import pytest
from visiting import NO_CHROMIUM, find_chromium, in_ci, kept_tab, wait_until

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

PAGES = {"pt": "03-worked-example/", "en": "en/03-worked-example/"}
RUN = {"pt": "Executar", "en": "Run"}

STATE = """() => [...document.querySelectorAll('[data-run-block]:not([data-run-skip])')].map((box) => {
  const code = box.querySelector('code') || box.querySelector('pre');
  const k = box.dataset.runBlock;
  const bar = document.querySelector(`[data-run-bar="${k}"]`);
  return {
    k, editable: code.getAttribute('contenteditable'), role: code.getAttribute('role'),
    label: code.getAttribute('aria-label') || '',
    bar: bar ? getComputedStyle(bar).display : null,
    run: bar && bar.querySelector('[data-run="run"]')?.textContent,
  };
})"""


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_code_becomes_editable_and_tab_goes_from_code_to_run(browser, served_site, lang):
    context, tab = kept_tab(browser, served_site.base + PAGES[lang])
    try:
        wait_until(tab, """() => [...document.querySelectorAll('[data-run-block]:not([data-run-skip])')]
          .every((box) => (box.querySelector('code') || box.querySelector('pre')).isContentEditable)""",
                        timeout=10_000)
        blocks = tab.evaluate(STATE)
        outputs_shown = tab.locator(".run-output:visible").count()  # nothing has run yet
        # keyboard: focus the first block's code, Tab leaves it for its bar's Run (no annotation in between
        # takes the focus away from the code for good: Material's annotation buttons come first)
        code = tab.locator('[data-run-block="0"] code')
        code.focus()
        names = []
        for _ in range(6):
            tab.keyboard.press("Tab")
            names.append(tab.evaluate("document.activeElement.textContent.trim()"))
            if names[-1] == RUN[lang]:
                break
        focused_run = tab.evaluate("document.activeElement.closest('[data-run-bar]')?.dataset.runBar")
    finally:
        context.close()
    assert blocks, f"{PAGES[lang]}: no runnable block"
    for b in blocks:
        assert b["editable"] == "plaintext-only" and b["role"] == "textbox", f"{PAGES[lang]} block {b}"
        assert b["label"].strip() and b["bar"] != "none" and b["run"] == RUN[lang], f"{PAGES[lang]} block {b}"
    assert outputs_shown == 0, f"{PAGES[lang]}: {outputs_shown} empty outputs drawn before any Run"
    assert focused_run == "0", f"{PAGES[lang]}: Tab from block 0's code went through {names}, not to its Run"


@pytest.mark.parametrize("path", [PAGES["pt"], "labs/build-check-train/"])
def test_without_javascript_no_bar_and_no_editable_code(browser, served_site, path):
    context, tab = kept_tab(browser, served_site.base + path, java_script_enabled=False)
    try:
        shown = tab.locator(".run-bar:visible, .run-output:visible").count()
        bars = tab.locator(".run-bar").count()
        editable = tab.locator("[contenteditable]").count()
    finally:
        context.close()
    assert bars > 0, f"{path}: no Run bars in its HTML"
    assert shown == 0, f"{path}: {shown} Run bars or outputs shown without JavaScript"
    assert editable == 0, f"{path}: {editable} editable elements without JavaScript"
