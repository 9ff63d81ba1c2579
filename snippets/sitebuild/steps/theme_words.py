"""Words that third-party templates write in English on every page, put in the page's language.

Python-Markdown's toc extension titles each heading's ¶ link "Permanent link" (its `permalink_title`, one
setting for every language: the i18n plugin allows no per-language Markdown extensions), and mkdocs-jupyter's
template names a lab cell's copy button "Copy to Clipboard" and says "Copied!" (hard-coded, no option).
on_post_page replaces each with the page language's words from [theme] in sitebuild/strings/; a page that
still holds one of the English phrases afterwards (a template changed its markup) fails the build, naming it.
"""

from __future__ import annotations

import html
import re

from mkdocs.exceptions import PluginError

from sitebuild import strings

# where a template writes its English words, and our key for them in [theme]
SPOTS = [
    (re.compile(r'(<a class="headerlink" href="[^"]*" title=")Permanent link(")'),
     "Permanent link", "permalink"),
    (re.compile(r'(<clipboard-copy\b[^>]*\baria-label=")Copy to Clipboard(")'),
     "Copy to Clipboard", "copy"),
    (re.compile(r'(<span class="notice" hidden="">)Copied!(</span>)'), "Copied!", "copied"),
]


def on_post_page(output: str, lang: str, page_name: str) -> str:
    words = strings.of(lang)["theme"]
    for spot, _, key in SPOTS:
        said = html.escape(words[key])
        output = spot.sub(lambda m, said=said: m.group(1) + said + m.group(2), output)
    if lang != "en":
        left = [english for _, english, _ in SPOTS if english in output]
        if left:
            raise PluginError(f"sitebuild/steps/theme_words.py: {page_name} still says {left} after the "
                              "theme's words were put in its language: did a template change its markup? "
                              "(see SPOTS)")
    return output
