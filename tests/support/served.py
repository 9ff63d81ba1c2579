"""The site as GitHub Pages serves it: its pages, and a loopback server under a project-page path.

GitHub Pages publishes a project site at https://OWNER.github.io/REPO/, so the tests build the site with
SITE_URL=http://127.0.0.1:PORT/REPO/ and serve it only under /REPO/: a link or asset that forgets the
prefix gets a 404 here as it would there. A missing page under the prefix gets the site's 404.html with
status 404, and a folder asked for without its trailing slash is redirected, both as on Pages.

Pages are found from the sources under docs/<lang>/ (so tests can be parametrized at collection time);
test_served_site.py checks that the build made exactly those pages, so none can go untested.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LANGS = ("pt", "en")
DEFAULT_LANG = "pt"
REPO = (os.environ.get("GITHUB_REPOSITORY") or "owner/culpa").rsplit("/", 1)[-1]
NOTEBOOK_SUFFIXES = (".ipynb", ".py")
NOT_PAGES = ("figures", "assets", "search")


@dataclass(frozen=True)
class SitePage:
    """One page of the built site: its language and its path inside that language's folder."""

    lang: str
    path: str  # "" (home), "03-worked-example/", "labs/some-lab/", "404.html"
    kind: str = field(default="markdown", compare=False)  # "markdown", "notebook" or "404"
    source: Path | None = field(default=None, compare=False)

    @property
    def id(self) -> str:
        return f"{self.lang}/{self.path}"

    @property
    def rel(self) -> str:
        """Path from the site's root (what follows https://OWNER.github.io/REPO/)."""
        return self.path if self.lang == DEFAULT_LANG else f"{self.lang}/{self.path}"

    @property
    def slug(self) -> str:
        return f"{self.lang}-{self.path.strip('/').replace('/', '-').replace('.html', '') or 'home'}"

    def translation(self, lang: str) -> SitePage:
        return SitePage(lang, self.path, self.kind)


def _is_notebook(path: Path, rel: Path) -> bool:
    if path.suffix in NOTEBOOK_SUFFIXES:
        return True
    # A MyST/jupytext Markdown notebook says so in its front matter.
    head = path.read_text(encoding="utf-8", errors="replace")[:2000]
    front_matter = head.startswith("---") and re.search(r"^\s*(kernelspec|jupytext):", head, re.M)
    return rel.parts[0] == "labs" and bool(front_matter)


def source_pages() -> list[SitePage]:
    """Every page the sources under docs/<lang>/ make, in both languages, plus each language's 404 page."""
    pages: dict[tuple[str, str], SitePage] = {}
    for lang in LANGS:
        base = DOCS / lang
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(base)
            hidden = any(part.startswith((".", "_")) for part in rel.parts)
            if not path.is_file() or hidden or rel.parts[0] in NOT_PAGES:
                continue
            if path.suffix == ".md" or (path.suffix in NOTEBOOK_SUFFIXES and rel.parts[0] == "labs"):
                stem = rel.with_suffix("")
                if stem.name == "index":
                    url = "" if stem.parent == Path(".") else f"{stem.parent.as_posix()}/"
                else:
                    url = f"{stem.as_posix()}/"
                kind = "notebook" if _is_notebook(path, rel) else "markdown"
                # a lab kept as text and the .ipynb the build generates beside it are one page
                pages.setdefault((lang, url), SitePage(lang, url, kind, path))
        pages[(lang, "404.html")] = SitePage(lang, "404.html", "404")
    return sorted(pages.values(), key=lambda p: (LANGS.index(p.lang), p.path == "404.html", p.path))


# --- the server ------------------------------------------------------------------------------------


class PagesHandler(SimpleHTTPRequestHandler):
    """Serves the site's folder under `prefix` only, with the site's 404.html for what is missing there."""

    site_dir: Path
    prefix: str

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(self.site_dir), **kwargs)

    def _under_prefix(self) -> bool:
        return (urlsplit(self.path).path + "/").startswith(self.prefix)

    def send_head(self):
        if not self._under_prefix():
            super().send_error(404, "Outside the site's path")
            return None
        return super().send_head()

    def translate_path(self, path):
        rest = urlsplit(path).path[len(self.prefix) :]
        return super().translate_path("/" + rest)

    def send_error(self, code, message=None, explain=None):
        page = self.site_dir / "404.html"
        if code != 404 or not self._under_prefix() or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):
        pass


@dataclass
class ServedSite:
    dir: Path
    origin: str  # http://127.0.0.1:PORT
    prefix: str  # /REPO/

    @property
    def base(self) -> str:
        return self.origin + self.prefix

    def url(self, page: SitePage) -> str:
        return self.base + page.rel

    def page_at(self, url: str) -> SitePage | None:
        """The page a URL of this site shows (fragment and query ignored), or None."""
        path = urlsplit(url).path
        if not path.startswith(self.prefix):
            return None
        rel = path[len(self.prefix) :]
        others = (code for code in LANGS if code != DEFAULT_LANG and rel.startswith(f"{code}/"))
        lang = next(others, DEFAULT_LANG)
        if lang != DEFAULT_LANG:
            rel = rel[len(lang) + 1 :]
        if rel.endswith("index.html"):
            rel = rel[: -len("index.html")]
        return SitePage(lang, rel)
