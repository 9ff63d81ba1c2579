"""Open each page of the site in Chromium and use it as a reader would, recording what happens.

One Chromium for the session; a few pages are visited at a time, each in a tab of its own in its
language's browser context (kept for that language's visits, as a reader's browser keeps its cache; the
clipboard permission granted to the site). A visit:

1. loads the page at desktop size, recording console errors, uncaught exceptions, failed requests and any
   request to a host other than the local server (those are blocked, so nothing leaves the machine);
2. reads what the page shows: its text outside code and KaTeX output, its formulas, images, notebook cells;
3. runs axe-core (vendored, injected into the page) in the light palette, and its colour-contrast rule
   in the dark palette too (Material's palettes: the attribute its toggle sets);
4. writes a full-page screenshot at desktop and at phone size to tests/screenshots/, and measures how
   wide the page is at each size; at phone size axe checks again that what scrolls sideways (code, on a
   phone) can be reached with the keyboard;
5. clicks every visible copy button of a code block and reads the clipboard (one page at a time: the
   clipboard is the browser's);
6. types a word of the page into the search box and reads the results and their previews;
7. switches to the other language with the header's language switcher (the visit of that page
   switches back).

A step that cannot be driven (an element missing, a timeout) is recorded in `errors`; the test of that
step's rule fails with it, the others still judge what was recorded.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from support.served import LANGS, ROOT, ServedSite, SitePage, source_pages

SCREENSHOTS = ROOT / "tests" / "screenshots"
AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
AT_ONCE = 3  # pages visited at the same time
STEP_SECONDS = 150  # what a step of a visit may take at most, on the busiest machine (they take 0.5-5 s)
# axe rules switched off, each with the reason it cannot be fixed from this site's side. None so far.
AXE_DISABLED: dict[str, str] = {}
# Every page's Content-Security-Policy (sitebuild/steps/content_policy.py) refuses an inline <script> or
# <style> it has no hash for, so the tests add theirs as DevTools does, which the policy does not hold:
# axe's source evaluated (tab.evaluate(axe_source())), a stylesheet adopted (tab.evaluate(ADOPT_CSS, css)).
ADOPT_CSS = """(css) => { const sheet = new CSSStyleSheet(); sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]; }"""


def axe_source() -> str:
    """axe-core's script, as an expression for tab.evaluate (which defines `axe` in the page)."""
    return AXE.read_text(encoding="utf-8") + "\n;true"


NO_CHROMIUM = "no Chromium found (apt-get install chromium)"
# Chromium resolves no host but 127.0.0.1: a request to any other host fails, without a route (a route turns
# the browser's cache off, playwright's rule)
ISOLATED = ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# How often a test's wait asks the page its question. Playwright's default ('raf') asks on every animation
# frame, which makes an idle page draw 60 frames a second for as long as the wait lasts: while Run started
# Python (about 6 s here), the page's main thread spent 1.7-3.2 s of processor time drawing them, 0.35 s
# when asked every 50 ms (tests/bench/README.md, "The test suite"). 50 ms is far below any step it waits for.
POLL_MS = 50


def wait_until(page, predicate: str, arg=None, timeout: float | None = None):
    """`page.wait_for_function(predicate, arg=arg)`, the page asked every POLL_MS instead of on every frame
    (for a sync or an async page or frame alike: an async one returns what to await)."""
    return page.wait_for_function(predicate, arg=arg, timeout=timeout, polling=POLL_MS)


# An element's box within the screen, to the pixel the browser rounds a scroll to (an element the argument)
IN_VIEW_JS = ("(e) => { const r = e.getBoundingClientRect();"
              " return r.top >= -1 && r.bottom <= innerHeight + 1; }")
# A scroll that leaves the element (the argument) at the screen's bottom edge, where Tab leaves what it meets
TO_BOTTOM_EDGE_JS = "(e) => scrollBy(0, e.getBoundingClientRect().bottom - innerHeight + 2)"


def requested(page, requests, part: str, seconds: float) -> bool:
    """Whether a URL containing `part` is among `requests` (the page's, as its "request" handler collects
    them) within `seconds`."""
    for _ in range(int(seconds * 10)):
        if any(part in u for u in requests):
            return True
        page.wait_for_timeout(100)
    return False


def find_chromium() -> str | None:
    """Debian's chromium (or the one $CHROMIUM names); playwright's own browsers are never downloaded."""
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1")


@dataclass
class Visit:
    """What happened while a page was opened and used."""

    url: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    facts: dict = field(default_factory=dict)  # what the page showed once loaded
    axe: list[dict] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    widths: dict[str, dict] = field(default_factory=dict)  # screen size -> the page's width, what sticks out
    estimates: dict[str, list] = field(default_factory=dict)  # screen size -> offscreen blocks' heights
    annotated: dict = field(default_factory=dict)  # code blocks with annotations, and those Material mounted
    copies: list[dict] = field(default_factory=list)
    search: dict = field(default_factory=dict)
    switches: list[dict] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)  # step -> what went wrong driving the page

    def step_error(self, step: str) -> str:
        return f"\n(driving the page failed at '{step}': {self.errors[step]})" if step in self.errors else ""


def open_local(browser, url: str, **options):
    """A context of its own (options: viewport, color_scheme, java_script_enabled...), as on a first
    visit, and a tab of it with url loaded. It reaches 127.0.0.1 only because `browser` resolves no other
    host (ISOLATED, as every test browser is), not through a route, which would turn its cache off."""
    context = browser.new_context(**options)
    tab = context.new_page()
    tab.goto(url, wait_until="load")
    return context, tab


class KeptTab:
    """What `kept_tab` lends: its tab, and `close()`, which hands the tab back for the next test (the
    context stays open) instead of closing a context, so a test reads the same either way."""

    def __init__(self, tab) -> None:
        self.tab = tab

    def close(self) -> None:
        self.tab.unroute_all(behavior="ignoreErrors")  # a route a test added turns the tab's cache off


def kept_tab(browser, url: str, viewport: dict = DESKTOP, reduced_motion: str = "no-preference",
             on_new_tab=None, **context_options) -> tuple[KeptTab, object]:
    """`url` loaded afresh, at `viewport`, in a tab that `browser` keeps open for the tests that come
    after: one tab per set of context options (`java_script_enabled`, `locale`, ...). `browser` must have
    been launched with ISOLATED among its arguments (the `browser` fixture is): the tab reaches 127.0.0.1
    only because no other host resolves, not through a route, which would turn its cache off. Before each
    load the tab leaves the page (for about:blank, so what the page writes as it goes is written) and the
    site's local and session storage are cleared, so a test never meets what an earlier test stored; the
    screen is set to `viewport`, `screen` media and `reduced_motion`. `on_new_tab(tab)` runs once for each
    new tab (to listen to its console, say); a list `tab.errors` it keeps is emptied before each load.

    Why: a page loaded in a kept tab costs about a third of the processor time of a first load in a
    fresh context (page 04 with its explorer: 1.1 s against 3.3 s, tests/bench/README.md, "The test
    suite"), because the browser keeps its HTTP cache and compiled scripts, as a reader's browser does
    between two visits. A test about a first visit (what is fetched, and when) opens a context of its own.
    """
    kept = browser.__dict__.setdefault("_kept_tabs", {})
    key = repr(sorted(context_options.items()))
    tab = kept.get(key)
    if tab is None or tab.is_closed():
        context = browser.new_context(viewport=viewport, **context_options)
        tab = context.new_page()
        if on_new_tab is not None:
            on_new_tab(tab)
        kept[key] = tab
    else:
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
        if tab.url.startswith(origin):
            tab.evaluate("() => sessionStorage.clear()")  # the tab's own, which a new load would find
        tab.goto("about:blank")
        cdp = tab.context.new_cdp_session(tab)
        cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "local_storage"})
        cdp.detach()
    tab.set_viewport_size(viewport)
    tab.emulate_media(media="screen", reduced_motion=reduced_motion)
    if isinstance(getattr(tab, "errors", None), list):
        tab.errors.clear()  # what on_new_tab's listeners collect, for this load only
    tab.goto(url, wait_until="load")
    return KeptTab(tab), tab


def press_run(tab, k: int, timeout: float) -> None:
    """Press block k's Run from the keyboard once run.js has set it up (its render() writes aria-disabled),
    as tests/browser/test_run_in_page.py does: a click right after load, while the page still moves, can miss
    the button (in the .ci/run of 27e0db7 no run began and the wait for its output ran out after 180 s)."""
    button = f'[data-run-bar="{k}"] [data-run="run"]'
    tab.wait_for_selector(f'{button}[aria-disabled="false"]', timeout=timeout)
    tab.locator(button).press("Enter")


def is_sitemap_prefetch(url: str) -> bool:
    # Material prefetches sitemap.xml under every alternate-language URL of the page; steps/alternates.py
    # writes one wherever it asks, so those requests must succeed like any other: nothing is ignored.
    return False


# Formulas are typeset at build time: their facts are read from the page's HTML as the server sent it
# (fetched again and parsed, so no script of the page has run on it), the rest from the live page.
FACTS_JS = """async () => {
  const served = new DOMParser().parseFromString(await (await fetch(location.href)).text(), "text/html");
  const article = served.querySelector("article.md-content__inner") || served.body;
  const prose = article.cloneNode(true);
  prose.querySelectorAll("pre, code, .katex, script, style, .headerlink, .clipboard-copy-txt, clipboard-copy")
       .forEach((e) => e.remove());
  const formulas = [...served.querySelectorAll(".arithmatex")];
  const outputs = [...document.querySelectorAll(".jp-OutputArea-output")];
  const mathScript = /katex(\\.min)?\\.js$|auto-render|mathjax|\\/math\\.js$/i;
  return {
    lang: document.documentElement.lang,
    prose: prose.textContent,
    arithmatex: formulas.length,
    untypeset: formulas.filter((e) => !e.querySelector(".katex")).map((e) => e.textContent.slice(0, 80)),
    katex: served.querySelectorAll(".katex").length,
    katexErrors: [...served.querySelectorAll(".katex-error")].map((e) => e.textContent.slice(0, 80)),
    mathScripts: performance.getEntriesByType("resource").map((r) => r.name)
                 .filter((url) => mathScript.test(new URL(url).pathname)),
    notebook: {
      codeCells: document.querySelectorAll(".jp-CodeCell").length,
      outputs: outputs.filter((e) => e.textContent.trim() || e.querySelector("img, svg")).length,
      errors: outputs.filter((e) => e.querySelector('[data-mime-type*="error"]') ||
                                    /error/.test(e.getAttribute("data-mime-type") || ""))
                     .map((e) => e.textContent.slice(0, 200)),
    },
    rawNotebookSource: /```\\{code-cell\\}|^jupytext:/m.test(document.body.textContent),
  };
}"""

IMAGES_JS = """async () => {
  const images = [...document.images];
  images.forEach((img) => { img.loading = "eager"; });
  await Promise.all(images.map((img) => img.decode().catch(() => null)));
  return images.map((img) => ({
    src: (img.getAttribute("src") || "").slice(0, 120),
    complete: img.complete, width: img.naturalWidth, height: img.naturalHeight,
  }));
}"""

# Every figure shows the drawing made for this width (a <picture> picks its phone drawing below Material's
# phone breakpoint), loaded: a request for one still in flight would be cut off by what the visit does next.
PICTURES_LOADED_JS = """() => [...document.querySelectorAll("picture img")].every((img) =>
  img.complete && img.naturalWidth > 0 &&
  /[.]phone(-[0-9a-f]+)?[.](svg|png)$/.test(img.currentSrc) ===
    matchMedia("(max-width: 44.9375em)").matches)"""
# a phone drawing: a chapter figure's NAME.phone.svg, a lab figure's figure-N.phone-HASH.png
PHONE_DRAWING = re.compile(r"\.phone(-[0-9a-f]+)?\.(svg|png)$")

# The text of the search results' previews, outside code and typeset formulas.
RESULTS_PROSE_JS = """() => {
  const list = document.querySelector(".md-search-result__list").cloneNode(true);
  list.querySelectorAll("pre, code, .katex").forEach((e) => e.remove());
  return list.textContent;
}"""

# The outermost elements that stick out of the screen on the right (what makes a page scroll sideways).
WIDER_THAN_SCREEN_JS = """() => [...document.querySelectorAll("body *")]
  .filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && e.getBoundingClientRect().width > 0
                 && e.parentElement.getBoundingClientRect().right <= innerWidth + 1
                 && !e.closest("pre, figure, .arithmatex, .md-typeset__scrollwrap, .jp-OutputArea"))
  .slice(0, 5)
  .map((e) => e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ")[0] : ""))"""

# Formulas cut off by a box that clips them without letting the reader scroll (and so hidden in part).
CUT_FORMULAS_JS = """() => [...document.querySelectorAll(".katex")].filter((math) => {
  const drawn = document.createRange();
  drawn.selectNodeContents(math.querySelector(".katex-html") || math);
  const r = drawn.getBoundingClientRect();
  for (let box = math.parentElement; box && box !== document.body; box = box.parentElement) {
    const overflow = getComputedStyle(box).overflowX;
    if (overflow === "visible") continue;
    if (overflow === "auto" || overflow === "scroll") return false;
    const b = box.getBoundingClientRect();
    return r.right > b.right + 1 || r.left < b.left - 1;
  }
  return r.right > innerWidth + 1;
}).map((math) => (math.querySelector("annotation") || math).textContent.trim().slice(0, 60))"""

# Code blocks whose code carries an annotation marker, `# (1)!`, before Material (content.lazy: when the
# block comes into view) turns the markers into buttons: read at load, from the blocks not set up yet.
ANNOTATED_JS = """() => [...document.querySelectorAll("article .highlight")].map((block, i) => [block, i])
  .filter(([block]) => [...block.querySelectorAll(".c1, .c")]
    .some((c) => /\\(\\d+\\)!?$/.test(c.textContent)))
  .map(([, i]) => i)"""
# After the scroll through: the blocks without their annotations; one in a closed <details> is opened, shown,
# looked at and closed again, as a reader would.
MOUNTED_JS = """async (indices) => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50)));
  const missing = [];
  for (const i of indices) {
    const block = document.querySelectorAll("article .highlight")[i];
    const closed = [];
    const shut = (el) => el && el.closest("details:not([open])");
    for (let d = shut(block); d; d = shut(d.parentElement)) {
      closed.push(d);
      d.open = true;
    }
    if (closed.length) {
      block.scrollIntoView();
      await frame();
      await frame();
    }
    if (!block.querySelector(".md-annotation")) missing.push(i);
    closed.forEach((d) => { d.open = false; });
  }
  scrollTo(0, 0);
  return missing;
}"""
# A reader scrolls through the page: every block comes into view once, so Material sets up each code block
# (copy button, annotations) and the browser draws every class="offscreen" block (steps/offscreen.py).
SCROLL_THROUGH_JS = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20)));
  for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight * 0.7) {
    scrollTo(0, y);
    await frame();
  }
  scrollTo(0, 0);
  await frame();
}"""
# The height the build estimated for each offscreen block (sitebuild/steps/offscreen.py and assets/site.css:
# contain-intrinsic-block-size), beside the height it is drawn at, at the current screen width; the blocks
# of closed details (solutions) too, opened for the measure and closed again. The drawn height is taken with
# the block drawn (content-visibility: visible for the measure): a block the browser skipped would report
# the estimate itself.
ESTIMATES_JS = """() => {
  const shut = [...document.querySelectorAll("article details:not([open])")];
  shut.forEach((d) => { d.open = true; });
  const drawn = (el) => {
    const was = el.style.contentVisibility;
    el.style.contentVisibility = "visible";
    const height = el.getBoundingClientRect().height;
    el.style.contentVisibility = was;
    return height;
  };
  const found = [...document.querySelectorAll('[style*="contain-intrinsic-block-size"], [style*="--chars"]')]
    .filter((el) => el.checkVisibility())
    .map((el) => ({
      kind: el.closest("pre") ? "code" : el.matches(".katex-display") ? "formula" : "text",
      block: el.tagName.toLowerCase() + ": " + el.textContent.trim().slice(0, 50),
      estimate: parseFloat(getComputedStyle(el).containIntrinsicBlockSize.replace("auto", "")),
      drawn: drawn(el),
      em: parseFloat(getComputedStyle(el).fontSize),
    }));
  shut.forEach((d) => { d.open = false; });
  return found;
}"""

# Copy buttons: Material's (<button data-md-type="copy"> in the <pre> of its block) on Markdown pages,
# mkdocs-jupyter's (<clipboard-copy>, in the cell's editor) on notebook pages. What a button should copy
# is the code shown in its own block, found from where the button is, not from what the button targets.
COPY_BUTTONS = 'article button[data-md-type="copy"], article clipboard-copy'
SHOWN_CODE_JS = """(button) => {
  const code = button.closest("pre") ? button.closest("pre").querySelector("code")
    : (button.closest(".jp-InputArea") || document).querySelector(".highlight-ipynb pre");
  if (!code) return null;
  const shown = code.cloneNode(true);
  shown.querySelectorAll(".md-annotation, .md-code__nav").forEach((e) => e.remove());  // not code
  return shown.textContent;
}"""


async def _visit(
    context, site: ServedSite, page: SitePage, term: str | None, clipboard: asyncio.Lock
) -> Visit:
    visit = Visit(url=site.url(page))
    local = urlsplit(site.origin).netloc
    phase = {"now": "load"}

    def foreign(url: str) -> bool:
        return urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != local

    tab = await context.new_page()
    # recorded, not routed (a route turns the browser's cache off); the browser resolves no other host
    # (ISOLATED), so such a request fails, and the test of foreign requests names it
    def note(url: str) -> None:
        if foreign(url):
            visit.foreign_requests.append(url)

    tab.on("request", lambda request: note(request.url))
    tab.on("websocket", lambda socket: note(socket.url))

    def on_console(message):
        if message.type == "error" and not is_sitemap_prefetch(message.location.get("url", "")):
            visit.console_errors.append(f"{message.text} (at {message.location.get('url')})")

    def on_failed(request):
        aborted_by_navigation = request.failure == "net::ERR_ABORTED" and phase["now"] in ("switch", "done")
        if request.url in visit.foreign_requests or is_sitemap_prefetch(request.url) or aborted_by_navigation:
            return
        if request.failure == "net::ERR_ABORTED" and PHONE_DRAWING.search(request.url):
            # a <picture> drops its phone drawing's request when the screen widens again before it
            # arrives: harmless if that drawing loads at another moment of the visit (checked at the end)
            dropped.append((request.url, phase["now"]))
            return
        visit.failed_requests.append(f"{request.url}: {request.failure} (while: {phase['now']})")

    def on_response(response):
        if response.status >= 400 and not is_sitemap_prefetch(response.url):
            visit.failed_requests.append(f"{response.url}: HTTP {response.status}")
        elif response.status < 400:
            loaded.add(response.url)

    dropped: list[tuple[str, str]] = []
    loaded: set[str] = set()

    tab.on("console", on_console)
    tab.on("pageerror", lambda err: visit.console_errors.append(f"uncaught {err}"))
    tab.on("requestfailed", on_failed)
    tab.on("response", on_response)

    async def load():
        await tab.goto(visit.url, wait_until="load")
        await tab.evaluate("document.fonts.ready.then(() => true)")
        visit.facts = await tab.evaluate(FACTS_JS)
        visit.facts["images"] = await tab.evaluate(IMAGES_JS)
        annotated = await tab.evaluate(ANNOTATED_JS)
        await tab.evaluate(SCROLL_THROUGH_JS)
        visit.annotated = {"blocks": annotated, "not mounted": await tab.evaluate(MOUNTED_JS, annotated)}

    async def scan():
        await tab.evaluate(axe_source())
        rules = {rule: {"enabled": False} for rule in AXE_DISABLED}
        # Colours are measured at rest, not halfway through the theme's colour transitions.
        await tab.evaluate(ADOPT_CSS, "*, *::before, *::after { transition: none !important; }")
        # Material's palette toggle sets this attribute; both palettes are checked for colour contrast.
        for palette, scheme in (("light", "default"), ("dark", "slate")):
            await tab.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
            await tab.wait_for_timeout(50)
            options = {"resultTypes": ["violations"], "rules": rules}
            if palette == "dark":
                options["runOnly"] = ["color-contrast"]
            result = await tab.evaluate("(options) => axe.run(document, options)", options)
            visit.axe += [
                {
                    "id": v["id"],
                    "palette": palette,
                    "impact": v["impact"],
                    "help": v["help"],
                    "nodes": [" ".join(n["target"]) for n in v["nodes"]][:5],
                }
                for v in result["violations"]
            ]
        await tab.evaluate("document.body.setAttribute('data-md-color-scheme', 'default')")

    async def screenshots():
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
            await tab.set_viewport_size(size)
            await tab.wait_for_timeout(150)
            await wait_until(tab, PICTURES_LOADED_JS, timeout=15_000)  # a <picture> fetches its phone
            if name == "phone":
                # What scrolls sideways on a phone and not on a desktop: can a key reach it? Checked as a
                # reader meets it, scrolling down (a full-page screenshot draws every part at once, which
                # a reader's phone never does), before the screenshot.
                await tab.evaluate(SCROLL_THROUGH_JS)
                result = await tab.evaluate("(options) => axe.run(document, options)",
                                            {"runOnly": ["scrollable-region-focusable"],
                                             "resultTypes": ["violations"]})
                visit.axe += [{"id": v["id"], "palette": "light, phone", "impact": v["impact"],
                               "help": v["help"], "nodes": [" ".join(n["target"]) for n in v["nodes"]][:5]}
                              for v in result["violations"]]
            path = SCREENSHOTS / f"{page.slug}-{name}.png"
            await tab.screenshot(path=str(path), full_page=True)
            visit.screenshots.append(path)
            visit.widths[name] = {
                "screen": size["width"],
                "page": await tab.evaluate("document.documentElement.scrollWidth"),
                "wider": await tab.evaluate(WIDER_THAN_SCREEN_JS),
                "cut formulas": await tab.evaluate(CUT_FORMULAS_JS),
            }
            visit.estimates[name] = await tab.evaluate(ESTIMATES_JS)
        await tab.set_viewport_size(DESKTOP)
        await wait_until(tab, PICTURES_LOADED_JS, timeout=15_000)  # drawing, or its desktop one, anew

    async def copy():
        buttons = tab.locator(COPY_BUTTONS)
        async with clipboard:
            await tab.bring_to_front()
            for i in range(await buttons.count()):
                button = buttons.nth(i)
                if not await button.is_visible():
                    continue  # in a closed tab or details block
                expected = await button.evaluate(SHOWN_CODE_JS)
                await tab.evaluate("navigator.clipboard.writeText('(nothing was copied)')")
                await button.click()
                await tab.wait_for_timeout(30)
                got = await tab.evaluate("navigator.clipboard.readText()")
                visit.copies.append({"button": i, "expected": expected, "clipboard": got})

    async def search():
        placeholder = await tab.evaluate(
            "JSON.parse(document.getElementById('__config').textContent).translations['search.result.placeholder']"
        )
        box = tab.locator("input.md-search__input")
        await box.click()
        await box.press_sequentially(term, delay=10)
        await wait_until(
            tab, """(placeholder) => {
                 const meta = document.querySelector(".md-search-result__meta");
                 return meta && meta.textContent.trim() && meta.textContent.trim() !== placeholder;
               }""",
            arg=placeholder,
        )
        await tab.wait_for_timeout(100)
        visit.search = {
            "term": term,
            "meta": await tab.inner_text(".md-search-result__meta"),
            "preview": await tab.evaluate(RESULTS_PROSE_JS),
            "results": await tab.eval_on_selector_all(
                "a.md-search-result__link", "els => els.map(e => e.href)"
            ),
        }
        await tab.keyboard.press("Escape")

    async def switch():
        phase["now"] = "switch"
        # to the other language only: the way back is the other language's page's own visit (the same
        # switcher on the same page; without Material's instant navigation each switch is a page load)
        for lang in [other for other in LANGS if other != page.lang]:
            await tab.hover(".md-header .md-select")
            async with tab.expect_navigation(wait_until="domcontentloaded"):
                await tab.click(f'.md-header .md-select a[hreflang="{lang}"]')
            html_lang = await tab.evaluate("document.documentElement.lang")
            visit.switches.append({"to": lang, "url": tab.url, "lang": html_lang})
        await tab.wait_for_load_state("load")

    steps = [("load", load), ("axe", scan), ("screenshots", screenshots), ("copy", copy)]
    steps += [("search", search)] if term else []
    steps += [("switch", switch)]
    for name, action in steps:
        try:
            # a step's playwright calls time out on their own, but a script evaluated in the page waits for
            # as long as its promise does: bounded here, so that a page that never answers fails that
            # step's test (a .ci/run once waited forever in one visit) instead of hanging the suite
            await asyncio.wait_for(action(), STEP_SECONDS)
        except Exception as err:  # recorded; the test of that step's rule fails with it
            if isinstance(err, TimeoutError) and not str(err):
                err = TimeoutError(f"the step did not finish within {STEP_SECONDS} s")
            visit.errors[name] = f"{type(err).__name__}: {(str(err).splitlines() or [''])[0]}"
            if name == "load":
                break
    phase["now"] = "done"
    visit.failed_requests += [f"{url}: net::ERR_ABORTED (while: {when}), and never loaded"
                              for url, when in dropped if url not in loaded]
    await asyncio.wait_for(tab.close(), STEP_SECONDS)
    return visit


async def visit_all(
    executable: str, args: list[str], site: ServedSite, pages: list[SitePage]
) -> dict[str, Visit]:
    from playwright.async_api import async_playwright

    terms = search_terms(site)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=[*args, *ISOLATED])
        at_once, clipboard = asyncio.Semaphore(AT_ONCE), asyncio.Lock()
        # One context per language (its locale, the clipboard granted to the site), kept for all its pages'
        # visits, each visit in a tab of its own: a reader's browser keeps its cache from page to page, and
        # a page loaded with the cache warm costs about half the processor time of one in a fresh context.
        contexts = {}
        for lang in LANGS:
            context = await browser.new_context(viewport=DESKTOP, locale="pt-BR" if lang == "pt" else "en-US")
            await context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.origin)
            context.set_default_timeout(20_000)  # generous: a busy machine is slow, not broken
            contexts[lang] = context

        async def one(page: SitePage) -> Visit:
            async with at_once:
                return await _visit(contexts[page.lang], site, page, terms.get(page.id), clipboard)

        visits = await asyncio.gather(*(one(page) for page in pages))
        await browser.close()
    return {page.id: visit for page, visit in zip(pages, visits, strict=True)}


# --- the word to search for on each page --------------------------------------------------------------


class _ArticleWords(HTMLParser):
    """The words of a built page's article that search indexes: outside code, formulas and whatever is
    marked data-search-exclude (the Run bars' notes, for one)."""

    TEX = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\[A-Za-z]+", re.S)
    SKIP_TAGS = {"pre", "code", "script", "style", "clipboard-copy"}
    SKIP_CLASSES = {"arithmatex", "headerlink", "clipboard-copy-txt"}  # formulas, ¶ links, notebook code
    VOID = {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, bool, bool]] = []  # (tag, in article, skipped)
        self.words: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        article, skipped = self.stack[-1][1:] if self.stack else (False, False)
        classes = (dict(attrs).get("class") or "").split()
        skip = (tag in self.SKIP_TAGS or bool(self.SKIP_CLASSES & set(classes))
                or "data-search-exclude" in dict(attrs))
        self.stack.append((tag, article or tag == "article", skipped or skip))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self.stack and self.stack[-1][1] and not self.stack[-1][2]:
            data = self.TEX.sub(" ", data)  # TeX in the annotations of typeset formulas is not a word
            self.words += [w.lower() for w in re.findall(r"[^\W\d_]{5,}", data)]


def _words(site: ServedSite, page: SitePage) -> set[str]:
    parser = _ArticleWords()
    parser.feed((site.dir / page.rel / "index.html").read_text(encoding="utf-8"))
    return set(parser.words)


def search_terms(site: ServedSite) -> dict[str, str]:
    """For each page, a word of it to search for: if possible one its translation has too (so that a search
    leaking into the other language's pages would show), the rarest such word in the page's language."""
    pages = [p for p in source_pages() if p.kind != "404"]
    words = {p.id: _words(site, p) for p in pages}
    terms = {}
    for lang in LANGS:
        mine = [p for p in pages if p.lang == lang]
        frequency = Counter(w for p in mine for w in words[p.id])
        for p in mine:
            shared = set(words[p.id])
            for other in LANGS:
                shared &= words.get(p.translation(other).id, set())
            candidates = sorted(shared or words[p.id], key=lambda w: (frequency[w], -len(w), w))
            if candidates:
                terms[p.id] = candidates[0]
    return terms
