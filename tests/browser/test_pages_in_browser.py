"""Every page, in both languages, as a reader's browser shows it: Chromium on the site served under /REPO/.

Each page is visited once and used as a reader would (tests/browser/visiting.py: load, scan, screenshots,
copy a code block, search, switch language). Each test below checks one rule on what was
recorded, so a failure names the page and the rule:

- no console error and no uncaught exception, while loading or using the page;
- no failed request, and no request to any host but the local server (those are blocked and recorded);
- every formula typeset by KaTeX at build time: in the HTML as served (before any script runs) no raw TeX
  is left in the page's text, every formula Arithmatex marked holds KaTeX's rendering, and there is math
  wherever the page's source has math; no math script is loaded;
- every image loaded, with a non-zero natural size;
- the language switcher leads to the same page in the other language (whose own visit switches back);
- each code block's copy button puts that block's code on the clipboard;
- searching for a word of the page finds the page in its language and no page of the other language, and
  the results' previews quote formulas as text, never as TeX;
- an axe-core scan finds no serious or critical accessibility violation (colour contrast in both palettes);
- a notebook page shows its cells' outputs, and no error;
- a screenshot at desktop and at phone size lands in tests/screenshots/ (CI keeps it as an artifact);
- at phone size the page is no wider than the screen, and no formula is cut off (a wide one scrolls);
- every code block whose code carries an annotation marker gets Material's annotations once a reader has
  scrolled to it (content.lazy sets blocks up as they come into view; Run in the page's bar must not come
  between a block and its list of annotations);
- the height the build estimated for each block drawn only when the reader comes near it
  (sitebuild/steps/offscreen.py) is within ESTIMATE_TOLERANCE (for a paragraph: or one line of text) of the
  height the browser draws it at, at desktop and at phone width: a wrong estimate makes the scroll bar
  and the table of contents jump while the reader scrolls.
"""

from __future__ import annotations

import re

import pytest
from visiting import NO_CHROMIUM, find_chromium, in_ci

from sitebuild.steps import offscreen
from support.served import LANGS, SitePage, source_pages

if find_chromium() is None and not in_ci():  # under CI=true the `chromium` fixture fails instead
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

# Raw TeX that KaTeX should have replaced, looked for in the page's text outside code and KaTeX output.
RAW_TEX = {
    "a $$ display-math delimiter": re.compile(r"\$\$"),
    "a \\( or \\) delimiter": re.compile(r"\\[()]"),
    "a \\[ or \\] delimiter": re.compile(r"\\[\[\]]"),
    "a TeX command": re.compile(r"\\[A-Za-z]{2,}"),
    "a $...$ formula": re.compile(r"\$(?=\S)[^$\n]{1,300}?(?<=\S)\$"),
}
SOURCE_MATH = re.compile(r"\$[^$\n]+\$|\\\(|\\\[")


def start_early(session) -> None:
    """The visits (minutes of Chromium) start right after collection, beside the other tests (conftest.py)."""
    from conftest import start_visits_early

    start_visits_early(session)


# --- the rules -------------------------------------------------------------------------------------


def test_no_console_error(visits, site_page):
    visit = visits(site_page)
    assert not visit.console_errors, (
        f"{site_page.id}: console errors on {visit.url}:\n"
        + "\n".join(visit.console_errors)
        + visit.step_error("load")
    )


def test_no_failed_request(visits, site_page):
    visit = visits(site_page)
    assert not visit.failed_requests, f"{site_page.id}: failed requests on {visit.url}:\n" + "\n".join(
        visit.failed_requests
    )


def test_no_request_to_another_host(visits, site_page):
    visit = visits(site_page)
    assert not visit.foreign_requests, (
        f"{site_page.id}: requests to hosts other than the site's (blocked here; a reader's browser would "
        "make them):\n" + "\n".join(sorted(set(visit.foreign_requests)))
    )


def _source_has_math(page: SitePage) -> bool:
    if page.source is None:
        return False
    text = page.source.read_text(encoding="utf-8")
    text = re.sub(r"^(\s*)(```|~~~).*?^\1\2\s*$", "", text, flags=re.S | re.M)  # fenced code
    text = re.sub(r"`[^`\n]+`", "", text)  # inline code
    return bool(SOURCE_MATH.search(text))


def test_every_formula_is_typeset(visits, site_page):
    visit = visits(site_page)
    facts = visit.facts
    assert facts, f"{site_page.id}: the page did not load" + visit.step_error("load")
    raw = [
        f"{what}: …{facts['prose'][max(0, m.start() - 40) : m.end() + 40]!r}…"
        for what, pattern in RAW_TEX.items()
        for m in [pattern.search(facts["prose"])]
        if m
    ]
    assert not raw, (
        f"{site_page.id}: raw TeX left in the page's text (KaTeX did not typeset it):\n" + "\n".join(raw)
    )
    assert not facts["untypeset"], f"{site_page.id}: formulas without a KaTeX rendering: {facts['untypeset']}"
    assert not facts["katexErrors"], f"{site_page.id}: KaTeX could not typeset: {facts['katexErrors']}"
    if _source_has_math(site_page):
        assert facts["katex"] > 0, f"{site_page.id}: its source has math, but the page shows no KaTeX formula"
    assert not facts["mathScripts"], f"{site_page.id}: loads a math script: {facts['mathScripts']}"


def test_every_image_loads(visits, site_page):
    visit = visits(site_page)
    images = visit.facts.get("images")
    assert images is not None, f"{site_page.id}: the page did not load" + visit.step_error("load")
    broken = [i["src"] for i in images if not i["complete"] or not i["width"] or not i["height"]]
    assert not broken, f"{site_page.id}: images that did not load (natural size 0): {broken}"


def test_language_switch_leads_to_the_same_page_in_the_other_language(visits, served_site, site_page):
    """The way back is the other page's own visit: every page of both languages is visited."""
    visit = visits(site_page)
    expected = [(page.lang, served_site.url(page))
                for page in (site_page.translation(o) for o in LANGS if o != site_page.lang)]
    got = [(s["to"], s["url"]) for s in visit.switches]
    assert got == expected, (
        f"{site_page.id}: the language switcher went {got}, expected {expected}" + visit.step_error("switch")
    )
    for switch in visit.switches:
        assert switch["lang"].split("-")[0] == switch["to"], f"{switch['url']} is not in {switch['to']}"


def test_copy_button_copies_the_code(visits, content_page):
    visit = visits(content_page)
    assert "copy" not in visit.errors, f"{content_page.id}: copying failed" + visit.step_error("copy")
    assert visit.copies, f"{content_page.id}: every chapter page shows code, but no copy button was found"
    wrong = [
        c for c in visit.copies if c["expected"] is None or c["clipboard"].rstrip() != c["expected"].rstrip()
    ]
    assert not wrong, f"{content_page.id}: copy buttons that did not copy their block's code:\n" + "\n".join(
        f"button {c['button']}: clipboard {c['clipboard'][:120]!r}, block {(c['expected'] or '')[:120]!r}"
        for c in wrong
    )


def test_search_finds_the_page_in_its_language_only(visits, served_site, content_page):
    visit = visits(content_page)
    assert visit.search, f"{content_page.id}: no search was made" + visit.step_error("search")
    results = visit.search["results"]
    found = [served_site.page_at(url) for url in results]
    assert content_page in found, (
        f"{content_page.id}: searching {visit.search['term']!r} did not find the page "
        f"({visit.search['meta']!r}; results: {results})"
    )
    others = [
        url
        for url, page in zip(results, found, strict=True)
        if page is None or page.lang != content_page.lang
    ]
    assert not others, (
        f"{content_page.id}: searching {visit.search['term']!r} from a {content_page.lang} page returned "
        f"pages of another language (or outside the site): {others}"
    )
    raw = [what for what, pattern in RAW_TEX.items() if pattern.search(visit.search["preview"])]
    assert not raw, f"{content_page.id}: the search results' previews show raw TeX ({', '.join(raw)})"
    known = {p.id for p in source_pages()}
    unknown = [url for url, page in zip(results, found, strict=True) if page is None or page.id not in known]
    assert not unknown, f"{content_page.id}: search results that are not pages of the site: {unknown}"


def test_no_serious_accessibility_violation(visits, site_page):
    visit = visits(site_page)
    assert "axe" not in visit.errors, f"{site_page.id}: the axe scan did not run" + visit.step_error("axe")
    serious = [v for v in visit.axe if v["impact"] in ("serious", "critical")]
    assert not serious, f"{site_page.id}: axe-core finds serious or critical violations:\n" + "\n".join(
        f"{v['impact']} {v['id']} ({v['palette']} palette): {v['help']} at {v['nodes']}" for v in serious
    )


def test_screenshots_at_desktop_and_phone_size(visits, site_page):
    visit = visits(site_page)
    assert len(visit.screenshots) == 2, f"{site_page.id}: screenshots missing" + visit.step_error(
        "screenshots"
    )
    for path in visit.screenshots:
        assert path.stat().st_size > 1000, f"{path} is empty"


def test_the_page_fits_the_screen_of_a_phone(visits, site_page):
    """Wide content (code, formulas, figures, tables) scrolls inside its own box; the page never scrolls
    sideways, which on a phone makes the whole page wobble under the reader's thumb."""
    visit = visits(site_page)
    phone = visit.widths.get("phone")
    assert phone, f"{site_page.id}: the page was not measured" + visit.step_error("screenshots")
    assert phone["page"] <= phone["screen"], (
        f"{site_page.id}: at phone size the page is {phone['page']}px wide on a {phone['screen']}px screen; "
        f"sticking out: {phone['wider']}"
    )


def test_wide_formulas_scroll_instead_of_being_cut_off(visits, site_page):
    visit = visits(site_page)
    for size, measured in visit.widths.items():
        assert not measured["cut formulas"], (
            f"{site_page.id}: at {size} size these formulas are cut off, and cannot be scrolled into view: "
            f"{measured['cut formulas']}"
        )


def test_notebook_pages_show_their_outputs(visits, lab_page):
    facts = visits(lab_page).facts
    notebook = facts.get("notebook", {})
    assert facts, f"{lab_page.id}: the page did not load" + visits(lab_page).step_error("load")
    assert not facts.get("rawNotebookSource"), (
        f"{lab_page.id}: the page shows the notebook's source text, not the notebook"
    )
    assert notebook.get("codeCells"), f"{lab_page.id}: no rendered notebook code cell on the page"
    assert notebook.get("outputs"), f"{lab_page.id}: the notebook's cells show no output"
    assert not notebook.get("errors"), f"{lab_page.id}: cells show errors: {notebook['errors']}"


def test_pages_are_in_their_language(visits, site_page):
    lang = visits(site_page).facts.get("lang", "")
    assert lang.split("-")[0] == site_page.lang, f"{site_page.id}: <html lang={lang!r}>"


def test_annotated_code_blocks_get_their_annotations(visits, site_page):
    visit = visits(site_page)
    assert visit.annotated or "load" in visit.errors, f"{site_page.id}: annotations were not looked at"
    missing = visit.annotated.get("not mounted", [])
    assert not missing, (
        f"{site_page.id}: code blocks {missing} (counted from the top of the article) carry annotation "
        "markers, # (1)!, but Material did not turn them into annotations once they were in view"
    )


def test_offscreen_estimates_are_close_to_the_drawn_heights(visits, site_page):
    visit = visits(site_page)
    assert visit.estimates, f"{site_page.id}: not measured" + visit.step_error("screenshots")
    off = []
    for size, blocks in visit.estimates.items():
        for b in blocks:
            share = offscreen.ESTIMATE_TOLERANCE[b["kind"]]
            bound = share * b["drawn"] if b["kind"] != "text" else max(
                share * b["drawn"], offscreen.LINE_SLACK_EM * b["em"])
            if abs(b["estimate"] - b["drawn"]) > bound:
                off.append(f"{size}: {b['kind']} {b['block']!r}: estimated {b['estimate']:.0f}px, "
                           f"drawn {b['drawn']:.0f}px")
    assert not off, (
        f"{site_page.id}: blocks whose estimated height (steps/offscreen.py, assets/site.css) is off by "
        f"more than {offscreen.ESTIMATE_TOLERANCE} (a paragraph: or a line of text):\n" + "\n".join(off[:20])
    )
