"""Blocks a reader has not scrolled to cost the phone nothing: no style, no layout, until they come near.

A chapter page carries 4,000 to 6,000 elements, most of them the spans of highlighted code (one per token)
and of typeset formulas. Material's script reads the layout a few times while it starts (the scroll offset,
the header's colours, each sidebar's size), and each read recomputed the style of every element: that was
most of the second a phone spent frozen on a chapter page. With `content-visibility: auto` the browser
skips a block's descendants while the block is far from the screen, and those reads touch only the first
screen.

on_page_content, on every page (after katex_render typeset the formulas): each code block's <pre> (a
Markdown page's and a lab cell's) and each display formula (`katex-display`) gets class="offscreen" and
its estimated height, `contain-intrinsic-block-size: auto <h>em`, computed from its lines of code or from
KaTeX's struts (the height of each row of the formula, in em). While a block is skipped the page reserves
that height (so the scroll bar and the table of contents' offsets stay close), and once the block has been
drawn the browser remembers its real height (the `auto`). assets/site.css holds the rule; assets/offscreen.js
takes the class off a block the first time it is drawn, so that what Material puts inside it afterwards (a
code annotation's tooltip) is never clipped by the block's containment.

The numbers are fitted to the site's CSS and checked in the browser (tests/browser/test_pages_in_browser.py:
every estimate within ESTIMATE_TOLERANCE, or a line, of the drawn height, at phone and desktop width): a
change to the code's font size or line height that makes them drift fails that test, naming the page and
the block.
"""

from __future__ import annotations

import re
from html import unescape

# A Markdown page's code block (pymdownx.highlight): <pre> at 0.85em of the text, line-height 1.4 on its
# <code>, padding 0.77em above and below, so 1.19 em of the <pre> per line and 1.4 em more (measured).
MD_LINE_EM, MD_EXTRA_EM = 1.19, 1.4
# A lab's code cell (mkdocs-jupyter, sitebuild/steps/notebook.css): line-height 1.4, padding 0.77 em twice.
NB_LINE_EM, NB_EXTRA_EM = 1.4, 1.54
# A display formula: KaTeX's text is 1.21 em of the page's; its tallest strut (the height KaTeX gives a
# row of the formula, in its own em) sets the height, and one line of text (1.51 em) is the least.
KATEX_SCALE, DISPLAY_MIN_EM = 1.21, 1.51
# The browser test's bound: |estimate - drawn| at most this share of the drawn height; for a paragraph, or
# one line of text (its estimate counts characters, and a line break falls where it falls).
ESTIMATE_TOLERANCE = {"code": 0.05, "formula": 0.10, "text": 0.20}
LINE_SLACK_EM = 1.7

MD_PRE = re.compile(r'(<div class="(?:[^"]*\s)?highlight(?:\s[^"]*)?"[^>]*>)<pre\b([^>]*)>(.*?)</pre>', re.S)
NB_PRE = re.compile(r'(<div class="highlight-ipynb\b[^"]*"[^>]*>)<pre\b([^>]*)>(.*?)</pre>', re.S)
STRUT = re.compile(r'class="(?:katex-)?strut" style="height:\s*([0-9.]+)em')
TAG = re.compile(r"<[^>]+>")
# A paragraph or a list item with formulas in its text (their spans are most of a page's elements after
# the code's): its height depends on the width of the column, which the build does not know. It gets its
# number of visible characters, --chars, and site.css turns that into lines with the characters per line
# of the column at the screen's width (--chars-per-line, set per width range).
PARAGRAPH = re.compile(r"<(p)\b([^>]*)>(.*?)</p>", re.S)
LIST_ITEM = re.compile(r"<(li)\b([^>]*)>(.*?)</li>", re.S)  # one without blocks inside (after the <p>s)
BLOCK_INSIDE = re.compile(r"<(?:p|li|ul|ol|div|pre|table|blockquote|figure)\b")
MATHML = re.compile(r'<span class="katex-mathml">.*?</math></span>', re.S)
OPEN_DISPLAY = '<span class="katex-display">'
SIZE = "contain-intrinsic-block-size:auto {:.2f}em"


def lines_of(inner_html: str) -> int:
    text = unescape(TAG.sub("", inner_html)).rstrip("\n")
    return text.count("\n") + 1


def display_height(inner_html: str) -> float:
    """Estimated height of a display formula, in em of the page's text."""
    struts = [float(h) for h in STRUT.findall(inner_html)]
    return max(max(struts, default=0.0) * KATEX_SCALE, DISPLAY_MIN_EM)


def _with_class(attrs: str) -> str:
    if 'class="' in attrs:
        return attrs.replace('class="', 'class="offscreen ', 1)
    return attrs + ' class="offscreen"'


def _mark(attrs: str, height_em: float) -> str:
    return f'{_with_class(attrs)} style="{SIZE.format(height_em)}"'


def visible_chars(inner_html: str) -> int:
    """Characters a reader sees in a paragraph: its text, each formula's glyphs once (not its MathML)."""
    return len(" ".join(unescape(TAG.sub("", MATHML.sub("", inner_html))).split()))


def _text(m: re.Match) -> str:
    tag, attrs, inner = m.group(1), m.group(2), m.group(3)
    if 'class="katex"' not in inner or "style=" in attrs or BLOCK_INSIDE.search(inner):
        return m.group(0)
    return f'<{tag}{_with_class(attrs)} style="--chars:{visible_chars(inner)}">{inner}</{tag}>'


def mark_offscreen(html: str) -> str:
    def code(line_em: float, extra_em: float):
        def sub(m: re.Match) -> str:
            attrs = m.group(2)
            if "style=" in attrs:  # a block with its own style: leave it as it is
                return m.group(0)
            height = lines_of(m.group(3)) * line_em + extra_em
            return f"{m.group(1)}<pre{_mark(attrs, height)}>{m.group(3)}</pre>"
        return sub

    html = MD_PRE.sub(code(MD_LINE_EM, MD_EXTRA_EM), html)
    html = NB_PRE.sub(code(NB_LINE_EM, NB_EXTRA_EM), html)
    html = LIST_ITEM.sub(_text, PARAGRAPH.sub(_text, html))
    return _displays(html)


def _displays(html: str) -> str:
    out, last = [], 0
    for start in (m.start() for m in re.finditer(re.escape(OPEN_DISPLAY), html)):
        if start < last:
            continue
        end = _span_end(html, start)
        inner = html[start:end]
        opening = f'<span class="katex-display offscreen" style="{SIZE.format(display_height(inner))}">'
        out += [html[last:start], opening, inner[len(OPEN_DISPLAY):]]
        last = end
    out.append(html[last:])
    return "".join(out)


SPAN_TAG = re.compile(r"<(/?)span\b[^>]*>")


def _span_end(html: str, start: int) -> int:
    """The index just past the </span> that closes the <span> opening at `start`."""
    depth = 0
    for m in SPAN_TAG.finditer(html, start):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return m.end()
    raise ValueError(f"unclosed <span> at {start}: {html[start:start + 80]!r}")
