"""Math typeset at build time: every formula of the site becomes KaTeX's HTML before a browser sees it.

The renderer is the site's own vendored KaTeX (docs/assets/vendor/katex/katex.min.js, the one source of
truth for how a formula looks), run by V8 embedded in Python (the `mini-racer` package), so a page shows
its typeset formulas with JavaScript off and no math script runs in the reader's browser. The CSS and
fonts KaTeX's HTML needs stay served by the site (assets/vendor/katex/katex.min.css).

`render(tex, display)` is the one entry point: it returns KaTeX's HTML and MathML (whose `annotation`
carries the TeX source, which copy-tex puts on the clipboard when a reader copies a formula), and raises
KatexError naming the TeX when KaTeX cannot typeset it (throwOnError: a bad formula fails the build).
Other build code (the interactive explorers) imports `render` from this module: keep its name and
signature.

KaTeX's `trust` is a function that allows exactly two commands, `\\htmlClass` and `\\htmlData`, so that an
explorer can mark the number slots inside a formula (`\\htmlData{slot=w1}{0.5}`) and fill them from what
culpa computed; every other trusted command (`\\href`, `\\url`, `\\includegraphics`, `\\htmlId`,
`\\htmlStyle`) stays refused and fails the build.

As a hook (mkdocs.yml `hooks:`), on_page_content replaces, on every page:
- the formulas Arithmatex (generic mode) wrapped on the Markdown pages, `<span class="arithmatex">\\(...\\)`
  and `<div class="arithmatex">\\[...\\]`, keeping the wrapper (CSS scrolls wide display math on a phone);
- the `$...$` and `$$...$$` (and `\\(...\\)`, `\\[...\\]`) that the notebook pages' rendered Markdown cells
  (mkdocs-jupyter) leave as text.
Each formula's MathML is marked `data-search-exclude`, so the search index (and its previews) quotes the
formula as its typeset glyphs, never as TeX. A formula that fails names the page and the TeX.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from html import unescape
from pathlib import Path

from mkdocs.exceptions import PluginError

KATEX_JS = Path(__file__).resolve().parents[1] / "assets" / "vendor" / "katex" / "katex.min.js"
TRUSTED = ("\\htmlClass", "\\htmlData")

_RENDERER = """
function __render(tex, display) {
  var trusted = %s;
  return katex.renderToString(tex, {
    displayMode: display,
    throwOnError: true,
    output: "htmlAndMathml",
    trust: function (context) { return trusted.indexOf(context.command) >= 0; },
  });
}
""" % ("[" + ", ".join('"' + c.replace("\\", "\\\\") + '"' for c in TRUSTED) + "]")


class KatexError(ValueError):
    """KaTeX could not typeset a formula: the message names the TeX and KaTeX's reason."""


_lock = threading.Lock()
_context = None


def _ctx():
    global _context
    if _context is None:
        from py_mini_racer import MiniRacer

        ctx = MiniRacer()
        ctx.eval(KATEX_JS.read_text(encoding="utf-8"))
        ctx.eval(_RENDERER)
        _context = ctx
    return _context


@lru_cache(maxsize=8192)
def render(tex: str, display: bool) -> str:
    """KaTeX's HTML (with MathML carrying the TeX) for `tex`; raises KatexError if KaTeX cannot typeset it."""
    from py_mini_racer import JSEvalException

    with _lock:
        try:
            return _ctx().call("__render", tex, bool(display))
        except JSEvalException as error:
            reason = str(error).strip().splitlines()
            reason = next((line for line in reason if "ParseError" in line), reason[0] if reason else "")
            kind = "display" if display else "inline"
            raise KatexError(f"KaTeX cannot typeset the {kind} formula {tex!r}: {reason.strip()}") from None


# ---- the hook -------------------------------------------------------------------------------------------

ARITHMATEX = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">(?P<body>.*?)</(?P=tag)>', re.S
)
# A notebook's rendered Markdown cell (mkdocs-jupyter / nbconvert): its math stays as text delimiters.
NOTEBOOK_CELL = re.compile(r'<div class="[^"]*\bjp-RenderedMarkdown\b[^"]*"[^>]*>')
DIV = re.compile(r"<(/?)div\b")
NOTEBOOK_MATH = re.compile(
    r"(?<!\\)\$\$(?P<d1>.+?)(?<!\\)\$\$"
    r"|\\\[(?P<d2>.+?)\\\]"
    r"|\\\((?P<i2>.+?)\\\)"
    r"|(?<![\\$])\$(?!\$)(?P<i1>[^$]+?)(?<![\\$])\$"
    , re.S
)
# Inside a notebook cell, math in code or preformatted text is not math.
CODE = re.compile(r"<(code|pre)\b.*?</\1>", re.S)
MATHML = '<span class="katex-mathml">'


def _searchless(html: str) -> str:
    return html.replace(MATHML, '<span class="katex-mathml" data-search-exclude>')


def render_arithmatex(html: str) -> str:
    """Typeset every formula Arithmatex (generic) marked in a page's HTML."""

    def one(m: re.Match) -> str:
        body = unescape(m.group("body")).strip()
        display = m.group("tag") == "div"
        opener, closer = ("\\[", "\\]") if display else ("\\(", "\\)")
        if not (body.startswith(opener) and body.endswith(closer)):
            raise KatexError(f"an Arithmatex formula without its {opener} {closer} delimiters: {body[:80]!r}")
        tex = body[len(opener) : -len(closer)]
        return f'<{m.group("tag")} class="arithmatex">{_searchless(render(tex, display))}</{m.group("tag")}>'

    return ARITHMATEX.sub(one, html)


def render_notebook_math(html: str) -> str:
    """Typeset the TeX that rendered Markdown cells of a notebook page leave between $ delimiters."""

    def formula(m: re.Match) -> str:
        display = m.group("d1") is not None or m.group("d2") is not None
        tex = unescape(next(g for g in (m.group("d1"), m.group("d2"), m.group("i1"), m.group("i2")) if g))
        return _searchless(render(tex.strip(), display))  # display: a block-level span, valid inside <p>

    def math_outside_code(body: str) -> str:
        pieces, last = [], 0
        for code in CODE.finditer(body):
            pieces.append(NOTEBOOK_MATH.sub(formula, body[last : code.start()]))
            pieces.append(code.group(0))
            last = code.end()
        pieces.append(NOTEBOOK_MATH.sub(formula, body[last:]))
        return "".join(pieces)

    out, last = [], 0
    for start in NOTEBOOK_CELL.finditer(html):
        if start.start() < last:
            continue  # a cell nested in one already typeset
        depth, end = 1, None
        for tag in DIV.finditer(html, start.end()):
            depth += -1 if tag.group(1) else 1
            if depth == 0:
                end = tag.start()
                break
        if end is None:
            raise KatexError("a notebook Markdown cell whose <div> is never closed")
        out += [html[last : start.end()], math_outside_code(html[start.end() : end])]
        last = end
    out.append(html[last:])
    return "".join(out)


def typeset(html: str) -> str:
    return render_notebook_math(render_arithmatex(html))


def on_page_content(html, page, config, files):
    try:
        return typeset(html)
    except KatexError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from None
