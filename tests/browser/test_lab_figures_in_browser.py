"""The labs' figures in Chromium, both languages: on a 390 x 844 phone the browser picks each figure's phone
drawing (its currentSrc), shows it no wider than the column, its smallest text at 9 CSS px or more, and the
page does not scroll sideways; at 1280 px it keeps the desktop drawing. Screenshots of each lab's first
figure, phone and desktop, land in tests/screenshots/."""

from __future__ import annotations

import pytest
from visiting import DESKTOP, NO_CHROMIUM, PHONE, SCREENSHOTS, find_chromium, in_ci, kept_tab

from support.lab_figures import COLUMN_AT_390, MIN_TEXT_PX, drawing, lab_figures
from support.pages import DOCS, LANGS

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

LABS = sorted(p.stem for p in (DOCS / LANGS[0] / "labs").glob("*.md"))
PATHS = [("" if lang == LANGS[0] else f"{lang}/") + f"labs/{name}/" for lang in LANGS for name in LABS]

FIGURES = """async () => {
  const images = [...document.querySelectorAll('.jp-RenderedImage img')];
  images.forEach((img) => { img.loading = 'eager'; });
  await Promise.all(images.map((img) => img.decode().catch(() => null)));
  return images.map((img) => ({
    src: img.currentSrc.split('/').pop(), width: img.getBoundingClientRect().width,
    right: img.getBoundingClientRect().right, column: img.parentElement.closest('.jp-OutputArea-output')
      .getBoundingClientRect().width,
  }));
}"""


@pytest.mark.parametrize("path", PATHS)
def test_a_phone_is_shown_each_lab_figures_phone_drawing(browser, served_site, path):
    folder = served_site.dir / path
    expected = lab_figures((folder / "index.html").read_text(encoding="utf-8"))
    context, tab = kept_tab(browser, served_site.base + path, viewport=PHONE, device_scale_factor=2)
    try:
        shown = tab.evaluate(FIGURES)
        page_width = tab.evaluate("document.documentElement.scrollWidth")
        tab.locator(".jp-RenderedImage img").first.scroll_into_view_if_needed()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=SCREENSHOTS / f"lab-figure-{path.strip('/').replace('/', '-')}-phone.png")
    finally:
        context.close()
    assert [s["src"] for s in shown] == [f.phone for f in expected], f"{path}: the phone was served {shown}"
    for figure, seen in zip(expected, shown, strict=True):
        found = drawing((folder / figure.phone).read_bytes())
        assert seen["right"] <= PHONE["width"] and seen["width"] <= COLUMN_AT_390 + 0.5, f"{path}: {seen}"
        assert seen["column"] >= min(found.natural_width(), COLUMN_AT_390) - 0.5, (
            f"{path}: the column is {seen['column']} px wide; support/lab_figures.py takes {COLUMN_AT_390}"
        )
        px = found.text_px(seen["width"])
        assert px >= MIN_TEXT_PX, f"{path}: {figure.phone}'s smallest text shows at {px:.1f} CSS px"
    assert page_width <= PHONE["width"], f"{path}: the page is {page_width} px wide on a 390 px phone"


@pytest.mark.parametrize("path", PATHS)
def test_a_desktop_keeps_each_lab_figures_desktop_drawing(browser, served_site, path):
    expected = lab_figures((served_site.dir / path / "index.html").read_text(encoding="utf-8"))
    context, tab = kept_tab(browser, served_site.base + path, viewport=DESKTOP)
    try:
        shown = tab.evaluate(FIGURES)
        tab.locator(".jp-RenderedImage img").first.scroll_into_view_if_needed()
        tab.screenshot(path=SCREENSHOTS / f"lab-figure-{path.strip('/').replace('/', '-')}-desktop.png")
    finally:
        context.close()
    assert [s["src"] for s in shown] == [f.desktop for f in expected], (
        f"{path}: the desktop was served {shown}"
    )
