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
It runs after the other hooks' on_page_content (priority -100), and keeps beside the page a copy of its HTML
with each formula as plain text (the glyphs KaTeX draws, `a=tanh(x)`) and no <span>: the search plugin
indexes that copy (on_page_context swaps it in before the search plugin reads the page and puts the page
back after), so the index and its previews never quote TeX, and the search plugin does not parse the
nested spans of every formula and every highlighted token (most of its time in a build).
A formula that fails names the page and the TeX.
"""

from __future__ import annotations

import atexit
import re
import sys
import threading
import time
import types
from functools import lru_cache
from html import escape, unescape
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, event_priority

KATEX_JS = Path(__file__).resolve().parents[1] / "assets" / "vendor" / "katex" / "katex.min.js"
TRUSTED = ("\\htmlClass", "\\htmlData")

# KaTeX's errors are caught inside V8 and handed back as text: an exception crossing into Python leaves
# mini-racer unable to shut down (the interpreter hangs at exit, and a failed build would never end).
_RENDERER = """
function __render(tex, display) {
  var trusted = %s;
  var refused = null;
  try {
    var html = katex.renderToString(tex, {
      displayMode: display,
      throwOnError: true,
      output: "htmlAndMathml",
      trust: function (context) {
        var ok = trusted.indexOf(context.command) >= 0;
        if (!ok) refused = context.command;
        return ok;
      },
    });
    // KaTeX draws an untrusted command as red text instead of throwing: refuse it here.
    if (refused) return "error:" + refused + " is not allowed (only " + trusted.join(" and ") + ")";
    return "ok:" + html;
  } catch (error) {
    return "error:" + String(error && error.message || error);
  }
}
""" % ("[" + ", ".join('"' + c.replace("\\", "\\\\") + '"' for c in TRUSTED) + "]")


class KatexError(ValueError):
    """KaTeX could not typeset a formula: the message names the TeX and KaTeX's reason."""


# mkdocs loads a hook anew for each rebuild of `mkdocs serve`: the V8 context (60 ms to load KaTeX) and the
# formulas already rendered live in a module of their own that survives the reload, so a rebuild after an
# edit renders only the formulas it has not seen (with the same KaTeX file).
_state = sys.modules.setdefault("_katex_render_state", types.ModuleType("_katex_render_state"))
if not hasattr(_state, "lock"):
    _state.lock, _state.ctx, _state.katex, _state.cache = threading.Lock(), None, None, {}


class _Racer:
    """A MiniRacer made on, and closed by, a thread of its own that lives as long as the racer.

    mini-racer adopts the calling thread's running asyncio loop if there is one (Playwright's, in the browser
    tests), and dies with it: made on a thread without a loop, it starts its own. That thread must also be
    the one that closes it, and must still be alive then: a racer whose thread has ended, closed from another
    thread, crashes the interpreter at exit (a segmentation fault after a successful build, seen on every
    run on some machines, with mini-racer 0.14.1).
    """

    def __init__(self):
        from py_mini_racer import MiniRacer

        made, self._done = [], threading.Event()

        def own():
            made.append(MiniRacer())
            self._done.wait()
            made[0].close()

        self._thread = threading.Thread(target=own, name="katex-v8", daemon=True)
        self._thread.start()
        while not made and self._thread.is_alive():
            time.sleep(0.001)
        if not made:
            raise KatexError("mini-racer could not start V8")
        self.ctx = made[0]
        atexit.register(self.close)  # without it, mini-racer 0.14 keeps the interpreter from exiting

    def close(self):
        self._done.set()
        self._thread.join(timeout=10)


def _ctx():
    katex = KATEX_JS.read_bytes()
    if _state.ctx is None or _state.katex != katex:
        if _state.ctx is not None:
            _state.racer.close()
        racer = _Racer()
        racer.ctx.eval(katex.decode("utf-8"))
        racer.ctx.eval(_RENDERER)
        _state.racer, _state.ctx, _state.katex, _state.cache = racer, racer.ctx, katex, {}
    return _state.ctx


def render(tex: str, display: bool) -> str:
    """KaTeX's HTML (with MathML carrying the TeX) for `tex`; raises KatexError if KaTeX cannot typeset it."""
    key = (tex, bool(display))
    with _state.lock:
        ctx = _ctx() if _state.ctx is None else _state.ctx
        result = _state.cache.get(key)
        if result is None:
            result = _state.cache[key] = ctx.call("__render", tex, bool(display))
    if result.startswith("ok:"):
        return result[3:]
    kind = "display" if display else "inline"
    raise KatexError(f"KaTeX cannot typeset the {kind} formula {tex!r}: {result.removeprefix('error:')}")


def on_pre_build(config):
    with _state.lock:
        _ctx()  # a new KaTeX file (update.sh) starts a fresh context and cache


# ---- the hook -------------------------------------------------------------------------------------------

ARITHMATEX = re.compile(r'<(?P<tag>span|div) class="arithmatex">(?P<body>.*?)</(?P=tag)>', re.S)
# A notebook's rendered Markdown cell (mkdocs-jupyter / nbconvert): its math stays as text delimiters.
NOTEBOOK_CELL = re.compile(r'<div class="[^"]*\bjp-RenderedMarkdown\b[^"]*"[^>]*>')
DIV = re.compile(r"<(/?)div\b")
NOTEBOOK_MATH = re.compile(
    r"(?<!\\)\$\$(?P<d1>.+?)(?<!\\)\$\$"
    r"|\\\[(?P<d2>.+?)\\\]"
    r"|\\\((?P<i2>.+?)\\\)"
    r"|(?<![\\$])\$(?!\$)(?P<i1>[^$]+?)(?<![\\$])\$",
    re.S,
)
# Inside a notebook cell, math in code or preformatted text is not math.
CODE = re.compile(r"<(code|pre)\b.*?</\1>", re.S)
TAGS = re.compile(r"<[^>]+>")
ZERO_WIDTH = re.compile("[\u200b\u2061-\u2064]")
PLACEHOLDER = re.compile("\x00katex(\\d+)\x00")
SPAN = re.compile(r"</?span\b[^>]*>")


@lru_cache(maxsize=8192)
def plain_text(rendered: str) -> str:
    """The text a reader sees in KaTeX's rendering of a formula (its HTML part, not the MathML)."""
    start = rendered.find('<span class="katex-html"')
    return ZERO_WIDTH.sub("", unescape(TAGS.sub("", rendered[start:] if start >= 0 else rendered))).strip()


class Typeset:
    """A page's HTML with every formula typeset, and the same HTML with each formula as plain text."""

    def __init__(self, html: str):
        self.formulas: list[str] = []
        self.marked = self._notebook_math(self._arithmatex(html))

    def _add(self, tex: str, display: bool) -> str:
        self.formulas.append(render(tex, display))
        return f"\x00katex{len(self.formulas) - 1}\x00"

    def _fill(self, plain: bool) -> str:
        def one(m: re.Match) -> str:
            rendered = self.formulas[int(m.group(1))]
            return escape(plain_text(rendered), quote=False) if plain else rendered

        return PLACEHOLDER.sub(one, self.marked)

    @property
    def html(self) -> str:
        return self._fill(plain=False)

    @property
    def plain(self) -> str:
        return self._fill(plain=True)

    def _arithmatex(self, html: str) -> str:
        """Formulas Arithmatex (generic) marked on a Markdown page: \\(...\\) in a span, \\[...\\] in a div"""

        def one(m: re.Match) -> str:
            body = unescape(m.group("body")).strip()
            display = m.group("tag") == "div"
            opener, closer = ("\\[", "\\]") if display else ("\\(", "\\)")
            if not (body.startswith(opener) and body.endswith(closer)):
                raise KatexError(f"an Arithmatex formula without {opener} {closer}: {body[:80]!r}")
            tex = body[len(opener) : -len(closer)]
            return f'<{m.group("tag")} class="arithmatex">{self._add(tex, display)}</{m.group("tag")}>'

        return ARITHMATEX.sub(one, html)

    def _notebook_math(self, html: str) -> str:
        """The TeX that a notebook page's rendered Markdown cells leave between $ (or \\( \\[) delimiters."""

        def formula(m: re.Match) -> str:
            display = m.group("d1") is not None or m.group("d2") is not None
            tex = next(g for g in (m.group("d1"), m.group("d2"), m.group("i1"), m.group("i2")) if g)
            return self._add(unescape(tex).strip(), display)  # display: KaTeX's block span, valid in a <p>

        def outside_code(body: str) -> str:
            pieces, last = [], 0
            for code in CODE.finditer(body):
                pieces += [NOTEBOOK_MATH.sub(formula, body[last : code.start()]), code.group(0)]
                last = code.end()
            pieces.append(NOTEBOOK_MATH.sub(formula, body[last:]))
            return "".join(pieces)

        out, last = [], 0
        for start in NOTEBOOK_CELL.finditer(html):
            if start.start() < last:
                continue  # a cell nested in one already done
            depth, end = 1, None
            for tag in DIV.finditer(html, start.end()):
                depth += -1 if tag.group(1) else 1
                if depth == 0:
                    end = tag.start()
                    break
            if end is None:
                raise KatexError("a notebook Markdown cell whose <div> is never closed")
            out += [html[last : start.end()], outside_code(html[start.end() : end])]
            last = end
        out.append(html[last:])
        return "".join(out)


def typeset(html: str) -> str:
    """`html` with every formula (Arithmatex's, and a notebook's $...$) replaced by KaTeX's HTML."""
    return Typeset(html).html


_plain: dict[str, str] = {}  # src_uri -> the page's HTML with formulas as plain text, for the search index
_real: dict[str, str] = {}


@event_priority(-100)  # after the other hooks changed the page's HTML: the plain copy has their changes
def on_page_content(html, page, config, files):
    try:
        done = Typeset(html)
    except KatexError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from None
    # The search plugin reads text; the <span>s of highlighted code (one per token, thousands a page) and of
    # formulas cost it most of its time and give it nothing.
    _plain[page.file.src_uri] = SPAN.sub("", done.plain)
    return done.html


@event_priority(100)  # before the search plugin (0) reads the page
def _search_reads_plain_formulas(context, page, config, nav):
    plain = _plain.pop(page.file.src_uri, None)
    if plain is not None:
        _real[page.file.src_uri] = page.content
        page.content = plain
    return context


@event_priority(-100)  # after the search plugin indexed it, before the theme renders it
def _page_gets_its_formulas_back(context, page, config, nav):
    real = _real.pop(page.file.src_uri, None)
    if real is not None:
        page.content = real
    return context


on_page_context = CombinedEvent(_search_reads_plain_formulas, _page_gets_its_formulas_back)
