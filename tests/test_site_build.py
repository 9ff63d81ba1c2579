"""The site builds strictly, and nothing it makes a browser load comes from another host."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

URL_IN_HTML = re.compile(r"""(?:src|href|srcset|data|poster|action)\s*=\s*["']([^"']+)["']""", re.I)
URL_IN_CSS = re.compile(r"""url\(\s*["']?([^"')]+)""", re.I)
LOADS = re.compile(r"<(script|link|img|iframe|source|video|audio|embed|object)\b[^>]*>", re.I)


def loaded_urls(html: str) -> list[str]:
    """URLs of what the browser fetches by itself: scripts, styles, images, frames (not plain links)."""
    urls = []
    for tag in LOADS.finditer(html):
        element = tag.group(0)
        fetched_rel = re.search(r"rel=[\"']?(stylesheet|icon|preload|modulepreload|manifest)", element, re.I)
        if tag.group(1).lower() == "link" and not fetched_rel:
            continue
        urls += URL_IN_HTML.findall(element)
    urls += URL_IN_CSS.findall(html)
    return urls


def is_foreign(url: str) -> bool:
    return bool(re.match(r"^(?:[a-z][a-z0-9+.-]*:)?//", url, re.I)) and not url.startswith(("data:",))


def test_site_builds_strictly(built_site: Path):
    assert (built_site / "index.html").is_file()
    assert (built_site / "en" / "index.html").is_file()


def test_nothing_is_loaded_from_another_host(built_site: Path):
    offenders = []
    for path in sorted(built_site.rglob("*")):
        if path.suffix not in (".html", ".css", ".js") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".html":
            urls = loaded_urls(text)
        elif path.suffix == ".css":
            urls = URL_IN_CSS.findall(text)
        else:
            continue  # scripts are checked in the browser tests, where requests are observed
        offenders += [f"{path.relative_to(built_site)}: {u}" for u in urls if is_foreign(u)]
    assert not offenders, "the built site loads from other hosts:\n" + "\n".join(offenders)


@pytest.mark.parametrize("lang_prefix", ["", "en/"])
def test_every_page_has_its_translation_linked(built_site: Path, lang_prefix):
    for page in sorted((built_site / lang_prefix).glob("*/index.html")):
        if page.parent.name in ("en", "search", "assets"):
            continue
        html = page.read_text(encoding="utf-8")
        assert 'hreflang="pt"' in html and 'hreflang="en"' in html, f"{page}: no language switcher"


TOGGLE = {"": ("Modo escuro", "Modo claro"), "en/": ("Dark mode", "Light mode")}


@pytest.mark.parametrize("lang_prefix", list(TOGGLE))
def test_palette_toggle_speaks_the_page_language(built_site: Path, lang_prefix):
    own, other = TOGGLE[lang_prefix], TOGGLE["en/" if lang_prefix == "" else ""]
    root = built_site / lang_prefix
    pages = [root / "index.html", *sorted(root.glob("0*/index.html"))]
    for page in pages:
        html = page.read_text("utf-8")
        labels = re.findall(r'<label class="md-header__button md-icon" title="([^"]+)"', html)
        assert sorted(labels) == sorted(own), f"{page}: the palette toggle reads {labels}, expected {own}"
        assert not set(labels) & set(other)
