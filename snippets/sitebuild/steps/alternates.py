"""Language alternates that browsers, search engines and Material's script can all follow.

Every page's <head> names its translation (`<link rel="alternate" hreflang="en" href="...">`, from the
i18n plugin). Two things in it fail Lighthouse's best-practices audits, and this step fixes both:

- hreflang links must be fully-qualified URLs; Material writes them relative (`../en/02-chain-rule/`).
  on_post_page (and on_post_template for the 404 pages) makes each absolute from site_url.
- Material's script fetches `sitemap.xml` next to each alternate's URL (for its language switcher) and the
  one at its `base` (the language's root): only the root sitemap.xml existed, so every page view logged two
  404s in the console. on_post_build writes, in each page's folder, a sitemap.xml of that page and its
  alternates (a few hundred bytes), and under each other language's root the sitemap of that language.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin
from xml.sax.saxutils import quoteattr

ALTERNATE = re.compile(r'<link rel="alternate" href="(?P<href>[^"]*)" hreflang="(?P<lang>[^"]+)">')
SITEMAP_NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
              'xmlns:xhtml="http://www.w3.org/1999/xhtml"')

def absolute_alternates(html: str, base_url: str) -> tuple[str, list[tuple[str, str]]]:
    found = []

    def one(m: re.Match) -> str:
        url = urljoin(base_url, m.group("href"))
        found.append((m.group("lang"), url))
        return f'<link rel="alternate" href="{url}" hreflang="{m.group("lang")}">'

    head_end = html.find("</head>")
    head = ALTERNATE.sub(one, html[:head_end])
    return head + html[head_end:], found


def sitemap(entries: list[tuple[str, list[tuple[str, str]]]]) -> str:
    urls = []
    for url, alternates in entries:
        links = "".join(f"<xhtml:link rel=\"alternate\" hreflang={quoteattr(lang)} href={quoteattr(alt)}/>"
                        for lang, alt in alternates)
        urls.append(f"<url><loc>{url}</loc>{links}</url>")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {SITEMAP_NS}>{"".join(urls)}</urlset>\n'


class Alternates:
    def __init__(self):
        self.pages: dict[Path, tuple[str, list[tuple[str, str]]]] = {}  # folder -> (its URL, [(lang, URL)])

    def absolute(self, output: str, page, config) -> str:
        url = page.canonical_url or urljoin(config.site_url or "/", page.url)
        output, found = absolute_alternates(output, url)
        if found:
            self.pages[Path(page.file.abs_dest_path).parent] = (url, found)
        return output

    def absolute_in_template(self, output: str, template_name: str, config) -> str:
        """The 404 pages (a template, not a page), before localized_404 keeps each language's."""
        if template_name != "404.html":
            return output
        return absolute_alternates(output, config.site_url or "/")[0]

    def write_sitemaps(self, config) -> None:
        """After every language is built (and mkdocs wrote the root sitemap.xml)."""
        site = Path(config.site_dir)
        i18n = config.plugins.get("i18n")
        for folder, entry in self.pages.items():
            if folder != site:  # the root keeps the full sitemap.xml mkdocs wrote
                (folder / "sitemap.xml").write_text(sitemap([entry]), encoding="utf-8")
        if i18n is not None:
            for lang in (language.locale for language in i18n.config.languages):
                if lang == i18n.default_language:
                    continue
                root = site / lang
                ours = [entry for folder, entry in sorted(self.pages.items()) if folder.is_relative_to(root)]
                if root.is_dir():
                    (root / "sitemap.xml").write_text(sitemap(ours), encoding="utf-8")
