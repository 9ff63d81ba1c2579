"""Run in the page: every runnable block of every page, run in Chromium through its Run button.

The site is built for and served under its project path (conftest.py); Chromium resolves no host but
127.0.0.1 (--host-resolver-rules), and every request the page or its worker makes is recorded, so a
request to anything else fails the test even before the network would refuse it.

One browser profile for the session (on disk, so that Chromium keeps what it compiled of Pyodide from one
page's start to the next's: run_everything), one language after the other. For each page (the home page, the
chapters), in page order: load it, check that nothing of Pyodide was fetched, press Run on each runnable
block in turn and read what it printed (its `<output>`: the stdout the worker streamed) next to the output
the page shows under it, compared exactly as tests/test_pages.py compares it in CPython. An English page
whose Run bars offer exactly the code of its Portuguese page (the same blocks, line for line, the same ones
not runnable) is loaded and read but its blocks are not pressed again: the same code, the same wheel and the
same worker print the same, so what the Portuguese page printed is compared with what the English page
shows. Page 03 runs in both languages, so each language's Run bar is pressed. Then, on page 03: edit the
logits and run (the result must be what CPython prints for the edited code), Reset, `while True: pass`
stopped by Stop within a second and a Run after it, a million-line print cut. Then the labs (pt; their code
cells are the same in en, tests/test_labs.py): every cell that the page does not mark as not runnable runs
without error. The blocks that cannot run in the browser are printed with their reasons."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from concurrent.futures import Future
from dataclasses import dataclass, field

import pytest
from visiting import CHROMIUM_ARGS, ISOLATED, find_chromium, wait_until

from support.pages import as_shown, load_page, page_files
from support.served import LANGS, ServedSite, SitePage
from support.site import in_thread, shared_site

PYODIDE_PATHS = ("assets/vendor/pyodide/", "assets/run/worker.js", "culpa/culpa-")
RUN_TIMEOUT_MS = 180_000  # a first Run loads Python; page 09 trains a network
LAB_LANG = "pt"
ONLY_PAGES = tuple(os.environ.get("RUN_IN_PAGE_PAGES", "").split())  # for a quicker look
ONLY_LANGS = tuple(os.environ.get("RUN_IN_PAGE_LANGS", " ".join(LANGS)).split())  # for a quicker look


def progress(message: str) -> None:
    if os.environ.get("RUN_IN_PAGE_PROGRESS"):
        print(message, file=sys.stderr, flush=True)


def chapter_pages(lang: str) -> list[SitePage]:
    pages = []
    for rel in page_files(lang):
        stem = rel[: -len(".md")]
        pages.append(SitePage(lang, "" if stem == "index" else f"{stem}/"))
    return pages


@dataclass
class PageRun:
    page: SitePage
    early_requests: list[str] = field(default_factory=list)  # before the first Run
    config: dict = field(default_factory=dict)
    outputs: dict[int, dict] = field(default_factory=dict)  # block index -> {state, stdout, stderr, text}
    error: str | None = None
    ran_as: str | None = None  # the page (other language) whose run of the very same code gave `outputs`


def squeeze(code: str) -> list[str]:
    return [line for line in code.splitlines() if line.strip()]


def same_code(one: dict, other: dict) -> bool:
    """Two pages' Run configurations offer the same code to run, block by block (and skip the same ones)."""
    a, b = one.get("blocks", []), other.get("blocks", [])
    return bool(a) and len(a) == len(b) and all(
        squeeze(x["code"]) == squeeze(y["code"]) and bool(x["skip"]) == bool(y["skip"])
        for x, y in zip(a, b, strict=True))


PRESSED_IN_EVERY_LANGUAGE = ("03-worked-example/",)  # its Run bar's Edit, Reset, Stop and cut checks


@dataclass
class Session:
    requests: list[str] = field(default_factory=list)
    pages: dict[str, PageRun] = field(default_factory=dict)
    labs: dict[str, PageRun] = field(default_factory=dict)
    checks: dict = field(default_factory=dict)  # page 03's edit, reset, stop, cut


READ_OUTPUT = """(el) => ({
  state: el.dataset.state || "",
  stdout: [...el.querySelectorAll('[data-stream="stdout"]')].map((s) => s.textContent).join(""),
  stderr: [...el.querySelectorAll('[data-stream="stderr"]')].map((s) => s.textContent).join(""),
  text: el.textContent,
})"""
DONE = "(el) => el.dataset.state && el.dataset.state !== 'running'"


async def run_block(page, box_index: int, run_label: str) -> dict:
    box = page.locator(f'[data-run-block="{box_index}"]')
    bar = box.locator("xpath=following-sibling::div[contains(@class,'run-bar')][1]")
    output = box.locator("xpath=following-sibling::output[1]")
    # each button is named after its block ("Run block 3"); its text is the plain verb
    button = bar.get_by_role("button", name=run_label.replace("{n}", str(box_index + 1)), exact=True)
    # pressed from the keyboard once run.js has set it up (its render() writes aria-disabled): in the
    # .ci/run of 21611c0 four mouse clicks, on a busy machine, never reached the button (the block's output
    # stayed empty, no run began), which a click by coordinates can do while the page still moves
    await wait_until(page, "(b) => b.getAttribute('aria-disabled') === 'false'",
                           arg=await button.element_handle(), timeout=RUN_TIMEOUT_MS)
    await button.press("Enter")
    await output.evaluate("(el) => new Promise((r) => requestAnimationFrame(r))")
    handle = await output.element_handle()
    await wait_until(page, DONE, arg=handle, timeout=RUN_TIMEOUT_MS)
    return await output.evaluate(READ_OUTPUT)


async def open_page(context, site: ServedSite, page: SitePage, requests: list[str]) -> tuple[object, PageRun]:
    """Load `page` in a new tab of `context`, whose requests are logged in `requests` (its own language's:
    the other language's pages run at the same time, in another context)."""
    record = PageRun(page)
    mark = len(requests)
    tab = await context.new_page()
    # every lookup and press with a run's patience: in the CI of stop 29, on a busy machine, page 06 stayed
    # busy past the default 30 s before block 19's Run button could be looked up (no run had begun)
    tab.set_default_timeout(RUN_TIMEOUT_MS)
    await tab.goto(site.url(page), wait_until="networkidle")
    await tab.wait_for_timeout(300)  # anything a deferred script would fetch on its own
    # a reader opens a collapsed block (an exercise's answer) before pressing its Run
    await tab.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    record.early_requests = [u for u in requests[mark:] if any(p in u for p in PYODIDE_PATHS)]
    blob = await tab.locator("#run-config").text_content()
    record.config = json.loads(blob) if blob else {}
    return tab, record


async def what_it_showed(tab, k: int | None, console: list[str]) -> str:
    """For a block that failed to finish: its output's state and text, and the page's last console lines."""
    try:
        read = "(el) => `state=${el.dataset.state || '(none)'} text=${el.textContent.slice(-400)}`"
        shown = await tab.locator(f'[data-run-output="{k}"]').evaluate(read, timeout=5000)
    except Exception as error:
        shown = f"(could not read it: {type(error).__name__})"
    return f"\n  block {k} output: {shown}\n  console: {console[-8:]}"


async def run_pages(context, site: ServedSite, pages: list[SitePage], requests: list[str], into: dict,
                    checks: dict | None = None) -> None:
    """Each page in turn, in a tab of its own: every runnable block through its Run button, unless the
    same page in a language run before offered the very same code and ran it without error."""
    for page in pages:
        if ONLY_PAGES and not any(part in page.id for part in ONLY_PAGES):
            continue
        started = time.perf_counter()
        tab, run = await open_page(context, site, page, requests)
        into[page.id] = run
        before = [r for r in into.values() if r.page.path == page.path and r.page.lang != page.lang]
        if (page.path not in PRESSED_IN_EVERY_LANGUAGE and before and before[0].error is None
                and before[0].ran_as is None and same_code(before[0].config, run.config)):
            run.outputs, run.ran_as = dict(before[0].outputs), before[0].page.id
            await tab.close()
            progress(f"{page.id}: the code of {run.ran_as}, run there")
            continue
        console: list[str] = []  # what the page and its worker logged, for a failure's message
        tab.on("console", lambda m, into=console: into.append(f"{m.type}: {m.text}"))
        tab.on("pageerror", lambda e, into=console: into.append(f"uncaught: {e}"))
        label = run.config.get("strings", {}).get("runN")
        k = None
        try:
            for k, block in enumerate(run.config.get("blocks", [])):
                if not block["skip"]:
                    run.outputs[k] = await run_block(tab, k, label)
            if checks is not None and page.path == "03-worked-example/":
                checks[page.lang] = await page_03_checks(tab, run, page.lang)
        except Exception as error:  # recorded; the tests say which page and step, and what the page showed
            run.error = f"{type(error).__name__}: {error}" + await what_it_showed(tab, k, console)
        await tab.close()
        progress(f"{page.id}: {time.perf_counter() - started:.1f} s")


async def run_everything(chromium: str, site: ServedSite) -> Session:
    """One language after the other, each language's pages in page order, then the labs (pt), in one
    browser profile of the session's own (a temporary folder).

    A profile on disk, not a fresh context per language: Chromium keeps the code it compiled from
    `pyodide.asm.wasm` in a profile's code cache, which an off-the-record context (playwright's
    `new_context`) never has, so each page's Python after the first two started from it: 3.0-3.3 s of
    processor time per start against 5.1-5.7 s (tests/bench/README.md, "The test suite"). The pages
    still start a Python of their own each; what one language's pages stored is cleared before the
    other's."""
    import tempfile

    from playwright.async_api import async_playwright

    session = Session()
    with tempfile.TemporaryDirectory(prefix="run-in-page-profile-") as profile:
        async with async_playwright() as p:
            context = await p.chromium.launch_persistent_context(
                profile, executable_path=chromium, args=CHROMIUM_ARGS + ISOLATED)

            async def one_language(lang: str) -> None:
                requests: list[str] = []

                # recorded, not routed: a route turns the browser's cache off (playwright's rule), and each
                # page then fetched and compiled Pyodide afresh (tests/bench/README.md, "The test suite");
                # the host resolver (ISOLATED) refuses any host but 127.0.0.1
                def record(request) -> None:
                    requests.append(request.url)
                    session.requests.append(request.url)

                context.on("request", record)
                try:
                    await run_pages(context, site, chapter_pages(lang), requests, session.pages,
                                    session.checks)
                    if lang == LAB_LANG:
                        labs = sorted(site_labs(lang), key=lambda p: p.path)
                        await run_pages(context, site, labs, requests, session.labs)
                finally:
                    context.remove_listener("request", record)
                    await forget_storage(context, site)

            # one language after the other: one Python in the browser at a time, beside the tests that run
            # meanwhile (two at once on a 2-core machine, under the page visits, left a block of page 07 or
            # 09 waiting past its 180 s)
            for lang in ONLY_LANGS:
                await one_language(lang)
            await context.close()
    return session


async def forget_storage(context, site: ServedSite) -> None:
    """The site's local storage (kept edits, the explorers' steps) cleared, as a context of its own would
    start: the next language's pages meet nothing the last one stored."""
    tab = await context.new_page()
    try:
        cdp = await context.new_cdp_session(tab)
        await cdp.send("Storage.clearDataForOrigin", {"origin": site.origin, "storageTypes": "local_storage"})
        await cdp.detach()
    finally:
        await tab.close()


def site_labs(lang: str) -> list[SitePage]:
    from support.served import source_pages

    return [p for p in source_pages() if p.kind == "notebook" and p.lang == lang]


EDITED_LOGITS = ("[2.0, 1.0, 0.1]", "[0.5, 2.5, -1.0]")


async def page_03_checks(tab, run: PageRun, lang: str) -> dict:
    """Edit, Reset, Stop and the output cap, on page 03's first block."""
    s = run.config["strings"]
    checks: dict = {}
    box = tab.locator('[data-run-block="0"]')
    code = box.locator("code")
    bar = box.locator("xpath=following-sibling::div[contains(@class,'run-bar')][1]")
    output = box.locator("xpath=following-sibling::output[1]")
    original = run.config["blocks"][0]["code"]
    # the code as the block shows it: Material turns an annotation marker, `# (1)!`, into a button
    shown = """(code) => { const copy = code.cloneNode(true);
      copy.querySelectorAll(".md-annotation").forEach((e) => e.remove()); return copy.textContent; }"""
    checks["original"] = await code.evaluate(shown)

    async def set_code(text: str) -> None:
        await code.click()
        await tab.keyboard.press("ControlOrMeta+a")
        await tab.keyboard.press("Delete")
        await tab.keyboard.insert_text(text)

    async def wait_done() -> dict:
        await wait_until(tab, DONE, arg=await output.element_handle(), timeout=RUN_TIMEOUT_MS)
        return await output.evaluate(READ_OUTPUT)

    # edit the logits, run with Ctrl+Enter
    edited = original.replace(*EDITED_LOGITS)
    checks["edited_code"] = edited
    await set_code(edited)
    await code.press("Control+Enter")
    await tab.wait_for_timeout(50)
    checks["edited"] = await wait_done()
    # Reset puts the page's code back; running it prints the page's output again
    await bar.get_by_role("button", name=s["resetN"].format(n=1), exact=True).click()
    checks["after_reset_code"] = await code.evaluate(shown)
    checks["reset_run"] = await run_block(tab, 0, s["runN"])
    # a runaway loop, stopped
    await set_code("while True:\n    pass\n")
    await bar.get_by_role("button", name=s["runN"].format(n=1), exact=True).click()
    stop = bar.get_by_role("button", name=s["stopN"].format(n=1), exact=True)
    await stop.wait_for(state="visible")
    await tab.wait_for_timeout(500)
    started = time.perf_counter()
    await stop.click()
    await wait_until(tab, "(el) => el.dataset.state === 'stopped'", arg=await output.element_handle())
    checks["stop_seconds"] = time.perf_counter() - started
    checks["stopped"] = await output.evaluate(READ_OUTPUT)
    # the next Run works, in a fresh interpreter
    await bar.get_by_role("button", name=s["resetN"].format(n=1), exact=True).click()
    checks["after_stop_run"] = await run_block(tab, 0, s["runN"])
    # a million lines, cut
    await set_code("for i in range(1_000_000):\n    print(i)\n")
    await bar.get_by_role("button", name=s["runN"].format(n=1), exact=True).click()
    await tab.wait_for_timeout(50)
    checks["million"] = await wait_done()
    checks["alive"] = await tab.evaluate("1 + 1")
    checks["cut_note"] = s["cut"].split("{")[0]
    return checks


EARLY: dict[str, Future] = {}


def start_early(session) -> None:
    """Called once after collection when a test of this module is selected (tests/conftest.py): the whole
    run starts now, in a thread of its own, as soon as the session's site is built, so that its minutes of
    Python in the browser overlap the tests that need no browser (they run first)."""
    chromium = find_chromium()
    if chromium is None:
        return  # the `chromium` fixture skips (or fails under CI=true) with its reason
    EARLY["session"] = in_thread("run-in-page", lambda: asyncio.run(
        run_everything(chromium, shared_site(session.config))))


@pytest.fixture(scope="module")
def session(chromium, served_site) -> Session:
    if "session" in EARLY:
        return EARLY["session"].result()
    return asyncio.run(run_everything(chromium, served_site))


def cpython_prints(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


PAGES = [p for lang in LANGS for p in chapter_pages(lang)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.id)
def test_every_runnable_block_prints_in_the_browser_what_the_page_shows(session, page):
    if page.id not in session.pages:
        pytest.skip(f"{page.id} not opened (RUN_IN_PAGE_LANGS / RUN_IN_PAGE_PAGES)")
    run = session.pages[page.id]
    # as the page shows it: culpa's listings with their comments in the page's language
    source = as_shown(load_page(page.lang, "index.md" if not page.path else page.path.rstrip("/") + ".md"))
    blocks = run.config.get("blocks", [])
    assert len(blocks) == len(source.python_blocks), (
        f"{page.id}: the page offers {len(blocks)} blocks to Run, its source has {len(source.python_blocks)}"
    )
    ran = f" (run on {run.ran_as}, the very same code)" if run.ran_as else ""
    for k, (shown, block) in enumerate(zip(blocks, source.python_blocks, strict=True)):
        assert squeeze(shown["code"]) == squeeze(block.code), f"{page.id}: block {k + 1} runs other code"
        tested = not any("skip" in m for m in block.marks)
        if shown["skip"] or not tested:
            continue
        out = run.outputs.get(k)
        assert out is not None, f"{page.id}: block {k + 1} (line {block.line}) did not run: {run.error}"
        assert out["state"] == "ok", (
            f"{page.id}: block {k + 1} (line {block.line}) failed in the browser{ran}:\n{out['stderr']}"
        )
        if block.expected_output is not None and not shown.get("limit"):
            assert out["stdout"] == block.expected_output, (
                f"{page.id}: in the browser{ran}, block {k + 1} (line {block.line}) prints something else "
                f"than the page shows.\n--- page shows ---\n{block.expected_output}--- browser printed ---\n"
                f"{out['stdout']}"
            )
    assert run.error is None, f"{page.id}: {run.error}"


def test_the_blocks_that_cannot_run_in_the_browser_say_why(session, capsys):
    lines = []
    for run in [*session.pages.values(), *session.labs.values()]:
        for k, block in enumerate(run.config.get("blocks", [])):
            if block["skip"]:
                assert block["skip"].strip(), f"{run.page.id}: block {k + 1} cannot run and says no reason"
                lines.append(f"  {run.page.id} block {k + 1}: cannot run: {block['skip']}")
            elif block.get("limit"):
                lines.append(f"  {run.page.id} block {k + 1}: runs, but: {block['limit']}")
    with capsys.disabled():
        print(f"\nblocks that cannot run in the browser ({len(lines)}):\n" + "\n".join(lines))


def test_nothing_of_pyodide_is_fetched_before_the_first_run(session):
    runs = {**session.pages, **session.labs}
    assert runs, "no page was opened"
    early = {pid: run.early_requests for pid, run in runs.items() if run.early_requests}
    assert not early, f"fetched on page load, before any Run: {early}"


def test_no_request_leaves_the_site(session, served_site):
    own = (served_site.origin + "/", f"blob:{served_site.origin}/")  # blob: the worker's script, made here
    foreign = sorted({u for u in session.requests if not u.startswith(own)})
    assert not foreign, f"requests to other hosts: {foreign}"
    loaded = [u for u in session.requests if u.endswith(("pyodide.asm.wasm", ".whl"))]
    assert loaded, "no Run loaded Pyodide, numpy and culpa from the site: the recording saw nothing"


@pytest.mark.parametrize("lang", LANGS)
def test_page_03_edit_reset_stop_and_cut(session, lang):
    if f"{lang}/03-worked-example/" not in session.pages:
        pytest.skip(f"{lang}/03-worked-example/ not opened (RUN_IN_PAGE_LANGS / RUN_IN_PAGE_PAGES)")
    checks = session.checks.get(lang)
    run = session.pages[f"{lang}/03-worked-example/"]
    assert checks, f"{lang}/03-worked-example/: the checks did not run: {run.error}"
    expected = cpython_prints(checks["edited_code"])
    assert checks["edited_code"] != checks["original"]
    assert checks["edited"]["state"] == "ok" and checks["edited"]["stdout"] == expected, (
        f"edited logits: the browser printed {checks['edited']['stdout']!r}, CPython {expected!r}"
    )
    page = load_page(lang, "03-worked-example.md")
    first = page.python_blocks[0]
    assert checks["after_reset_code"].strip() == checks["original"].strip(), "Reset did not put the code back"
    assert checks["reset_run"]["stdout"] == first.expected_output
    # Stop ends a runaway loop (terminating the worker needs no cooperation from Python); the bound only
    # tells "stopped" from "hung", since a busy 2-core machine took 1.7 s where an idle one takes 0.1 s
    assert checks["stop_seconds"] < 10.0, f"Stop took {checks['stop_seconds']:.2f} s"
    after_stop = checks["after_stop_run"]
    assert after_stop["state"] == "ok" and after_stop["stdout"] == first.expected_output, after_stop
    million = checks["million"]
    printed = million["stdout"].splitlines()
    assert million["state"] == "ok" and checks["cut_note"] in million["text"], million["text"][-300:]
    assert 0 < len(printed) <= 2000 and printed[:3] == ["0", "1", "2"], f"{len(printed)} lines shown"
    assert checks["alive"] == 2


@pytest.mark.parametrize("lab", sorted(p.path for p in site_labs(LAB_LANG)))
def test_every_lab_cell_runs_in_the_browser_or_says_why_not(session, lab):
    if f"{LAB_LANG}/{lab}" not in session.labs:
        pytest.skip(f"{lab} not opened (RUN_IN_PAGE_PAGES)")
    run = session.labs[f"{LAB_LANG}/{lab}"]
    blocks = run.config.get("blocks", [])
    assert blocks, f"{run.page.id}: no cell offers Run"
    for k, block in enumerate(blocks):
        if block["skip"]:
            continue
        out = run.outputs.get(k)
        assert out is not None, f"{run.page.id}: cell {k + 1} did not run: {run.error}"
        assert out["state"] == "ok", f"{run.page.id}: cell {k + 1} failed in the browser:\n{out['stderr']}"
    assert run.error is None, run.error
