"""Run in the page, when things go wrong, and for a reader on the keyboard or a screen reader.

- Python that cannot be loaded (a planted 404 for pyodide.asm.wasm, then for worker.js, then for culpa's
  wheel, in one page: Try again after each begins loading anew, as far as the next file planted missing)
  says what failed within seconds, naming the file once, and Try again, with every file back, works; a
  download cut halfway says so within seconds, and one that never ends is named when the watchdog gives up;
- a traceback printed after 3,000 lines is still shown (printed output and errors are cut separately), and
  one 300,000-character line says how many characters were left out;
- input(), js.close() and an asyncio task left pending each get a clear outcome, and the next Run works;
- Restart Python is offered whenever nothing runs, and gives a fresh interpreter;
- after Run, Stop and Reset the focus is on a control, not on the page; each button is named after its
  block; the end of every run is announced;
- a block whose code holds "<!--<script>" cannot break the page's run-config (tested on the config as the
  build writes it, in Chromium's own HTML parser).
The pages are driven in one session, in the background (support/background.py); each test reads its step.
Both languages: the strings come from the page (sitebuild/strings/, through sitebuild/steps/run_blocks.py).
"""

from __future__ import annotations

import contextlib
import json
import time

import pytest
from visiting import NO_CHROMIUM, find_chromium, in_ci, open_local, wait_until

from sitebuild.steps import run_blocks
from support.background import outcome, record_steps, session_fixture

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

PAGES = {"pt": "03-worked-example/", "en": "en/03-worked-example/"}
LOAD_MS = 180_000  # a cold Pyodide on a busy 2-core machine
DONE = "(el) => el.dataset.state && el.dataset.state !== 'running'"
WHEEL = "culpa-"  # culpa's wheel, <site>/culpa/culpa-VERSION-py3-none-any.whl
MISSING = ["pyodide.asm.wasm", "worker.js", WHEEL]
WASM = "**/pyodide.asm.wasm*"
ACTIVE = """() => { const a = document.activeElement;
  return a ? (a.dataset.run || a.getAttribute('role') || a.tagName.toLowerCase()) : null; }"""


def strings(tab) -> dict:
    return json.loads(tab.locator("#run-config").text_content())["strings"]


def block(tab, k: int):
    box = tab.locator(f'[data-run-block="{k}"]')
    return {
        "code": box.locator('code[role="textbox"]'),  # not the code in an annotation Material mounts
        "run": tab.locator(f'[data-run-bar="{k}"] [data-run="run"]'),
        "stop": tab.locator(f'[data-run-bar="{k}"] [data-run="stop"]'),
        "reset": tab.locator(f'[data-run-bar="{k}"] [data-run="reset"]'),
        "restart": tab.locator(f'[data-run-bar="{k}"] [data-run="restart"]'),
        "output": tab.locator(f'[data-run-output="{k}"]'),
    }


def set_code(tab, b, text: str) -> None:
    b["code"].click()
    tab.keyboard.press("ControlOrMeta+a")
    tab.keyboard.press("Delete")
    tab.keyboard.insert_text(text)


def run_and_wait(tab, b, timeout=LOAD_MS) -> str:
    b["run"].focus()
    tab.keyboard.press("Enter")
    tab.wait_for_timeout(50)
    wait_until(tab, DONE, arg=b["output"].element_handle(), timeout=timeout)
    return b["output"].text_content()


def announced(tab, expected: str) -> str:
    wait_until(tab, "(t) => document.querySelector('.run-announce')?.textContent === t", arg=expected,
                    timeout=5_000)
    return expected


def press_and_fail(tab, b, button) -> tuple[str, float]:
    """button (Run, or Try again) pressed from the keyboard while Python cannot load: what the block said,
    and how fast."""
    button.focus()
    started = time.perf_counter()
    tab.keyboard.press("Enter")  # the output, and the old Try again with it, is cleared at once
    tab.wait_for_selector('[data-run-output="0"] .run-retry', timeout=60_000)
    return b["output"].text_content(), time.perf_counter() - started


def cut_and_stalled(context, tab, b) -> dict:
    """Once Python has run: Restart Python, then Run with pyodide.asm.wasm's download cut (the request
    aborted), then Try again with it never answering and the watchdog shortened to 3 s
    (window.culpaLoadTimeoutS, read when an interpreter starts). What the block said each time, or the
    error that stopped it."""
    seen: dict = {}
    held: list = []
    try:
        b["restart"].focus()
        tab.keyboard.press("Enter")
        context.route(WASM, lambda route: route.abort("connectionreset"))
        seen["cut"], seen["cut_seconds"] = press_and_fail(tab, b, b["run"])
        context.unroute(WASM)
        context.route(WASM, lambda route: held.append(route))  # never answered
        tab.evaluate("window.culpaLoadTimeoutS = 3")
        seen["stalled"], _ = press_and_fail(tab, b, b["output"].locator(".run-retry"))
    except Exception as error:  # the test of the cut download fails with it; the others keep their results
        seen["error"] = error
    for route in held:
        with contextlib.suppress(Exception):  # its worker is gone, and the request with it
            route.abort()
    return seen


def cannot_load(browser, served_site, lang) -> dict:
    """Page 03's first block, with each file of MISSING answering 404 in turn: Run with the first missing,
    then Try again with the next one missing (and the one before back), and so on; then Try again with
    every file back. For each file: what the block said, how fast, where the focus was, what was announced,
    and what the next press of Try again did (the next file's failure: loading began anew; after the last,
    the block's run). Then, Python restarted: a download cut, and one that never ends."""
    context, tab = open_local(browser, served_site.base + PAGES[lang])
    found: dict = {}
    try:
        s = strings(tab)
        wheel = json.loads(tab.locator("#run-config").text_content())["wheel"].rsplit("/", 1)[-1]
        b = block(tab, 0)
        button, planted = b["run"], None
        for missing in MISSING:
            if planted:
                context.unroute(planted)
            planted = f"**/{missing}*"
            context.route(planted, lambda route: route.fulfill(status=404, body="planted 404"))
            text, seconds = press_and_fail(tab, b, button)
            button = b["output"].locator(".run-retry")
            found[missing] = {
                "text": text,
                "seconds": seconds,
                "focus": tab.evaluate(ACTIVE),
                "retry": button.text_content(),
                "heard": announced(tab, s["finishedError"].format(n=1, error=text.split("\n")[0].strip())),
            }
        # the reader's network is back: Try again loads Python and runs the block
        context.unroute(planted)
        button.focus()
        tab.keyboard.press("Enter")
        tab.wait_for_timeout(50)
        wait_until(tab, DONE, arg=b["output"].element_handle(), timeout=LOAD_MS)
        for missing, after in zip(MISSING, MISSING[1:], strict=False):
            found[missing]["next"] = found[after]["text"]
        found[MISSING[-1]]["next"] = b["output"].text_content()
        found["state"] = b["output"].get_attribute("data-state")
        found["cut"] = cut_and_stalled(context, tab, b)
    finally:
        context.close()
    return {"s": s, "wheel": wheel, **found}


@pytest.mark.parametrize("lang", ["pt", "en"])
@pytest.mark.parametrize("missing", MISSING)
def test_python_that_cannot_load_says_so_and_try_again_works(runs, lang, missing):
    chain = outcome(runs, ("cannot load", lang))
    s, got = chain["s"], chain[missing]
    text, seconds, focus, heard = got["text"], got["seconds"], got["focus"], got["heard"]
    assert got["retry"] == s["retry"]
    prefix = s["failedToLoad"].split("{")[0]
    assert text.startswith(prefix), f"{missing} missing: the block says {text!r}"
    assert text.count(prefix) == 1, f"{missing} missing: said more than once: {text!r}"
    # the file by its name, once, with the server's answer, and no raw message of the browser's or Pyodide's,
    # nor an address
    name = chain["wheel"] if missing == WHEEL else missing
    assert text.count(name) == 1 and "HTTP 404" in text, f"{missing} missing: not named: {text!r}"
    assert "http" not in text and "Failed to" not in text, f"{missing} missing: the block says {text!r}"
    assert seconds < 30, f"{missing} missing: {seconds:.1f} s before the block said so"
    assert focus == "run", f"the focus went to {focus} while Python failed to load"
    assert heard
    following = MISSING[MISSING.index(missing) + 1:]
    if following:  # Try again began loading anew: it got as far as the next file planted missing
        assert got["next"].startswith(prefix) and following[0].split("-")[0] in got["next"], (
            f"{missing} missing, then Try again with {following[0]} missing: {got['next']!r}")
    else:  # every file back: Try again loads Python and runs the block
        assert chain["state"] == "ok" and prefix not in got["next"], (
            f"Try again did not run the block: {got['next'][-300:]!r}")


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_download_cut_or_never_ending_names_the_file(runs, lang):
    """A cut download is not a slow network: the block says so within seconds, naming the file; a download
    that never ends is named when the watchdog gives up (shortened here to 3 s)."""
    chain = outcome(runs, ("cannot load", lang))
    s, got = chain["s"], chain["cut"]
    if "error" in got:
        raise got["error"]
    cut, stalled = got["cut"], got["stalled"]
    prefix = s["failedToLoad"].split("{")[0]
    assert cut.startswith(prefix) and "pyodide.asm.wasm" in cut and s["downloadCut"] in cut, cut
    assert got["cut_seconds"] < 20, f"{got['cut_seconds']:.1f} s before a cut download was reported"
    timed_out = s["loadTimedOut"].split("(")[0].format(seconds=3)
    assert stalled.startswith(prefix + timed_out) and "pyodide.asm.wasm" in stalled, stalled


def runs_that_go_wrong(browser, served_site, lang) -> tuple[dict, dict]:
    """Page 03's first block through a session of runs that go wrong, from the keyboard: the page's
    strings, and what each step showed."""
    context, tab = open_local(browser, served_site.base + PAGES[lang])
    seen: dict = {}
    try:
        s = strings(tab)
        b = block(tab, 0)
        seen["names"] = [b[k].get_attribute("aria-label") for k in ("run", "stop", "reset")]
        seen["name_3"] = block(tab, 2)["run"].get_attribute("aria-label")
        b["code"].scroll_into_view_if_needed()  # a block becomes editable once drawn (assets/run/run.js)
        wait_until(tab, "() => document.querySelector('[data-run-block=\"0\"] code').isContentEditable")

        # 3,000 lines and then an error: the traceback survives the cut
        set_code(tab, b, "for i in range(3000):\n    print(i)\n1 / 0\n")
        seen["traceback"] = run_and_wait(tab, b)
        seen["focus_after_run"] = tab.evaluate(ACTIVE)
        seen["announced_error"] = announced(tab, s["finishedError"].format(
            n=1, error="ZeroDivisionError: division by zero"))
        # one line of 300,000 characters: the note counts characters, not "0 lines"
        set_code(tab, b, 'print("x" * 300_000)\n')
        seen["long_line"] = run_and_wait(tab, b)
        seen["announced_ok"] = announced(tab, s["finished"].format(n=1))
        # input() and js.close() say what happened; the next Run works
        set_code(tab, b, 'name = input("name? ")\n')
        seen["input"] = run_and_wait(tab, b)
        set_code(tab, b, "import js\njs.close()\n")
        seen["close"] = run_and_wait(tab, b)
        set_code(tab, b, "import asyncio\n\nasync def later():\n    await asyncio.sleep(0.2)\n"
                         "    print('LEFTOVER')\n\ntask = asyncio.ensure_future(later())\nprint('A')\n")
        seen["async"] = run_and_wait(tab, b)
        set_code(tab, b, "import time\nt = time.perf_counter()\nwhile time.perf_counter() - t < 0.5:\n"
                         "    pass\nprint('B', 'kept' if 'task' in globals() else 'lost')\n")
        seen["after_async"] = run_and_wait(tab, b)
        # Restart Python, offered once nothing runs (the interpreter of the runs above is idle); the next Run
        # starts a fresh interpreter
        b["restart"].wait_for(state="visible")
        b["restart"].focus()
        tab.keyboard.press("Enter")
        seen["restarted"] = b["output"].text_content()
        seen["focus_after_restart"] = tab.evaluate(ACTIVE)
        seen["restart_hidden"] = b["restart"].is_hidden()
        set_code(tab, b, "print('B', 'kept' if 'task' in globals() else 'fresh')\n")  # the runs' names gone
        seen["after_restart"] = run_and_wait(tab, b)
        # Stop, with the keyboard: the focus goes back to Run
        set_code(tab, b, "while True:\n    pass\n")
        b["run"].focus()
        tab.keyboard.press("Enter")
        b["stop"].wait_for(state="visible")
        b["stop"].focus()
        tab.keyboard.press("Enter")
        wait_until(tab, "(el) => el.dataset.state === 'stopped'", arg=b["output"].element_handle())
        seen["focus_after_stop"] = tab.evaluate(ACTIVE)
        # Reset, with the keyboard: the focus goes to the code it put back
        b["reset"].focus()
        tab.keyboard.press("Enter")
        seen["focus_after_reset"] = tab.evaluate(ACTIVE)
        seen["reset_disabled"] = b["reset"].get_attribute("aria-disabled")
        # Run on block 3 runs blocks 1 and 2 first: only block 3's output is read as it comes (a live
        # region); the earlier ones print with theirs off, and are live again after
        tab.evaluate(WATCH_LIVE)
        run_and_wait(tab, block(tab, 2))
        seen["live"] = tab.evaluate("() => window.liveWhenWritten")
        seen["live_after"] = [block(tab, k)["output"].get_attribute("aria-live") for k in range(3)]
        seen["alive"] = tab.evaluate("1 + 1")
    finally:
        context.close()
    return s, seen


# for each change of a block's output: the block, and whether its output was a live region then
WATCH_LIVE = """() => { window.liveWhenWritten = [];
  document.querySelectorAll('[data-run-output]').forEach((out) => new MutationObserver(() =>
    window.liveWhenWritten.push([out.dataset.runOutput, out.getAttribute('aria-live')]))
    .observe(out, {childList: true, subtree: true, characterData: true})); }"""


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_session_of_runs_that_go_wrong_and_the_keyboard(runs, lang):
    s, seen = outcome(runs, ("session", lang))
    n = {"pt": ("Executar o bloco 1", "Parar o bloco 1", "Restaurar o código do bloco 1"),
         "en": ("Run block 1", "Stop block 1", "Reset block 1's code")}[lang]
    assert seen["names"] == list(n), seen["names"]
    assert seen["name_3"] == s["runN"].format(n=3)
    assert "ZeroDivisionError: division by zero" in seen["traceback"], seen["traceback"][-500:]
    assert s["cut"].split("{")[0] in seen["traceback"]
    assert seen["focus_after_run"] == "run"
    chars = f"{100_001:,}".replace(",", "." if lang == "pt" else ",")
    assert s["cut"].format(chars=chars, lines=1) in seen["long_line"], seen["long_line"][-300:]
    assert s["noInput"] in seen["input"] and "Errno 29" not in seen["input"], seen["input"][-500:]
    assert s["noClose"] in seen["close"], seen["close"][-500:]
    assert "A" in seen["async"] and s["cancelledTasks"].format(count=1) in seen["async"], seen["async"]
    # the names a run made stay for the next run (so "fresh" after Restart is Restart's doing)
    assert "LEFTOVER" not in seen["after_async"] and "B kept" in seen["after_async"], seen["after_async"]
    assert seen["focus_after_stop"] == "run"
    assert seen["focus_after_reset"] == "textbox" and seen["reset_disabled"] == "true"
    assert s["restarted"] in seen["restarted"] and seen["focus_after_restart"] == "run"
    assert seen["restart_hidden"]
    assert "B fresh" in seen["after_restart"] and "Error" not in seen["after_restart"], seen["after_restart"]
    live = {k: {state for block, state in seen["live"] if block == k} for k in ("0", "1", "2")}
    assert live == {"0": {"off"}, "1": {"off"}, "2": {"polite"}}, f"live regions while Run wrote: {live}"
    assert seen["live_after"] == ["polite"] * 3, seen["live_after"]
    assert seen["alive"] == 2


def test_a_block_with_html_comment_and_script_cannot_break_the_run_config(browser):
    """The run-config JSON as the build writes it, for a block holding '<!--<script>' and '</script>', put
    in a page: the elements after it still exist and the JSON still parses to the same code."""
    code = 'html = "<!--<script>"\nend = "</script>"\nprint(html, end)\n'
    blob = {"lang": "en", "blocks": [{"code": code}]}
    page = (
        "<!doctype html><html><body><p id='before'>before</p>"
        f'<script type="application/json" id="run-config">{run_blocks.script_json(blob)}</script>'
        "<p id='after'>after</p><script>window.parsed = JSON.parse("
        "document.getElementById('run-config').textContent)</script></body></html>"
    )
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.set_content(page)
        after = tab.locator("#after").count()
        parsed = tab.evaluate("window.parsed")
    finally:
        context.close()
    assert "<" not in run_blocks.script_json(blob)
    assert after == 1, "the page after the run-config was swallowed"
    assert parsed == blob


# --- one session drives the pages above, in the background (support/background.py) --------------------


def drive_runs(browser, served_site) -> dict:
    """Every page the tests above read, driven in turn (each step's result, or the error it raised)."""
    steps = {("cannot load", lang): lambda b, lang=lang: cannot_load(b, served_site, lang) for lang in PAGES}
    steps |= {("session", lang): lambda b, lang=lang: runs_that_go_wrong(b, served_site, lang)
              for lang in PAGES}
    return record_steps(browser, steps)


runs = session_fixture(drive_runs)
