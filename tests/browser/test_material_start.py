"""What sitebuild/patches.py changes about Material's start still works as a reader expects.

- on a phone the navigation drawer (content-visibility: auto while it is closed) opens with its links
  drawn and usable;
- the light/dark toggle still switches the palette, and under prefers-reduced-motion the switch is
  instant (Material's rule, kept active there);
- <html> carries Material's js classes once the page runs, and no-js without JavaScript;
- the page has one <meta name="color-scheme">, which says the palette the reader sees, on load and after
  a switch of light/dark.
"""

from __future__ import annotations

import pytest
from visiting import NO_CHROMIUM, PHONE, find_chromium, in_ci, open_local

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

PAGE = "02-chain-rule/"


def open_page(browser, site, **options):
    return open_local(browser, site.base + PAGE, **options)


def test_the_phone_drawer_opens_with_its_links_drawn(browser, served_site):
    context, tab = open_page(browser, served_site, viewport=PHONE)
    try:
        link = tab.locator(".md-sidebar--primary a.md-nav__link[href*='03-worked-example']").first
        tab.locator('label.md-header__button[for="__drawer"]').click()
        tab.wait_for_timeout(600)  # Material's drawer slides in over 250 ms
        box = link.bounding_box()
        shown = link.evaluate("(a) => a.checkVisibility({ contentVisibilityAuto: true })")
        assert box and box["width"] > 0 and box["height"] > 0 and box["x"] >= 0, f"drawer link at {box}"
        assert shown, "the drawer opened but its links are still skipped (content-visibility)"
        link.click()
        tab.wait_for_load_state("load")
        assert tab.url != served_site.base + PAGE, "a link in the opened drawer does not lead anywhere"
    finally:
        context.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_palette_toggle_still_switches(browser, served_site, motion):
    context, tab = open_page(browser, served_site, reduced_motion=motion, color_scheme="light")
    try:
        before = tab.evaluate("document.body.getAttribute('data-md-color-scheme')")
        # the toggle's label is for the input that is not checked: the other palette
        tab.locator("form[data-md-component=palette] label:not([hidden])").first.click()
        tab.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') !== {before!r}")
        # while Material switches, transitions are off under reduced motion only
        during = tab.evaluate("""() => {
          document.body.setAttribute('data-md-color-switching', '');
          const d = getComputedStyle(document.querySelector('.md-typeset a')).transitionDuration;
          document.body.removeAttribute('data-md-color-switching');
          return d;
        }""")
    finally:
        context.close()
    assert (during == "0s") == (motion == "reduce"), f"{motion}: transition-duration {during} while switching"


def test_html_has_materials_classes_with_javascript_and_no_js_without(browser, served_site):
    for enabled, expected in ((True, {"js", "js-focus-visible"}), (False, {"no-js"})):
        context, tab = open_page(browser, served_site, java_script_enabled=enabled)
        try:
            classes = set((tab.locator("html").get_attribute("class") or "").split())
        finally:
            context.close()
        assert expected <= classes and ("no-js" in classes) != enabled, f"JavaScript {enabled}: {classes}"


SCHEME = """() => ({
  metas: [...document.querySelectorAll('meta[name="color-scheme"]')].map((m) => m.content),
  header: getComputedStyle(document.querySelector('[data-md-component=header]')).colorScheme,
})"""


@pytest.mark.parametrize("preferred", ["light", "dark"])
def test_one_color_scheme_meta_says_the_palette_shown(browser, served_site, preferred):
    context, tab = open_page(browser, served_site, color_scheme=preferred)
    try:
        loaded = tab.evaluate(SCHEME)
        tab.locator("form[data-md-component=palette] label:not([hidden])").first.click()
        tab.wait_for_function(f"getComputedStyle(document.querySelector('[data-md-component=header]'))"
                              f".colorScheme !== {loaded['header']!r}")
        tab.wait_for_timeout(100)  # Material writes the meta on the next frame
        switched = tab.evaluate(SCHEME)
    finally:
        context.close()
    assert loaded["header"] == preferred, f"the page did not open in the {preferred} palette: {loaded}"
    for when, seen in (("on load", loaded), ("after the switch", switched)):
        assert seen["metas"] == [seen["header"]], f"{preferred}, {when}: color-scheme metas {seen}"
