"""A 404 page per language: /404.html in pt (the default), /en/404.html in en.

mkdocs-static-i18n builds every language into the same site_dir, so each build writes its theme's
404.html to the root and the last language wins. This step keeps each language's rendering and writes
it where it belongs once every language has been built. GitHub Pages serves the root 404.html for every
missing URL of a project site, so that one is the default language's (overrides/404.html adds a line in
English to it).

The language switcher of a 404 page leads to the other language's 404 page: left alone, it would point
at whatever page the previous build rendered last.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from sitebuild.project import LANGS

TEMPLATE = "404.html"


def _i18n(config):
    return config.plugins.get("i18n")


def language(config) -> str:
    """The language being built (the 404 page being rendered is in it)."""
    i18n = _i18n(config)
    return i18n.current_language if i18n is not None else LANGS[0]


def _target(lang: str, default: str) -> str:
    return TEMPLATE if lang == default else f"{lang}/{TEMPLATE}"


class NotFoundPages:
    def __init__(self):
        self.rendered: dict[str, str] = {}  # language -> its 404 page

    def link_languages(self, context, template_name, config):
        """The 404 page's language switcher leads to the other language's 404 page."""
        i18n = _i18n(config)
        # The i18n plugin sets `config.extra.alternate` as an attribute on each page, apart from the mapping
        # item `config.extra["alternate"]`; templates read the attribute when there is one, else the item.
        alternate = getattr(config.extra, "alternate", None) or config.extra.get("alternate")
        if template_name != TEMPLATE or i18n is None or not alternate:
            return context
        base = urlsplit(config.site_url or "/").path.rstrip("/")
        default = i18n.default_language
        links = [{**alt, "link": f"{base}/{_target(alt['lang'], default)}"} for alt in alternate]
        config.extra.alternate = config.extra["alternate"] = links
        return context

    def keep(self, output, template_name, config):
        i18n = _i18n(config)
        if template_name == TEMPLATE and i18n is not None:
            self.rendered[i18n.current_language] = output
        return output

    def write(self, config) -> None:
        """Once every language is built: each language's 404 page where it belongs."""
        i18n = _i18n(config)
        if i18n is None:
            return
        for lang, html in self.rendered.items():
            path = Path(config.site_dir) / _target(lang, i18n.default_language)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(html, encoding="utf-8")
