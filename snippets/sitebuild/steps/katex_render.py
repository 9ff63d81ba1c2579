"""Math typeset at build time: every formula of the site becomes KaTeX's HTML before a browser sees it.

The renderer is the site's own vendored KaTeX (docs/assets/vendor/katex/katex.min.js, the one source of
truth for how a formula looks), run by V8 embedded in Python (the `mini-racer` package), so a page shows
its typeset formulas with JavaScript off and no math script runs in the reader's browser. The CSS and
fonts KaTeX's HTML needs stay served by the site (assets/vendor/katex/katex.min.css).

`render(tex, display)` is the one entry point: it returns KaTeX's HTML and MathML (whose `annotation`
carries the TeX source, which copy-tex puts on the clipboard when a reader copies a formula), and raises
KatexError naming the TeX when KaTeX cannot typeset it (throwOnError: a bad formula fails the build).
Other build code (the interactive explorers) imports `render` from this module: keep its name and
signature. The V8 context (60 ms to load KaTeX) and the formulas already rendered belong to the process
(`renderer()`), so a `mkdocs serve` rebuild after an edit renders only the formulas it has not seen.

KaTeX's `trust` is a function that allows exactly two commands, `\\htmlClass` and `\\htmlData`, so that an
explorer can mark the number slots inside a formula (`\\htmlData{slot=w1}{0.5}`) and fill them from what
culpa computed; every other trusted command (`\\href`, `\\url`, `\\includegraphics`, `\\htmlId`,
`\\htmlStyle`) stays refused and fails the build.

As a step (`Formulas.typeset`, on_page_content), it replaces, on every page:
- the formulas Arithmatex (generic mode) wrapped on the Markdown pages, `<span class="arithmatex">\\(...\\)`
  and `<div class="arithmatex">\\[...\\]`, keeping the wrapper (CSS scrolls wide display math on a phone);
- the `$...$` and `$$...$$` (and `\\(...\\)`, `\\[...\\]`) that the notebook pages' rendered Markdown cells
  (mkdocs-jupyter) leave as text.
It runs after the other steps that change a page's HTML (sitebuild/plugin.py), and keeps beside the page a
copy of its HTML
with each formula as plain text (the glyphs KaTeX draws, `a=tanh(x)`) and no <span>: the search plugin
indexes that copy (on_page_context lends it before the search plugin reads the page and puts the page
back after), so the index and its previews never quote TeX, and the search plugin does not parse the
nested spans of every formula and every highlighted token (most of its time in a build).
A formula that fails names the page and the TeX.
"""

from __future__ import annotations

import atexit
import queue
import re
import threading
from concurrent.futures import Future
from functools import cache, lru_cache
from html import escape, unescape

from mkdocs.exceptions import PluginError

from sitebuild.project import ROOT

KATEX_JS = ROOT / "docs" / "assets" / "vendor" / "katex" / "katex.min.js"
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


class Renderer:
    """The vendored KaTeX in V8, and every formula it rendered (one per process: `renderer()`).

    Every call into V8 runs on one thread of its own ("katex-v8"), from the context's making to its closing
    at exit. mini-racer adopts the calling thread's running asyncio loop if there is one (Playwright's, in
    the browser tests) and dies with it; on a thread without a loop it starts its own. A context made on
    one thread and left open, or closed from another, crashed the interpreter at exit (a segmentation
    fault after a finished build)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ctx = None
        self.katex: bytes | None = None
        self.cache: dict[tuple[str, bool], str] = {}
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None

    def _on_v8_thread(self, function, *args):
        if self.thread is None:
            self.thread = threading.Thread(target=self._serve, name="katex-v8", daemon=True)
            self.thread.start()
            atexit.register(self._close)  # without it, mini-racer 0.14 keeps the interpreter from exiting
        done: Future = Future()
        self.jobs.put((function, args, done))
        return done.result()

    def _serve(self) -> None:
        while True:
            function, args, done = self.jobs.get()
            try:
                done.set_result(function(*args))
            except BaseException as error:  # handed to the caller
                done.set_exception(error)

    def _close(self) -> None:
        if self.ctx is not None:
            ctx, self.ctx = self.ctx, None
            self._on_v8_thread(ctx.close)

    def _ctx(self):
        katex = KATEX_JS.read_bytes()
        if self.ctx is None or self.katex != katex:
            self._close()

            def make():
                from py_mini_racer import MiniRacer

                ctx = MiniRacer()
                ctx.eval(katex.decode("utf-8"))
                ctx.eval(_RENDERER)
                return ctx

            self.ctx, self.katex, self.cache = self._on_v8_thread(make), katex, {}
        return self.ctx

    def start(self) -> None:
        """Before a build: a new KaTeX file (update.sh) starts a fresh context and cache."""
        with self.lock:
            self._ctx()

    def render(self, tex: str, display: bool) -> str:
        key = (tex, bool(display))
        with self.lock:
            ctx = self._ctx() if self.ctx is None else self.ctx
            result = self.cache.get(key)
            if result is None:
                result = self.cache[key] = self._on_v8_thread(ctx.call, "__render", tex, bool(display))
        if result.startswith("ok:"):
            return result[3:]
        kind = "display" if display else "inline"
        raise KatexError(f"KaTeX cannot typeset the {kind} formula {tex!r}: {result.removeprefix('error:')}")


@cache
def renderer() -> Renderer:
    return Renderer()


def render(tex: str, display: bool) -> str:
    """KaTeX's HTML (with MathML carrying the TeX) for `tex`; raises KatexError if KaTeX cannot typeset it."""
    return renderer().render(tex, display)


# ---- the step -------------------------------------------------------------------------------------------

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


class Formulas:
    """The step: every formula of a page typeset, and a plain-text copy of the page lent to search."""

    def __init__(self):
        self.plain: dict[str, str] = {}  # src_uri -> the page's HTML with formulas as plain text
        self.real: dict[str, str] = {}  # src_uri -> the page's HTML, while search reads the plain copy

    def typeset(self, html: str, page) -> str:
        try:
            done = Typeset(html)
        except KatexError as error:
            raise PluginError(f"{page.file.src_uri}: {error}") from None
        # The search plugin reads text; the <span>s of highlighted code (one per token, thousands a page)
        # and of formulas cost it most of its time and give it nothing.
        self.plain[page.file.src_uri] = SPAN.sub("", done.plain)
        return done.html

    def lend_plain(self, page) -> None:
        """Before the search plugin reads the page: the plain copy in its place."""
        plain = self.plain.pop(page.file.src_uri, None)
        if plain is not None:
            self.real[page.file.src_uri] = page.content
            page.content = plain

    def take_back(self, page) -> None:
        """After the search plugin indexed it, before the theme renders it: the typeset page back."""
        real = self.real.pop(page.file.src_uri, None)
        if real is not None:
            page.content = real
