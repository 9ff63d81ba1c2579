"""sitebuild/steps/offscreen.py: which blocks wait off screen, and the height each is given meanwhile.

The estimates themselves are checked against the drawn heights in the browser
(tests/browser/test_pages_in_browser.py); this checks what the hook writes, block by block, on HTML made
the way the site makes it (pymdownx.highlight's code blocks, a lab cell, KaTeX's own output).
"""

from __future__ import annotations

import re

from sitebuild.steps import katex_render as katex
from sitebuild.steps import offscreen

CODE = ('<div class="language-python highlight"><pre><span></span><code><span class="n">x</span> = 1\n'
        '<span class="n">y</span> = 2\n<span class="n">z</span> = 3\n</code></pre></div>')
CELL = '<div class="highlight-ipynb hl-python"><pre><span></span>a = 1\nb = 2\n</pre></div>'


def marked(html: str) -> list[str]:
    return re.findall(r'<(\w+)[^>]*class="[^"]*\boffscreen\b[^"]*"[^>]*>', offscreen.mark_offscreen(html))


def estimate_em(html: str) -> float:
    return float(re.search(r"contain-intrinsic-block-size:auto ([0-9.]+)em", html).group(1))


def test_a_code_block_waits_with_the_height_of_its_lines():
    out = offscreen.mark_offscreen(CODE)
    assert '<pre class="offscreen" style="contain-intrinsic-block-size:auto' in out
    assert estimate_em(out) == round(3 * offscreen.MD_LINE_EM + offscreen.MD_EXTRA_EM, 2)
    assert out.replace(re.search(r'<pre[^>]*>', out).group(0), "<pre>") == CODE  # nothing else changes


def test_a_lab_cell_uses_the_notebook_measures_not_the_markdown_ones():
    out = offscreen.mark_offscreen(CELL)
    assert estimate_em(out) == round(2 * offscreen.NB_LINE_EM + offscreen.NB_EXTRA_EM, 2)


def test_a_display_formula_waits_with_the_height_of_its_tallest_row():
    short = offscreen.mark_offscreen(katex.render(r"a = b", True))
    tall = offscreen.mark_offscreen(katex.render(r"\frac{\partial L}{\partial w} = \sum_{i=1}^{n} x_i", True))
    assert marked(short) == ["span"] and marked(tall) == ["span"]
    assert estimate_em(short) == offscreen.DISPLAY_MIN_EM  # one line of text at least
    assert estimate_em(tall) > 2 * offscreen.DISPLAY_MIN_EM * 0.7


def test_a_paragraph_with_a_formula_carries_its_visible_characters():
    formula = katex.render(r"\sigma(z)", False)
    out = offscreen.mark_offscreen(f"<p>Então {formula} vale 0,5.</p>")
    chars = int(re.search(r'style="--chars:(\d+)"', out).group(1))
    # "Então σ(z) vale 0,5." as the reader sees it: the formula's glyphs once, not its MathML or its TeX
    assert chars == len("Então σ(z) vale 0,5."), out[:200]
    assert out.startswith('<p class="offscreen" style="--chars:')


def test_what_is_left_alone():
    plain = "<p>Sem fórmula nenhuma.</p>"
    formula = katex.render("x", False)
    nested = f"<li><p>Um item com {formula}.</p></li>"
    styled = f'<p style="color: red">Com {formula} e estilo próprio.</p>'
    assert offscreen.mark_offscreen(plain) == plain  # few elements: nothing to save
    assert marked(nested) == ["p"]  # the paragraph, not the item around it
    assert offscreen.mark_offscreen(styled) == styled  # its own style is not overwritten
