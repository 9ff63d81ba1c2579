"""Every kind of page under its Content-Security-Policy (sitebuild/steps/content_policy.py), in Chromium.

- home, the short path, a chapter page, a lab, each 404 page and a missing address (answered with the root
  404 page) load in both languages with their policy in force and not one violation of it reported (a
  `securitypolicyviolation` listener installed before any script of the page runs) and no console error;
  page 03's explorer starts, and Run on its first block prints what the page shows;
- Python run in the page cannot reach another host: pyodide.http.pyfetch, js.fetch and js.XMLHttpRequest
  to http://example.com/ from the Run worker each fail, and the worker reports each one as a violation
  of `connect-src` (so it is the policy that stops them: the test's own routing, which aborts any request
  to another host, never even sees them).
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest
from visiting import NO_CHROMIUM, find_chromium, in_ci, press_run, wait_until

from support.pages import load_page
from support.served import LANGS

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

KINDS = {  # a page of each kind; "missing" is an address with no page, which the server answers with 404.html
    "home": "",
    "short-path": "short-path/",
    "chapter": "03-worked-example/",
    "lab": "labs/build-check-train/",
    "404": "404.html",
    "missing": "no/such/page/",
}
LOAD_MS = 180_000  # a cold Pyodide on a busy 2-core machine
# Installed before any script of the page runs (playwright's init script is not held by the page's policy).
LISTEN = """window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
  `${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`
  + ` ${e.sample}`));"""
DONE = "(el) => el.dataset.state && el.dataset.state !== 'running'"

# Run in the page, in the worker: three ways out to another host, each outcome and each violation the
# worker hears kept in `probe`. The two awaited ones start from a timer, after the block has ended (the
# runner cancels the asyncio tasks a block leaves pending).
PROBE = """\
import asyncio
import js
from pyodide.ffi import create_proxy
from pyodide.http import pyfetch

URL = "http://example.com/"
probe = {"outcomes": {}, "violations": []}
js.self.addEventListener("securitypolicyviolation", create_proxy(
    lambda e: probe["violations"].append(f"{e.violatedDirective} {e.blockedURI}")))


async def attempt(name, go):
    try:
        await go()
        probe["outcomes"][name] = "reached"
    except Exception as error:
        probe["outcomes"][name] = f"{type(error).__name__}: {error}"


async def with_pyfetch():
    await pyfetch(URL)


async def with_js_fetch():
    await js.fetch(URL)


try:
    request = js.XMLHttpRequest.new()
    request.open("GET", URL, False)  # synchronous: a worker may
    request.send()
    probe["outcomes"]["js.XMLHttpRequest"] = f"reached: {request.status}"
except Exception as error:
    probe["outcomes"]["js.XMLHttpRequest"] = f"{type(error).__name__}: {error}"


def later():
    asyncio.ensure_future(attempt("pyodide.http.pyfetch", with_pyfetch))
    asyncio.ensure_future(attempt("js.fetch", with_js_fetch))


js.setTimeout(create_proxy(later), 0)
"""
REPORT = "import json\nprint(json.dumps(probe))\n"


def page_url(site, lang: str, path: str) -> str:
    return site.base + (path if lang == "pt" else f"{lang}/{path}")


def open_recording(browser, site):
    """A context whose requests to any other host are aborted (and recorded), and a tab that records
    console errors, uncaught exceptions and policy violations."""
    context = browser.new_context()
    context.set_default_timeout(30_000)
    local = urlsplit(site.origin).netloc
    seen = {"foreign": [], "console": []}

    def block_foreign(route):
        seen["foreign"].append(route.request.url)
        route.abort()

    context.route(
        lambda url: urlsplit(url).netloc != local and urlsplit(url).scheme in ("http", "https"), block_foreign
    )
    context.add_init_script(LISTEN)
    tab = context.new_page()
    tab.on(
        "console",
        lambda m: m.type == "error" and seen["console"].append(f"{m.text} (at {m.location.get('url')})"),
    )
    tab.on("pageerror", lambda error: seen["console"].append(f"uncaught {error}"))
    return context, tab, seen


def set_code(tab, k: int, text: str) -> None:
    tab.locator(f'[data-run-block="{k}"] code').click()
    tab.keyboard.press("ControlOrMeta+a")
    tab.keyboard.press("Delete")
    tab.keyboard.insert_text(text)


def run(tab, k: int) -> str:
    press_run(tab, k, LOAD_MS)
    tab.wait_for_timeout(50)
    output = tab.locator(f'[data-run-output="{k}"]')
    wait_until(tab, DONE, arg=output.element_handle(), timeout=LOAD_MS)
    return output.text_content()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_page_works_under_its_policy(browser, served_site, kind, lang):
    url = page_url(served_site, lang, KINDS[kind])
    context, tab, seen = open_recording(browser, served_site)
    try:
        response = tab.goto(url, wait_until="load")
        policy = tab.evaluate(
            "() => document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]')?.content"
        )
        if kind == "chapter":  # its explorer starts once in view
            root = tab.locator('[data-explorer="worked-example"]').first
            root.scroll_into_view_if_needed()
            wait_until(
                tab, "() => document.querySelector('[data-explorer=\"worked-example\"]')"
                ".dataset.xpState === 'ready'"
            )
        tab.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 200)))")
        violations = tab.evaluate("window.__violations")
    finally:
        context.close()
    assert policy and "script-src 'self'" in policy, f"{url}: no Content-Security-Policy <meta> in force"
    assert not violations, f"{url}: the page breaks its own policy:\n" + "\n".join(violations)
    console = seen["console"]
    if kind == "missing":  # the address itself answers 404, as on Pages: the one error expected
        assert response.status == 404
        console = [c for c in console if not ("404" in c and f"(at {url})" in c)]
    assert not console, f"{url}: console errors under the policy:\n" + "\n".join(console)
    assert not seen["foreign"], f"{url}: requests to another host: {seen['foreign']}"


@pytest.mark.parametrize("lang", LANGS)
def test_run_works_and_python_cannot_reach_another_host(browser, served_site, lang):
    page = load_page(lang, "03-worked-example.md")
    expected = page.python_blocks[0].expected_output
    context, tab, seen = open_recording(browser, served_site)
    try:
        tab.goto(page_url(served_site, lang, KINDS["chapter"]), wait_until="load")
        first = run(tab, 0)
        set_code(tab, 1, PROBE)
        probed = run(tab, 1)
        set_code(tab, 2, REPORT)
        report: dict = {}
        for _ in range(40):  # the awaited attempts finish after their block: ask until all three are in
            report = json.loads(run(tab, 2).strip().splitlines()[-1])
            if len(report["outcomes"]) == 3 and len(report["violations"]) >= 3:
                break
            tab.wait_for_timeout(250)
        page_violations = tab.evaluate("window.__violations")
    finally:
        context.close()
    assert first == expected, f"{lang}: Run on page 03's first block printed {first!r}, not {expected!r}"
    assert "Error" not in probed, f"{lang}: the probe itself failed: {probed}"
    outcomes = report["outcomes"]
    assert set(outcomes) == {"pyodide.http.pyfetch", "js.fetch", "js.XMLHttpRequest"}, report
    reached = {name: what for name, what in outcomes.items() if what.startswith("reached")}
    assert not reached, f"{lang}: Python in the page reached another host: {reached}"
    blocked = [v for v in report["violations"] if v == "connect-src http://example.com/"]
    assert len(blocked) == 3, (
        f"{lang}: each of the three attempts should be a violation of the page's connect-src, reported in "
        f"the worker; it heard {report['violations']} (outcomes: {outcomes})"
    )
    assert not seen["foreign"], f"{lang}: a request to another host got past the policy: {seen['foreign']}"
    assert not page_violations, f"{lang}: the page itself broke its policy: {page_violations}"
