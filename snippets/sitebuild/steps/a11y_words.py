"""The words assets/a11y.js gives to what the theme leaves unnamed (a code annotation's marker is a link
whose only content is a number drawn by CSS), in the page's language: on_post_page writes them on the
script's own tag as data-* attributes, which the script reads from document.currentScript. Their home is
[a11y] in sitebuild/strings/."""

from __future__ import annotations

import html
import re

from mkdocs.exceptions import PluginError

from sitebuild import strings

A11Y_SCRIPT = re.compile(r'<script\b(?=[^>]*\bsrc="[^"]*assets/a11y\.js")')


def on_post_page(output: str, lang: str) -> str:
    words = strings.of(lang)["a11y"]
    attrs = "".join(f' data-{key}="{html.escape(text)}"' for key, text in sorted(words.items()))
    output, found = A11Y_SCRIPT.subn(lambda m: m.group(0) + attrs, output, count=1)
    if not found:
        raise PluginError("sitebuild/steps/a11y_words.py: a page without assets/a11y.js: mkdocs.yml's "
                          "extra_javascript must list it")
    return output
