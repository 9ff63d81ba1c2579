"""Licence and credits in every page's footer, in the page's language; the code's licence served as text.

The footer (overrides/partials/copyright.html, Material's copyright partial, which every page and both 404
pages include) says who holds the rights, that the code is MIT (a link to <site>/LICENSE.txt, the
repository's LICENSE, written by publish_licence after every language is built) and the text CC BY 4.0
(a link to Creative Commons' deed in the page's language), and credits what the site ships from others,
each with its licence: CREDITS, one line per project. tests/test_reader_links.py checks that every package
vendored under docs/assets/vendor (VENDORED.md's table) is credited there with the licence the table gives.
Plain links only: nothing is asked of another host until a reader follows one.

on_env hands the templates `site_footer(base_url)`, in the language being built (the i18n plugin builds
each language with its own environment); words in strings' [reader].
"""

from __future__ import annotations

import html
import shutil
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from sitebuild import strings

SERVED_LICENCE = "LICENSE.txt"  # <site>/LICENSE.txt: the repository's LICENSE, served as text


@dataclass(frozen=True)
class Credit:
    name: str
    url: str
    licence: str


# What the site serves from others: the theme and what it carries (search and its languages, icons), and what
# docs/assets/vendor holds (VENDORED.md): KaTeX's CSS and fonts, Pyodide, and the Python and NumPy it runs.
CREDITS = (
    Credit("Material for MkDocs", "https://squidfunk.github.io/mkdocs-material/", "MIT"),
    Credit("lunr.js", "https://lunrjs.com/", "MIT"),
    Credit("lunr-languages", "https://github.com/MihaiValentin/lunr-languages", "MPL"),
    Credit("Material Design Icons", "https://pictogrammers.com/library/mdi/", "Pictogrammers Free License"),
    Credit("KaTeX", "https://katex.org/", "MIT"),
    Credit("Pyodide", "https://pyodide.org/", "MPL-2.0"),
    Credit("Python", "https://www.python.org/", "PSF License"),
    Credit("NumPy", "https://numpy.org/", "BSD-3-Clause"),
)


def footer_html(lang: str, base_url: str) -> str:
    """The footer's two paragraphs: rights and licences, then the credits."""
    s = strings.of(lang)["reader"]
    esc = html.escape
    code = f'<a href="{esc(base_url.rstrip("/"))}/{SERVED_LICENCE}">{esc(s["code_licence"])}</a>'
    text = f'<a href="{esc(s["text_licence_url"])}">{esc(s["text_licence"])}</a>'
    licences = esc(s["footer_licences"]).replace("{code}", code).replace("{text}", text)
    credits = " · ".join(
        f'<a href="{esc(c.url)}">{esc(c.name)}</a> <span class="licence">({esc(c.licence)})</span>'
        for c in CREDITS
    )
    return (f'<p>{esc(s["footer_rights"])} {licences}</p>'
            f'<p>{esc(s["footer_credits"])} {credits}</p>')


def on_env(env, lang: str):
    env.globals["site_footer"] = lambda base_url: Markup(footer_html(lang, base_url))
    return env


def publish_licence(root: Path, site_dir: Path) -> None:
    """<site>/LICENSE.txt: the repository's LICENSE, which every footer links."""
    shutil.copyfile(root / "LICENSE", site_dir / SERVED_LICENCE)
