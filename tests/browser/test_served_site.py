"""The site works under a project-page path, as GitHub Pages serves it; no browser needed.

The site is built for http://127.0.0.1:PORT/REPO/ and served only under /REPO/ (see conftest.py).
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from functools import cache
from html.parser import HTMLParser
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import pytest

from support.served import LANGS, NOT_PAGES, SitePage, source_pages

LOCAL_HOSTS = ("127.0.0.1", "localhost", "0.0.0.0", "[::1]")


def built_pages(site_dir) -> set[str]:
    """Ids of the pages the build made: every index.html outside assets/search/figures, and the 404 pages."""
    found = set()
    for index in site_dir.rglob("index.html"):
        rel = index.parent.relative_to(site_dir).as_posix()
        rel = "" if rel == "." else rel + "/"
        lang = next((code for code in LANGS[1:] if rel.startswith(f"{code}/")), LANGS[0])
        path = rel[len(lang) + 1 :] if lang != LANGS[0] else rel
        if path.split("/")[0] in NOT_PAGES:
            continue
        found.add(f"{lang}/{path}")
    for lang in LANGS:
        if (site_dir / ("" if lang == LANGS[0] else lang) / "404.html").is_file():
            found.add(f"{lang}/404.html")
    return found


def test_the_build_makes_exactly_the_pages_the_tests_visit(served_site):
    expected = {p.id for p in source_pages()}
    built = built_pages(served_site.dir)
    assert built == expected, (
        "the pages the browser tests visit (from docs/<lang>/) and the pages the build made differ:\n"
        f"  built but not visited: {sorted(built - expected)}\n"
        f"  visited but not built (copied raw instead of rendered?): {sorted(expected - built)}"
    )


def test_the_sitemap_lists_pages_of_this_site_under_the_prefix(served_site):
    sitemap = (served_site.dir / "sitemap.xml").read_text(encoding="utf-8")
    locations = re.findall(r"<loc>([^<]+)</loc>", sitemap)
    locations += re.findall(r'hreflang="\w+" href="([^"]+)"', sitemap)
    assert locations, "the sitemap lists no page"
    built = built_pages(served_site.dir)
    wrong = [url for url in locations if (page := served_site.page_at(url)) is None or page.id not in built]
    assert not wrong, f"the sitemap lists URLs that are not pages of the site at {served_site.base}: {wrong}"


def _http(url: str, follow: bool = True):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener() if follow else urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read().decode("utf-8", "replace")


@pytest.mark.parametrize(
    ("lang", "title", "other"),
    [("pt", "Página não encontrada", "en"), ("en", "Page not found", "pt")],
)
def test_a_404_page_in_each_language(served_site, lang, title, other):
    page = SitePage(lang, "404.html")
    status, _, html = _http(served_site.url(page))
    assert status == 200, f"{served_site.url(page)}: {status}"
    assert re.search(rf'<html lang="{lang}\b', html), f"{page.rel} is not in {lang}"
    assert f"<h1>{title}</h1>" in html, f"{page.rel} does not say {title!r}"
    switch = re.search(rf'<a href="([^"]+)" hreflang="{other}" class="md-select__link"', html)
    leads_to = switch and switch.group(1)
    assert leads_to == served_site.prefix + page.translation(other).rel, (
        f"{page.rel}: its language switcher should lead to the {other} 404 page, not {leads_to}"
    )


def test_a_missing_page_gets_the_404_page_as_on_pages(served_site):
    """What the server does is what Pages does; the site's part is a 404 page that works at any depth."""
    page = next(p for p in source_pages() if p.lang == LANGS[0] and p.path.endswith("/"))  # a lesson
    for missing in ("no/such/page/", "en/no/such/page/", page.path[:-2] + "/"):
        status, _, html = _http(served_site.base + missing)
        assert status == 404 and "<h1>Página não encontrada</h1>" in html, f"/{missing}: {status}"
        assert 'lang="en">Page not found.' in html, "the root 404 page has no line for English readers"
    status, headers, _ = _http(served_site.base + page.path.rstrip("/"), follow=False)
    assert status == 301 and headers["Location"].endswith(served_site.prefix + page.path), "no redirect"
    status, _, html = _http(served_site.origin + "/" + page.path)
    assert status == 404 and "Página não encontrada" not in html, "nothing is served outside the prefix"


class _Links(HTMLParser):
    ATTRS = {"a": "href", "link": "href", "script": "src", "img": "src", "source": "src", "iframe": "src"}

    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, str]] = []  # (tag, url)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        attr = self.ATTRS.get(tag)
        if attr and attrs.get(attr):
            self.found.append((tag, attrs[attr]))
        if tag in ("img", "source") and attrs.get("srcset"):
            self.found += [(tag, part.split()[0]) for part in attrs["srcset"].split(",") if part.strip()]


@cache
def _fetch(url: str) -> tuple[int, frozenset[str]]:
    """The target's status and, for an HTML page, the ids an anchor can land on. Only HTML is parsed: in the
    .ci/run of a918a5d a lab's figure (a PNG whose bytes change with the timings it draws), decoded as text,
    held `<![gL_W`, on which HTMLParser raised instead of saying anything about links."""
    status, headers, body = _http(url)
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    if not content_type.startswith("text/html"):
        return status, frozenset()
    parser = _Links()
    parser.feed(body)
    return status, frozenset(parser.ids)


def test_every_link_and_asset_resolves_under_the_project_path(served_site, site_page):
    """Every href/src of the page, resolved from the page's URL, lands on a file of this site (and an
    anchor on an id of the target): nothing forgets the /REPO/ prefix or points at another local server.
    The root 404 page is checked where Pages shows it: at a missing address, deep in the site."""
    url = served_site.url(site_page)
    expected_status = 200
    if site_page.rel == "404.html":
        url, expected_status = served_site.base + "en/a/missing/page/", 404
    status, _, html = _http(url)
    assert status == expected_status, f"{site_page.id}: {url} answered {status}"
    parser = _Links()
    parser.feed(html)
    broken = []
    for tag, raw in parser.found:
        target = urljoin(url, raw)
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https"):
            continue  # mailto:, data:, javascript:
        if parts.netloc != urlsplit(served_site.origin).netloc:
            if parts.hostname in LOCAL_HOSTS:
                broken.append(f"<{tag}> {raw}: points at another local server")
            continue  # a link to another site; test_site_build checks that nothing is *loaded* from one
        address, fragment = urldefrag(target)
        status, ids = _fetch(address)
        if status != 200:
            broken.append(f"<{tag}> {raw} -> {address}: {status}")
        elif fragment and unquote(fragment) not in ids and address.endswith("/"):
            broken.append(f"<{tag}> {raw}: no element with id {unquote(fragment)!r} on {address}")
    assert not broken, (
        f"{site_page.id} ({url}): links that do not resolve under {served_site.prefix}:\n" + "\n".join(broken)
    )
