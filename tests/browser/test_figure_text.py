"""Every figure, as the browser draws it, in both languages, for desktop and for a phone: no text cut off at
the figure's edge and no two texts on top of each other.

A figure's phone drawing (<name>.phone.svg, served to narrow screens) puts the same labels and notes in a
box half as wide, which is where they collide: a note over a tick label, a label past the right edge.
Matplotlib writes each text of the SVG as a group `<g id="text_N">` (its source text in a comment inside),
and the browser gives each its box; the check compares those boxes with each other and with the SVG's.
"""

from __future__ import annotations

import asyncio

import pytest
from visiting import NO_CHROMIUM, find_chromium, in_ci

from support.pages import LANGS

if find_chromium() is None and not in_ci():
    pytest.skip(f"browser tests skipped: {NO_CHROMIUM}", allow_module_level=True)

MIN_OVERLAP = 1.5  # px each way: glyph boxes touching at an edge are not a collision

TEXT_BOXES_JS = """(minOverlap) => {
  const svg = document.querySelector("svg");
  const frame = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('g[id^="text_"]')]
    .filter((g) => !g.parentElement.closest('g[id^="text_"]'))
    .map((g) => {
      const r = g.getBoundingClientRect();
      const source = [...g.childNodes].find((n) => n.nodeType === Node.COMMENT_NODE);
      return { box: r, text: (source ? source.textContent : g.id).trim().slice(0, 50) };
    })
    .filter((t) => t.box.width > 0.5 && t.box.height > 0.5);
  const found = [];
  for (const t of texts) {
    const b = t.box;
    const out = b.left < frame.left - 1 || b.right > frame.right + 1;
    if (out || b.top < frame.top - 1 || b.bottom > frame.bottom + 1)
      found.push(`cut off at the edge: ${JSON.stringify(t.text)}`);
  }
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i].box, b = texts[j].box;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > minOverlap && h > minOverlap)
        found.push(`on top of each other: ${JSON.stringify(texts[i].text)} and `
                   + JSON.stringify(texts[j].text));
    }
  }
  return { texts: texts.length, found };
}"""


async def _check(executable: str, files: list) -> dict:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = await browser.new_page()
        results = {}
        for path in files:
            await page.goto(path.as_uri())
            results[path] = await page.evaluate(TEXT_BOXES_JS, MIN_OVERLAP)
        await browser.close()
    return results


def test_figure_texts_are_inside_and_apart(chromium, served_site):
    files = sorted(f for lang in LANGS for f in (served_site.dir / ("" if lang == "pt" else lang) / "figures")
                   .glob("*.svg"))
    assert len([f for f in files if f.name.endswith(".phone.svg")]) >= 9 * len(LANGS), (
        f"expected every figure's phone drawing in both languages, found {[f.name for f in files]}")
    results = asyncio.run(_check(chromium, files))
    empty = [f.name for f, r in results.items() if not r["texts"]]
    assert not empty, f"figures with no text the check could see (their SVG changed shape?): {empty}"
    bad = [f"{f.relative_to(served_site.dir)}: {problem}"
           for f, r in results.items() for problem in r["found"]]
    assert not bad, "figure texts cut off or colliding, as the browser draws them:\n" + "\n".join(bad)
