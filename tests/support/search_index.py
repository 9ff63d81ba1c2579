"""The built site's search indexes, and the code of its pages, read the way search and a reader see them."""

from __future__ import annotations

import json
import re
from functools import cache
from html import unescape
from pathlib import Path

# Identifiers readers searched for and did not find while code blocks were out of the index (issue 25).
IDENTIFIERS = ["set_printoptions", "logaddexp", "retain_graph"]
INDEXES = {"pt": "search/search_index.json", "en": "en/search/search_index.json"}
TAGS = re.compile(r"<[^>]+>")
HEADING = re.compile(r'<h[1-6][^>]*\sid="([^"]+)"')
# A Python block of a built page: a Markdown page's fence or a notebook's code cell, then its <pre>.
PYTHON_PRE = re.compile(
    r'<div class="(?:language-python|highlight-ipynb hl-python)\b[^"]*"[^>]*>\s*<pre\b[^>]*>'
    r"(.*?)</pre>",
    re.S,
)


@cache
def index(site: Path, lang: str) -> dict:
    return json.loads((site / INDEXES[lang]).read_text(encoding="utf-8"))


def terms(text: str, separator: str) -> set[str]:
    """The terms lunr gets from a section's text with Material's tokenizer: split at the separator,
    lowercased (the index's pipeline has no stemmer and no trimmer: see its config)."""
    return {t for t in re.split(separator, unescape(TAGS.sub(" ", text)).lower()) if t}


def page_html(site: Path, lang: str, page: str) -> str:
    folder = site if lang == "pt" else site / lang
    return (folder / page / "index.html").read_text(encoding="utf-8")


def code_of(html: str) -> str:
    return "\n".join(unescape(TAGS.sub("", m.group(1))) for m in PYTHON_PRE.finditer(html))


def pages_whose_code_uses(site: Path, lang: str, name: str) -> set[str]:
    """The pages of a language ("", "03-worked-example/", "labs/x/") whose Python blocks have `name`."""
    folder = site if lang == "pt" else site / lang
    found = set()
    for path in folder.rglob("index.html"):
        rel = path.parent.relative_to(folder).as_posix()
        if rel.split("/")[0] in ("en", "assets", "search", "figures"):
            continue
        if re.search(rf"\b{name}\b", code_of(path.read_text(encoding="utf-8"))):
            found.add("" if rel == "." else f"{rel}/")
    return found


def section_html(html: str, anchor: str) -> str:
    """A built page's HTML from the heading with this id to the next heading (the whole page without one)."""
    if not anchor:
        first = HEADING.search(html)
        return html[: first.start()] if first else html
    starts = list(HEADING.finditer(html))
    at = next(i for i, m in enumerate(starts) if m.group(1) == anchor)
    end = starts[at + 1].start() if at + 1 < len(starts) else len(html)
    return html[starts[at].start() : end]
