"""A link to what the reader made, and nothing lost on reload (assets/run/keep.js), in Chromium, pt and en.

As a reader, with the keyboard on the page's controls, every host but the site's unreachable:
- a page without a kept state or a #culpa: address loads nothing of it, and a heading's #anchor still works;
- a link made with Copy link (edited code and the worked example's own numbers and step) opened in a fresh
  browser context puts the code in the block's editor, says it came from a link, never runs it, and the
  explorer comes back with the reader's numbers, computed again by culpa in the page; blame's picked weight
  and step and nudge's knob, ε and precision travel the same way;
- a reload keeps the edits and the explorer's step; a block whose page code changed since asks, and each
  answer does what it says; Reset page puts the page back and keeps nothing;
- a malformed, foreign or too long #culpa: link changes nothing and says why, in the page's language;
- the clipboard refused, the link waits selected in a field; on a 390 px phone nothing scrolls sideways;
  axe finds nothing serious in the bar, the field or a block's question, light or dark; screenshots of
  them, desktop and phone (tests/screenshots/).
"""

from __future__ import annotations

import base64
import json
import zlib

import pytest
from test_explorers import SHOWN_JS, open_page, start, url
from visiting import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    WIDER_THAN_SCREEN_JS,
    axe_source,
    find_chromium,
    in_ci,
    wait_until,
)

from sitebuild import strings
from support.served import LANGS

if find_chromium() is None and not in_ci():
    pytest.skip("browser tests skipped: no Chromium", allow_module_level=True)

PAGE = "03-worked-example/"
COMPUTE_MS = 180_000  # the reader's numbers load Python in the page (a busy machine: tens of seconds)
EDIT = '\nprint("kept by the reader")'
# axe over several parts of the page in one run (a run costs about 1.3 s of this machine whatever its size)
AXE_RUN = ("(sels) => axe.run({include: sels.map((s) => [s])}, {resultTypes: ['violations']})"
           ".then((r) => r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,"
           " where: v.nodes.map((n) => n.target.join(' '))})))")
LOGITS = {"pt": ["3,5", "-1", "0,25"], "en": ["3.5", "-1", "0.25"]}


def words(lang):
    return strings.of(lang)["keep"]


def fill(text, **values):
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def count(n, lang):
    """A count as the page writes it (toLocaleString): 9.010 in pt, 9,010 in en."""
    return f"{n:,}".replace(",", "." if lang == "pt" else ",")


def kept_ready(tab):
    wait_until(tab, "() => Boolean(window.culpaKeep)", timeout=10_000)


def said(tab):
    """The bar's status line, once keep.js wrote it (after a short pause, for screen readers to notice)."""
    wait_until(tab, "() => document.querySelector('.keep-status').textContent !== ''", timeout=10_000)
    return tab.locator(".keep-status").text_content()


KEPT = "JSON.parse(localStorage.getItem('culpa-keep:' + location.pathname) || 'null')"
CONFIG = "JSON.parse(document.getElementById('run-config').textContent)"


def stored(tab):
    return tab.evaluate(f"() => {KEPT}")


def wait_kept(tab, expression):
    """Wait until `expression` (of `kept`, what this browser keeps for the page) holds."""
    wait_until(tab, f"() => {{ const kept = {KEPT}; return {expression}; }}", timeout=10_000)


def changed_since(tab, blocks):
    """As if the page's code of these blocks changed since their edits were kept: the kept hashes differ."""
    tab.evaluate(f"""(blocks) => {{ const kept = {KEPT};
      blocks.forEach((k) => {{ kept.blocks[k].hash = '000000000000'; }});
      localStorage.setItem('culpa-keep:' + location.pathname, JSON.stringify(kept)); }}""", blocks)


def code(tab, k):
    return tab.evaluate("(k) => window.culpaRun.code(k)", k)


def page_code(tab, k):
    return tab.evaluate(f"(k) => {CONFIG}.blocks[k].code", k)


def edit(tab, k, text=EDIT):
    """Type at the end of block k's code, as a reader does."""
    box = tab.locator(f'[data-run-block="{k}"] code')
    box.click()
    tab.keyboard.press("Control+End")
    tab.keyboard.type(text)
    kept_ready(tab)
    wait_kept(tab, f"kept && kept.blocks[{k}]")


def press(tab, selector):
    """A control pressed from the keyboard: focused, then Enter."""
    tab.locator(selector).focus()
    tab.keyboard.press("Enter")


def copy_link(tab):
    tab.evaluate("() => { const bar = document.querySelector('[data-keep]'); delete bar.dataset.keepLink; }")
    press(tab, "[data-keep-copy]")
    wait_until(tab, "() => document.querySelector('[data-keep]').dataset.keepLink", timeout=30_000)
    return tab.locator("[data-keep]").get_attribute("data-keep-link")


def untouched_output(tab, k):
    return tab.evaluate("(k) => { const o = document.querySelector(`[data-run-output='${k}']`);"
                        " return o.hidden && o.textContent === '' && !o.dataset.state; }", k)


def fresh(browser, link, size=DESKTOP, **options):
    """Another browser, as far as the page can tell: a context of its own (its own storage), at the link.
    No other host resolves (the `browser` fixture's ISOLATED); no route, which would turn the cache off."""
    context = browser.new_context(viewport=size, **options)
    tab = context.new_page()
    tab.errors, tab.requests = [], []
    tab.on("pageerror", lambda err: tab.errors.append(str(err)))
    tab.on("request", lambda r: tab.requests.append(r.url))
    tab.goto(link, wait_until="load")
    return context, tab


def encoded(payload) -> str:
    """A #culpa: fragment as keep.js writes one (deflate-raw, base64url), for links the tests forge."""
    squeeze = zlib.compressobj(wbits=-15)
    data = squeeze.compress(json.dumps(payload).encode()) + squeeze.flush()
    return "#culpa:1z." + base64.urlsafe_b64encode(data).decode().rstrip("=")


def wait_reader_numbers(tab, name="worked-example"):
    wait_until(
        tab, "(n) => { const r = document.querySelector(`[data-explorer='${n}']`);"
        " return r.dataset.numbers === 'reader' && !r.dataset.computing && !r.dataset.keepRestoring; }",
        arg=name, timeout=COMPUTE_MS)


@pytest.mark.parametrize("lang", LANGS)
def test_a_plain_page_loads_nothing_of_it_and_anchors_still_work(browser, served_site, lang):
    context, tab = open_page(browser, served_site, lang, PAGE)
    try:
        requests = []
        tab.on("request", lambda r: requests.append(r.url))
        heading = tab.evaluate("() => [...document.querySelectorAll('article h2[id]')].pop().id")
        tab.goto("about:blank")  # then the page loads afresh, at the heading
        tab.goto(url(served_site, lang, PAGE) + "#" + heading, wait_until="load")
        tab.wait_for_timeout(1500)
        top = tab.evaluate("(id) => document.getElementById(id).getBoundingClientRect().top", heading)
        loaded = [u for u in requests if "/assets/run/keep" in u]
        assert loaded == [], f"a page with nothing kept loaded {loaded}"
        assert tab.evaluate("() => window.culpaKeep === undefined"), "keep.js ran on a page with nothing kept"
        assert tab.evaluate("() => location.hash") == "#" + heading
        assert 0 <= top < 200, f"the heading #{heading} is not where the page scrolled: top {top}"
        assert tab.locator(".keep-status").text_content() == ""
        assert tab.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_a_link_restores_edited_code_unrun_and_the_explorers_numbers(browser, served_site, lang):
    w = words(lang)
    clipboard = ["clipboard-read", "clipboard-write"]
    context, tab = open_page(browser, served_site, lang, PAGE, permissions=clipboard)
    try:
        edit(tab, 1)
        made = code(tab, 1)
        root = start(tab, "worked-example")
        fields = root.locator(".xp-inputs input")
        for k, text in enumerate(LOGITS[lang]):
            fields.nth(k).fill(text)
        fields.nth(2).press("Enter")
        wait_reader_numbers(tab)
        root.locator(".xp-stage").focus()
        for _ in range(11):
            tab.keyboard.press("ArrowRight")
        shown, step = root.evaluate(SHOWN_JS)["numbers"], root.get_attribute("data-step")
        link = copy_link(tab)
        assert tab.evaluate("() => navigator.clipboard.readText()") == link, "Copy link did not copy the link"
        assert said(tab) == fill(w["copied"], chars=count(len(link), lang),
                                 what=fill(w["whatBlock"], blocks=2) + w["and"] + w["whatExplorer"])
        assert link.startswith(url(served_site, lang, PAGE) + "#culpa:1z.")
    finally:
        context.close()

    other, tab = fresh(browser, link)
    try:
        kept_ready(tab)
        status = said(tab)
        assert status == fill(w["opened"], what=fill(w["whatBlock"], blocks=2) + w["and"] + w["whatExplorer"])
        assert code(tab, 1) == made, "the link's code is not in the block's editor"
        assert tab.locator('[data-run-bar="1"] [data-keep-note]').text_content() == w["linkNote"]
        assert tab.evaluate("() => location.hash") == "", "the link stayed in the address"
        assert untouched_output(tab, 1), "code that came by a link ran without the reader pressing Run"
        root = start(tab, "worked-example")
        wait_reader_numbers(tab)
        assert [f.input_value() for f in root.locator(".xp-inputs input").all()] == LOGITS[lang]
        assert root.get_attribute("data-step") == step
        assert root.evaluate(SHOWN_JS)["numbers"] == shown, "the explorer does not show the link's numbers"
        # Python is loaded in this page by now: the link's code still has not run
        assert untouched_output(tab, 1), "code that came by a link ran without the reader pressing Run"
        assert stored(tab)["blocks"]["1"]["code"] == made, "the link's edit is not kept as the reader's"
        assert all(u.startswith(served_site.base) or u.startswith(("blob:", "data:")) for u in tab.requests)
        assert tab.errors == []
    finally:
        other.close()


@pytest.mark.parametrize("lang", LANGS)
def test_blame_and_nudge_states_travel_by_link(browser, served_site, lang):
    views = {}
    for name, path in (("blame", "04-through-a-network/"), ("nudge", "08-honest-habits/")):
        context, tab = open_page(browser, served_site, lang, path)
        try:
            root = start(tab, name)
            if name == "blame":
                root.locator(".xp-stage").focus()
                for _ in range(5):
                    tab.keyboard.press("ArrowRight")
                options = root.locator("select#xp-blame-pick option")
                weight = options.nth(options.count() - 2).get_attribute("value")
                root.locator("select#xp-blame-pick").select_option(weight)
                look = "(r) => [r.dataset.step, r.querySelector('#xp-blame-pick').value]"
            else:
                root.locator("[data-kind='kink']").click()
                root.locator(".xp-precision:not(.xp-kinds) .xp-choice").last.click()
                eps = root.locator("input[type=range]").nth(1)
                eps.focus()
                for _ in range(3):
                    tab.keyboard.press("ArrowLeft")
                knob = root.locator("input[type=range]").first
                knob.focus()
                for _ in range(2):
                    tab.keyboard.press("ArrowRight")
                # the θ field says the θ the knob slider points at, before the link and after it
                look = ("(r) => [r.dataset.kind, r.dataset.precision, r.dataset.eps, r.dataset.knob,"
                        " r.querySelector('input[name=theta]').value]")
            wait_until(tab, "() => localStorage.length > 0", timeout=10_000)
            before = root.evaluate(look)
            link = copy_link(tab)
        finally:
            context.close()
        other, tab = fresh(browser, link)
        try:
            kept_ready(tab)
            root = start(tab, name)
            wait_until(tab, "(n) => !document.querySelector(`[data-explorer='${n}']`)"
                            ".dataset.keepRestoring", arg=name)
            views[name] = (before, root.evaluate(look), tab.errors)
        finally:
            other.close()
    for name, (before, after, errors) in views.items():
        assert after == before, f"{name}: the link's state {before} came back as {after}"
        assert errors == []


def three_steps_kept_then_reload(tab):
    """The worked example started and moved three steps on from the keyboard, kept, then the page reloaded."""
    root = start(tab, "worked-example")
    root.locator(".xp-stage").focus()
    for _ in range(3):
        tab.keyboard.press("ArrowRight")
    wait_kept(tab, "kept && kept.explorers[0] && kept.explorers[0].state.step === 3")
    tab.reload(wait_until="load")
    kept_ready(tab)


@pytest.mark.parametrize("lang", LANGS)
def test_a_reload_keeps_edits_and_the_explorers_step(browser, served_site, lang):
    w = words(lang)
    context, tab = open_page(browser, served_site, lang, PAGE)
    try:
        edit(tab, 2)
        made = code(tab, 2)
        three_steps_kept_then_reload(tab)
        both = fill(w["whatBlock"], blocks=3) + w["and"] + w["whatExplorer"]
        assert said(tab) == fill(w["restored"], what=both)
        assert code(tab, 2) == made, "the edit did not survive the reload"
        assert untouched_output(tab, 2)
        start(tab, "worked-example")
        wait_until(tab, "() => document.querySelector('[data-explorer]').dataset.step === '4'")
        # the block's own Reset forgets the kept edit
        press(tab, '[data-run-bar="2"] [data-run="reset"]')
        wait_kept(tab, "!kept.blocks[2]")
        assert code(tab, 2) == page_code(tab, 2)
        assert tab.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_the_home_previews_kept_step_comes_back_without_a_touch(browser, served_site, lang):
    """The home page's preview waits for the reader's first touch (assets/explorers/start.js); a state kept
    for it starts it at once on reload (keep.js wakes it), at the step the reader left."""
    context, tab = open_page(browser, served_site, lang, "")
    try:
        three_steps_kept_then_reload(tab)  # start() clicks the preview: the reader's first touch
        wait_until(tab, "() => document.querySelector('[data-explorer]').dataset.step === '4'",
                   timeout=10_000)
        assert tab.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_a_page_whose_code_changed_asks_and_each_answer_does_what_it_says(browser, served_site, lang):
    w = words(lang)
    context, tab = open_page(browser, served_site, lang, PAGE)
    try:
        edit(tab, 1)
        edit(tab, 3)
        mine = {1: code(tab, 1), 3: code(tab, 3)}
        # the page's code of both blocks changed since the edits were kept: their hashes no longer match
        changed_since(tab, [1, 3])
        tab.reload(wait_until="load")
        kept_ready(tab)
        assert said(tab) == (fill(w["restored"], what=fill(w["whatBlocks"], blocks="2, 4")) + " "
                             + fill(w["changedSaid"], blocks="2, 4"))
        for k in (1, 3):
            question = tab.locator(f'[data-run-bar="{k}"] [data-keep-changed]')
            assert question.get_attribute("aria-label") == w["changed"]
            assert question.locator("button").all_text_contents() == [w["keepMine"], w["takeNew"]]
            assert code(tab, k) == page_code(tab, k), "the page's new code shows until the reader chooses"
        press(tab, '[data-run-bar="1"] [data-keep-changed] button >> nth=0')  # keep my edit
        assert code(tab, 1) == mine[1]
        assert stored(tab)["blocks"]["1"]["hash"] == tab.evaluate(f"() => {CONFIG}.blocks[1].hash")
        assert tab.evaluate("() => document.activeElement.dataset.run") == "run"
        assert said(tab) == fill(w["keptMine"], n=2)
        press(tab, '[data-run-bar="3"] [data-keep-changed] button >> nth=1')  # take the new code
        assert code(tab, 3) == page_code(tab, 3)
        assert "3" not in stored(tab)["blocks"]
        assert tab.locator("[data-keep-changed]").count() == 0
        assert tab.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_reset_page_puts_the_page_back_and_keeps_nothing(browser, served_site, lang):
    w = words(lang)
    context, tab = open_page(browser, served_site, lang, PAGE)
    try:
        edit(tab, 1)
        edit(tab, 2)
        root = start(tab, "worked-example")
        root.locator(".xp-stage").focus()
        tab.keyboard.press("End")
        wait_kept(tab, "kept.explorers[0]")
        press(tab, "[data-keep-reset]")
        assert said(tab) == w["resetDone"]
        wait_kept(tab, "kept === null")
        assert [code(tab, k) for k in (1, 2)] == [page_code(tab, k) for k in (1, 2)]
        assert root.get_attribute("data-step") == "1"
        assert tab.evaluate("() => document.activeElement.hasAttribute('data-keep-reset')")
        assert tab.locator("[data-keep-reset]").get_attribute("aria-disabled") == "true"
        tab.reload(wait_until="load")
        tab.wait_for_timeout(1000)
        assert code(tab, 1) == page_code(tab, 1)
        assert tab.locator(".keep-status").text_content() == ""
        assert tab.errors == []
    finally:
        context.close()


def bad_links(lang):
    """(fragment, the reason the page must give)"""
    w = words(lang)
    return [
        ("#culpa:1z.not*base64", w["whyEncoding"]),
        ("#culpa:1z.AAAA", w["whyEncoding"]),  # not deflate
        ("#culpa:1j." + base64.urlsafe_b64encode(b"{oops").decode().rstrip("="), w["whyEncoding"]),
        ("#culpa:7z.AAAA", fill(w["whyVersion"], version=7, expected=1)),
        (encoded({"v": 1, "b": [[999, "0", "print(1)"]], "x": []}), fill(w["whyBlock"], n=1000)),
        (encoded({"v": 1, "b": [], "x": [[0, "nudge", {"step": 1}]]}), w["whyExplorer"]),
        ("#culpa:1z." + "A" * 9000, fill(w["whyLength"], chars=count(9010, lang), limit=count(8000, lang))),
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_a_malformed_link_changes_nothing_and_says_why(browser, served_site, lang):
    w = words(lang)
    context, tab = open_page(browser, served_site, lang, PAGE)
    try:
        edit(tab, 1)  # what this browser kept must come back untouched by a bad link
        before = stored(tab)
        for fragment, why in bad_links(lang):
            tab.goto("about:blank")
            tab.goto(url(served_site, lang, PAGE) + fragment, wait_until="load")
            kept_ready(tab)
            assert said(tab) == fill(w["badLink"], why=why), fragment[:40]
            assert stored(tab) == before, f"{fragment[:40]}: the kept state changed"
            assert code(tab, 1) == before["blocks"]["1"]["code"]
            assert [code(tab, k) for k in (0, 2)] == [page_code(tab, k) for k in (0, 2)]
            assert tab.locator("[data-keep-note]").count() == 0
        assert tab.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_a_refused_clipboard_leaves_the_link_selected_and_no_sideways_scroll(browser, served_site, lang):
    w = words(lang)
    for size, palette in ((DESKTOP, "light"), (PHONE, "dark")):
        context, tab = open_page(browser, served_site, lang, PAGE, size=size)
        try:
            edit(tab, 1)
            edit(tab, 3)
            changed_since(tab, [3])
            tab.reload(wait_until="load")
            kept_ready(tab)
            if palette == "dark":
                tab.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'slate')")
            tab.evaluate("() => { navigator.clipboard.writeText = () =>"
                         " Promise.reject(new DOMException('refused', 'NotAllowedError')); }")
            link = copy_link(tab)
            assert said(tab) == w["copyRefused"]
            field = tab.locator(".keep-field input")
            assert field.count() == 1, "the clipboard refused, and no field holds the link"
            assert field.input_value() == link
            assert tab.evaluate("() => document.activeElement.closest('.keep-field') !== null")
            assert tab.evaluate("() => { const f = document.activeElement;"
                                " return f.selectionStart === 0 && f.selectionEnd === f.value.length; }")
            assert tab.locator(".keep-field").text_content() == w["field"]
            if size == PHONE:
                wide = tab.evaluate(WIDER_THAN_SCREEN_JS)
                assert wide == [], f"{lang} phone: these make the page scroll sideways: {wide}"
                assert tab.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            tab.evaluate(axe_source())  # as DevTools does: the page's policy refuses an inline script
            found = tab.evaluate(AXE_RUN, [".keep-bar", '[data-run-bar="3"]', '[data-run-bar="1"]'])
            bad = [f"{v['id']} ({v['impact']}): {v['help']}, at {v['where']}" for v in found
                   if v["impact"] in ("serious", "critical")]
            assert bad == [], f"{lang} {palette}, the keep bar and run bars 1 and 3: axe finds {bad}"
            shot = f"keep-{lang}-{size['width']}-{palette}"
            tab.locator(".keep-bar").screenshot(path=str(SCREENSHOTS / f"{shot}-bar.png"))
            box = tab.locator('[data-run-bar="3"]')
            box.scroll_into_view_if_needed()
            box.screenshot(path=str(SCREENSHOTS / f"{shot}-question.png"))
            assert tab.errors == []
        finally:
            context.close()
