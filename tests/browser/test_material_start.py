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
from visiting import DESKTOP, NO_CHROMIUM, PHONE, axe_source, find_chromium, in_ci, kept_tab, wait_until

from sitebuild import strings

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

PAGE = "02-chain-rule/"


def open_page(browser, site, **options):
    return kept_tab(browser, site.base + PAGE, **options)


def test_the_phone_drawer_opens_with_its_links_drawn(browser, served_site):
    context, tab = open_page(browser, served_site, viewport=PHONE)
    try:
        link = tab.locator(".md-sidebar--primary a.md-nav__link[href*='03-worked-example']").first
        tab.locator(".md-header .culpa-drawer-button").click()
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
        wait_until(tab, f"document.body.getAttribute('data-md-color-scheme') !== {before!r}")
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
        wait_until(tab, f"getComputedStyle(document.querySelector('[data-md-component=header]'))"
                        f".colorScheme !== {loaded['header']!r}")
        tab.wait_for_timeout(100)  # Material writes the meta on the next frame
        switched = tab.evaluate(SCHEME)
    finally:
        context.close()
    assert loaded["header"] == preferred, f"the page did not open in the {preferred} palette: {loaded}"
    for when, seen in (("on load", loaded), ("after the switch", switched)):
        assert seen["metas"] == [seen["header"]], f"{preferred}, {when}: color-scheme metas {seen}"


FOCUSED = """() => { const e = document.activeElement, r = e.getBoundingClientRect();
  return {drawer: e.matches('button.culpa-drawer-button'), in_drawer: !!e.closest('.md-sidebar--primary'),
          seen: (() => { const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                         return !!at && e.contains(at); })(),
          role: e.tagName, name: e.getAttribute('aria-label'),
          expanded: e.getAttribute('aria-expanded'), x: Math.round(r.x), y: Math.round(r.y),
          what: e.tagName + ' ' + (e.getAttribute('aria-label') || e.textContent.trim().slice(0, 40))}; }"""
OPEN = "() => document.getElementById('__drawer').checked"
INERT = "() => document.querySelector('.md-sidebar--primary').inert"


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_on_a_phone_the_keyboard_opens_the_drawer_and_tab_skips_it_closed(browser, served_site, lang):
    """assets/a11y.js: Material's drawer button is a label no key reaches, and the closed drawer's links,
    off the screen, took Tab. With the keyboard only: Tab from the top reaches the button (named in the
    page's language) and no link of the closed drawer; Enter opens the drawer and moves into it, onto a
    link on the screen; Escape closes it and comes back to the button. On a desktop, where the navigation is
    a sidebar on the screen, nothing of it is inert."""
    words = strings.of(lang)["a11y"]
    context, tab = kept_tab(browser, served_site.base + ("" if lang == "pt" else "en/") + PAGE,
                            viewport=PHONE)
    errors = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    try:
        stops = []
        for _ in range(10):
            tab.keyboard.press("Tab")
            stops.append(tab.evaluate(FOCUSED))
        button = next((s for s in stops if s["drawer"]), None)
        assert button is not None, f"Tab never reached the drawer's button: {[s['what'] for s in stops]}"
        named = (button["role"], button["name"], button["expanded"])
        assert named == ("BUTTON", words["navigation"], "false"), named
        hidden = [s["what"] for s in stops if s["in_drawer"]]
        assert not hidden, f"Tab reached links of the closed drawer, off the screen: {hidden}"
        tab.locator(".md-header .culpa-drawer-button").focus()
        tab.keyboard.press("Enter")
        wait_until(tab, "() => document.activeElement.closest('.md-sidebar--primary')", timeout=5000)
        inside = tab.evaluate(FOCUSED)
        assert tab.evaluate(OPEN), "Enter on the drawer's button did not open it"
        assert inside["in_drawer"] and inside["x"] >= 0, f"after Enter, the focus is on {inside}"
        assert inside["seen"], f"after Enter, the focus is on a link the reader does not see: {inside}"
        assert tab.locator(".md-header .culpa-drawer-button").get_attribute("aria-expanded") == "true"
        tab.keyboard.press("Tab")
        following = tab.evaluate(FOCUSED)
        assert following["in_drawer"] and following["seen"], f"Tab in the open drawer went to {following}"
        # the open drawer, a link in it focused, reads in both palettes (axe measures colours at rest only
        # in the page visits, where the drawer is closed)
        tab.evaluate(axe_source())
        for scheme in ("default", "slate"):
            tab.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
            tab.wait_for_timeout(300)  # Material's colour transitions
            low = tab.evaluate("() => axe.run(document.querySelector('.md-sidebar--primary'),"
                               " {runOnly: ['color-contrast']}).then((r) => r.violations.flatMap((v) =>"
                               " v.nodes.map((n) => n.target.join(' ') + ': '"
                               " + n.any.map((a) => a.message))))")
            assert not low, f"{scheme}: the open drawer's contrast: {low}"
        tab.evaluate("document.body.setAttribute('data-md-color-scheme', 'default')")
        tab.keyboard.press("Escape")
        back = tab.evaluate(FOCUSED)
        assert not tab.evaluate(OPEN), "Escape did not close the drawer"
        assert back["drawer"] and back["expanded"] == "false", f"after Escape, the focus is on {back}"
        assert tab.evaluate(INERT), "the closed drawer is not inert"
        tab.set_viewport_size(DESKTOP)
        tab.wait_for_timeout(100)
        assert not tab.evaluate(INERT), "on a desktop, the navigation sidebar is inert"
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_on_a_phone_the_keyboard_reaches_every_section_of_the_drawer_and_stays_in_it(browser, served_site,
                                                                                     lang):
    """assets/drawer.js: in the open drawer, a section is a panel over the level above it, and Material's
    back arrow and section titles are labels no key reaches; the links the panel covers, and the page behind
    the drawer, took Tab. With the keyboard only: every Tab and Shift+Tab stop is in the drawer and on the
    screen (or, past the last one, in the browser's own controls); Back (named in the page's language)
    returns to the chapter's section title; the labs' section opens onto a lab's link."""
    words = strings.of(lang)["a11y"]
    context, tab = kept_tab(browser, served_site.base + ("" if lang == "pt" else "en/") + PAGE,
                            viewport=PHONE)
    try:
        tab.locator(".md-header .culpa-drawer-button").focus()
        tab.keyboard.press("Enter")
        wait_until(tab, "() => document.activeElement.closest('.md-sidebar--primary')", timeout=5000)
        tab.wait_for_timeout(400)
        forward = []
        for _ in range(20):
            tab.keyboard.press("Tab")
            forward.append(tab.evaluate(FOCUSED))
        backward = []
        for _ in range(20):
            tab.keyboard.press("Shift+Tab")
            backward.append(tab.evaluate(FOCUSED))
            if backward[-1]["name"] == words["back"]:
                break
        tab.keyboard.press("Enter")
        tab.wait_for_timeout(600)
        after_back = tab.evaluate(FOCUSED)
        chapter = tab.evaluate("() => document.activeElement.getAttribute('for')")
        reached, labs = [], None
        for _ in range(10):
            tab.keyboard.press("Tab")
            reached.append(tab.evaluate(FOCUSED))
            here = tab.evaluate("() => document.activeElement.getAttribute('for') || ''")
            if here.startswith("__nav_") and here != chapter:
                labs = here
                break
        tab.keyboard.press("Enter")
        tab.wait_for_timeout(600)
        in_labs = tab.evaluate(FOCUSED)
        href = tab.evaluate("() => document.activeElement.getAttribute('href') || ''")
    finally:
        tab.keyboard.press("Escape")
        context.close()
    # past the drawer's last stop, Tab leaves the page for the browser's own controls (the body, here)
    astray = [s["what"] for s in forward + backward + reached
              if not (s["in_drawer"] and s["seen"]) and s["role"] != "BODY"]
    assert not astray, f"Tab in the open drawer reached what the reader does not see: {astray}"
    assert backward[-1]["name"] == words["back"] and backward[-1]["role"] == "LABEL", (
        f"Shift+Tab never reached the panel's Back: {[s['what'] for s in backward]}")
    assert after_back["in_drawer"] and after_back["seen"] and chapter and chapter.startswith("__nav_"), (
        f"after Back, the focus is on {after_back}")
    assert labs, f"Tab from the chapter's title never reached another section: {[s['what'] for s in reached]}"
    assert in_labs["in_drawer"] and in_labs["seen"] and "labs/" in href, (
        f"Enter on the labs' section: the focus is on {in_labs} ({href})")
