"""A link to what the reader made, and nothing lost on reload: the page's bar, the blocks' hashes, the words.

A page with Python blocks or an explorer gets a bar under its title (after its code's download link):
"Copiar link"/"Copy link", "Redefinir página"/"Reset page" and a status line, hidden without JavaScript
(assets/run/run.css). Built into the page, as the Run bars are, so that nothing restyles the article while
it loads. assets/run/run.js loads assets/run/keep.js only when there is something to keep or restore: the
address carries a state (#culpa:...), this browser kept this page's edits (localStorage), or the reader
touches a block, an explorer or the bar. A page with nothing of that does nothing more at load.

Each block of the page's run-config gets `hash`, a short hash of its code as the page shows it
(`code_hash`): an edit kept in the browser or carried by a link names the hash of the code it was made
from, so a page whose code changed since says so and lets the reader choose (keep.js).

keep.js's words, both languages ([keep] in sitebuild/strings/), are served as assets/run/keep-words.json,
fetched with keep.js: the page itself carries only the bar's three labels.
"""

from __future__ import annotations

import hashlib
import html
import json
import re

from mkdocs.structure.files import File

from sitebuild import strings
from sitebuild.project import LANGS

# where the bar goes: after the page's download line (a chapter's .py, a lab's notebook), else after its title
DOWNLOAD = re.compile(r'<p class="(?:page-code|lab-download)"[^>]*>.*?</p>', re.S)
TITLE = re.compile(r"</h1>")
HAS_STATE = re.compile(r'id="run-config"|\bdata-explorer="')
BAR_WORDS = ("bar", "copy", "reset")  # what the page carries; the rest comes with keep.js


def code_hash(code: str) -> str:
    """A block's code, named in 12 hex digits: what an edit kept or linked was made from."""
    return hashlib.sha256(code.encode("utf-8")).hexdigest()[:12]


def bar(lang: str) -> str:
    s = strings.of(lang)["keep"]
    esc = html.escape
    button = '<button type="button" class="md-button keep-button" data-keep-{what}>{label}</button>'
    return (
        f'<div class="keep-bar" role="group" aria-label="{esc(s["bar"])}" data-keep data-search-exclude>'
        + button.format(what="copy", label=esc(s["copy"]))
        + button.format(what="reset", label=esc(s["reset"]))
        + '<p class="keep-status" role="status" aria-live="polite"></p></div>'
    )


def on_page_content(content: str, lang: str) -> str:
    """The page with its bar, if it has anything a reader can change (a Python block, an explorer)."""
    if not HAS_STATE.search(content):
        return content
    where = DOWNLOAD.search(content) or TITLE.search(content)
    if where is None:
        return bar(lang) + content
    return content[: where.end()] + bar(lang) + content[where.end() :]


def words() -> bytes:
    """assets/run/keep-words.json: keep.js's words, by language."""
    table = {lang: {k: v for k, v in strings.of(lang)["keep"].items() if k not in BAR_WORDS}
             for lang in LANGS}
    return json.dumps(table, ensure_ascii=False, sort_keys=True).encode("utf-8")


def add_files(files, config, lang: str) -> None:
    """assets/run/keep-words.json, once, in the default language's build (where assets/ is)."""
    default = config.plugins["i18n"].default_language if "i18n" in config.plugins else lang
    if lang != default:
        return
    file = File.generated(config, "assets/run/keep-words.json", content=words())
    stale = files.get_file_from_path(file.src_uri)
    if stale is not None:
        files.remove(stale)
    files.append(file)
