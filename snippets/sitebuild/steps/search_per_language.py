"""One search index per language, so that a search on a pt page returns pt pages only (and en, en only).

mkdocs-static-i18n builds every language into one site and merges all pages into the root
search/search_index.json. After the last build this step splits it: the root index keeps the pt pages,
en/search/search_index.json gets the en pages with their locations made relative to /en/. In each, every
section gets the names its code uses (sitebuild/steps/code_names.py), tokenized by the index's separator.
The en pages read their own index because overrides/main.html points their `base` at /en/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sitebuild.project import LANGS
from sitebuild.steps import code_names

OTHER_LANGUAGES = LANGS[1:]  # the default language (pt) keeps the root index
# Notebook pages (mkdocs-jupyter) carry each code cell twice: as shown, and as hidden text for the cell's
# copy button, next to a "Copied!" notice. Only what is shown belongs in the search index (and in the
# results' previews); Material's search leaves out elements marked data-search-exclude.
HIDDEN_COPY_TEXT = re.compile(r'<(div class="clipboard-copy-txt"|clipboard-copy(?=[\s>]))')
# Code blocks (<pre>: the lessons' code, a lab's cells and outputs) were 40% of the index, which every page
# downloads and parses at load (83 KiB of 1.6 Mbit/s on Lighthouse's phone). The index keeps the prose,
# the inline code in it, the formulas as text, and of the code only its names (steps/code_names.py).
CODE_BLOCK = re.compile(r"<pre(?=[\s>])(?![^>]*data-search-exclude)")


def split_index(site_dir: Path) -> None:
    root = site_dir / "search" / "search_index.json"
    if not root.exists():
        return
    index = json.loads(root.read_text(encoding="utf-8"))
    by_lang: dict[str, list] = {"pt": []}
    for lang in OTHER_LANGUAGES:
        by_lang[lang] = []
    for doc in index["docs"]:
        location = doc["location"]
        lang = next((code for code in OTHER_LANGUAGES if location.startswith(f"{code}/")), "pt")
        if lang != "pt":
            doc = {**doc, "location": location[len(lang) + 1 :]}
        by_lang[lang].append(doc)
    for lang, docs in by_lang.items():
        target = root if lang == "pt" else site_dir / lang / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        config = {**index["config"], "lang": [lang]}
        code_names.merge(docs, config["separator"])  # each section: its code's names, once
        text = json.dumps({"config": config, "docs": docs}, ensure_ascii=False, separators=(",", ":"))
        target.write_text(text, encoding="utf-8")


def exclude_code(html: str) -> str:
    """What search leaves out of a page: code blocks and a notebook cell's hidden copy text."""
    html = HIDDEN_COPY_TEXT.sub(lambda m: f"<{m.group(1)} data-search-exclude", html)
    return CODE_BLOCK.sub("<pre data-search-exclude", html)
