"""Run in the page: every Python block of a page gets Run, Stop and Reset; printed output is labelled.

on_page_content walks a page's HTML in order. For each ```python block it adds `data-run-block="K"` (K
counts the page's Python blocks from 0, in page order, as tests/test_pages.py runs them) and, when the
block is not run by the tests (`<!--pytest.mark.skip(reason=...)-->` before it), `data-run-skip` with the
reason, which the page then shows instead of a Run button. The ```text block that follows
`<!--pytest-codeblocks:expected-output-->` gets the class `run-expected` and the label "Saída"/"Output"
(CSS draws it, so it is neither copied nor pasted with the output).

Each block's bar is in the HTML (run_bar(): Run, Stop and Reset, or why the block does not run here,
and the `<output>` a run prints into), right after the block or after its annotation list (Material turns an
`<ol>` right after a code block into the block's annotations, looking at the block's next sibling). Built
into the page, the bars cost the phone nothing when it loads it: inserted by the script they restyled the
whole article once (a node added to `.md-typeset` invalidates all of it through Material's
`.md-typeset table:not([class]) + *`), a long task of its own on Lighthouse's phone. Without JavaScript
they are not shown (assets/run/run.css), and search leaves them out (data-search-exclude).

A page with runnable blocks gets one JSON blob (`<script type="application/json" id="run-config">`): the
code of each block exactly as the page shows it, the strings of the page's language (sitebuild/strings/)
and the name of culpa's wheel. assets/run/run.js (deferred, a few kB) reads it; nothing of Pyodide is fetched
until the first Run,
when assets/run/worker.js starts in a Web Worker.

Labs (mkdocs-jupyter's HTML: a code cell is `<div class="jp-Cell jp-CodeCell ...">`) get the same: each
code cell is a block (its `<div class="highlight-ipynb hl-python">`), and every one runs in the page: a figure
cell draws with the page's stand-in for matplotlib (assets/run/matplotlib/, which says so under the cell),
and the timing cells time enough repetitions for the browser's coarse clock. IPython's line magics (%pip,
%config) are not run in the browser, where culpa and numpy are already loaded (assets/run/worker.js).
"""

from __future__ import annotations

import html
import json
import re

from mkdocs.exceptions import PluginError

from sitebuild import strings
from sitebuild.project import page_language
from sitebuild.steps.keep import code_hash

TOKEN = re.compile(
    r"<!--\s*(?P<mark>pytest[-.][^>]*?)\s*-->"
    r'|<div class="language-(?P<lang>[\w-]+) highlight">(?P<body>.*?)</div>',
    re.S,
)
LAB_CELL = re.compile(
    r'<div class="(?P<cls>jp-Cell jp-CodeCell[^"]*)"[^>]*>.*?'
    r'<div class="(?P<hl>highlight-ipynb hl-python)">(?P<body>.*?)</div>',
    re.S,
)
SKIP_REASON = re.compile(r"""reason\s*=\s*(["'])(?P<reason>.+?)\1""")
TAG = re.compile(r"<[^>]+>")

# Blocks that run in the browser but cannot print there all that the page shows, found by their code, and
# why (the page says so next to the block's Run: strings' [run_limits]). Keep this short: each one is a
# difference a reader meets.
BROWSER_LIMITS = [
    (re.compile(r"time\.process_time"), "process_time"),
    (re.compile(r"except FloatingPointError"), "floating_point_error"),
    # a lab's figure cell: drawn in the page by assets/run/matplotlib/, on a reader's machine by matplotlib
    (re.compile(r"^\s*(import|from) matplotlib\b|\bplt\.", re.M), "matplotlib"),
]


def browser_limit(code: str, lang: str) -> str | None:
    """What the page says under a block that runs in the browser but not quite as on the reader's machine."""
    limits = strings.of(lang)["run_limits"]
    return next((limits[why] for pattern, why in BROWSER_LIMITS if pattern.search(code)), None)


def _code(body: str) -> str:
    return html.unescape(TAG.sub("", body))


OL_TAG = re.compile(r"<(/?)ol\b[^>]*>")
LEADING_OL = re.compile(r"\s*<ol\b")


def run_bar(k: int, block: dict, lang: str) -> str:
    """The bar under block k (and the <output> a run prints into): what assets/run/run.js wires up."""
    s = strings.of(lang)["run"]
    esc = html.escape
    if block["skip"]:
        # A page's block that does not run says why here, and only here (the page does not repeat it,
        # tests/test_run_blocks.py): so the note shows without JavaScript and on paper too (run-note,
        # assets/run/run.css). A lab cell's reason is the browser's, and goes with its Run bars.
        note = "" if block.get("lab") else " run-note"
        return (
            f'<div class="run-bar{note}" data-run-bar="{k}" data-search-exclude>'
            f'<p class="run-skip">{esc(s["skip"].format(reason=block["skip"]))}</p></div>'
        )
    bar = f'<div class="run-bar" data-run-bar="{k}" data-search-exclude>'
    limit = ""
    if block.get("limit"):
        limit = f'<p class="run-skip">{esc(s["limit"].format(reason=block["limit"]))}</p>'
    button = (
        '<button type="button" class="md-button run-button{cls}" data-run="{what}"{attrs}>{label}</button>'
    )
    n = k + 1

    def named(key: str) -> str:  # each button is named after its block: "Run block 3", not nine "Run"s
        return f' aria-label="{esc(s[key].format(n=n))}"'

    buttons = (
        button.format(cls=" md-button--primary", what="run", attrs=named("runN"), label=esc(s["run"]))
        + button.format(cls="", what="stop", attrs=" hidden" + named("stopN"), label=esc(s["stop"]))
        + button.format(
            cls="",
            what="reset",
            attrs=f' aria-disabled="true" title="{esc(s["resetTitle"])}"' + named("resetN"),
            label=esc(s["reset"]),
        )
        + button.format(cls="", what="restart", attrs=" hidden", label=esc(s["restart"]))
    )
    return (
        f"{bar}{buttons}{limit}</div>"
        f'<output class="run-output" data-run-output="{k}" data-search-exclude hidden aria-live="polite" '
        f'aria-label="{esc(s["output"])}"></output>'
    )


def after_annotations(content: str, end: int) -> int:
    """Where a block's bar goes: right after the block that ends at `end`, or after its annotation list."""
    if not LEADING_OL.match(content, end):
        return end
    depth = 0
    for m in OL_TAG.finditer(content, end):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return m.end()
    raise PluginError(
        f"sitebuild/steps/run_blocks.py: an <ol> after a code block is not closed: "
        f"{content[end : end + 80]!r}"
    )


def _apply(content: str, edits: list[tuple[int, int, str]]) -> str:
    """content with each (start, end, text) edit made: content[start:end] becomes text."""
    out, pos = [], 0
    for start, end, text in sorted(edits, key=lambda e: e[:2]):
        out += [content[pos:start], text]
        pos = end
    out.append(content[pos:])
    return "".join(out)


def mark_markdown_page(content: str, lang: str) -> tuple[str, list[dict]]:
    blocks: list[dict] = []
    edits: list[tuple[int, int, str]] = []
    mark = None
    for m in TOKEN.finditer(content):
        if m.group("mark"):
            mark = m.group("mark")
            continue
        lang_of_block = m.group("lang")
        attrs = ""
        if lang_of_block == "python":
            k = len(blocks)
            reason = None
            if mark and "skip" in mark:
                found = SKIP_REASON.search(mark)
                reason = found.group("reason") if found else "pytest.mark.skip"
            code = _code(m.group("body"))
            blocks.append({"code": code, "skip": reason, "limit": browser_limit(code, lang)})
            attrs = f' data-run-block="{k}"' + (f' data-run-skip="{html.escape(reason)}"' if reason else "")
            at = after_annotations(content, m.end())
            edits.append((at, at, run_bar(k, blocks[-1], lang)))
        elif mark and "expected-output" in mark and blocks:
            label = html.escape(strings.of(lang)["run"]["expected"])
            attrs = f' data-run-expected="{len(blocks) - 1}" data-label="{label}"'
        mark = None
        if attrs:
            opening = f'<div class="language-{lang_of_block} highlight"'
            cls_extra = " run-expected" if "data-run-expected" in attrs else ""
            edits.append(
                (
                    m.start(),
                    m.start() + len(opening),
                    f'<div class="language-{lang_of_block} highlight{cls_extra}"{attrs}',
                )
            )
    return _apply(content, edits), blocks


def mark_lab_page(content: str, lang: str) -> tuple[str, list[dict]]:
    blocks: list[dict] = []
    edits: list[tuple[int, int, str]] = []
    for m in LAB_CELL.finditer(content):
        code = _code(m.group("body"))
        k = len(blocks)
        blocks.append({"code": code, "skip": None, "limit": browser_limit(code, lang), "lab": True})
        attrs = f' data-run-block="{k}"'
        start = m.start("hl") + len(m.group("hl")) + 1  # after the closing quote of class="..."
        edits += [(start, start, attrs), (m.end(), m.end(), run_bar(k, blocks[-1], lang))]
    return _apply(content, edits), blocks


def on_page_content(html_text: str, page, config, wheel) -> str:
    """The page's HTML with every Python block marked and given its bar; its blocks in a run-config blob.
    `wheel` is the build's wheel step: it fills the install command and names the wheel's path."""
    lang = page_language(page)
    is_lab = page.file.src_uri.split("/")[1:2] == ["labs"]
    content, blocks = (mark_lab_page if is_lab else mark_markdown_page)(html_text, lang)
    if not blocks:
        return content
    for block in blocks:  # a lab's cells did not go through Markdown: fill the install command here
        block["code"] = wheel.fill(block["code"], config)
        block["hash"] = code_hash(block["code"])  # what a kept or linked edit was made from (steps/keep.py)
    blob = {
        "lang": lang,
        "strings": strings.of(lang)["run"],
        # "Show the graph" under a block that ran (run.js); the rest of [graph] comes with the graph itself
        "graph": {k: strings.of(lang)["graph"][k] for k in ("show", "showN", "hide", "loading", "failed")},
        "wheel": wheel.path,  # from the site's root: assets/run/worker.js loads it
        "blocks": blocks,
    }
    return content + f'\n<script type="application/json" id="run-config">{script_json(blob)}</script>\n'


def script_json(blob) -> str:
    """JSON that can sit inside <script>: every "<", ">" and "&" written as a \\u escape, so that nothing in
    a block's code ("</script>", or "<!--<script>", which makes the HTML parser swallow the rest of the
    page into the script) can end or change the element; every "/" escaped too, so that the site's own
    URLs in the code (a lab's install command) do not read as a script reaching for a host."""
    data = json.dumps(blob, ensure_ascii=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("/", "\\/")):
        data = data.replace(char, escape)
    return data
