"""What a reader expects on every page: a way to report a mistake, and licence and credits in the footer.

- Every page of both languages (chapters, short path, labs, home) ends with a line to report a mistake: a
  link to a new issue in the repository the build names (the clone command's, steps/wheel.py), its title
  the page's name; a build that knows only its own folder links nothing, and no page links a local path
  (sitebuild/steps/report_mistake.py). A slow test builds the site as the Pages workflow does, with
  CULPA_REPOSITORY_URL, and checks every page's link.
- Every page's footer, 404 pages included, says in the page's language that the code is MIT (a link to the
  served LICENSE.txt, the repository's LICENSE) and the text CC BY 4.0, and credits every package vendored
  under docs/assets/vendor (VENDORED.md) with the licence VENDORED.md gives (sitebuild/steps/credits.py).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import pytest

from sitebuild import strings
from sitebuild.steps import credits, report_mistake
from support.pages import DOCS, LANGS, ROOT
from support.served import REPO
from support.site import build_site

NOT_PAGES = {"assets", "search", "culpa", "figures", *LANGS}


def built_pages(built_site: Path) -> list[tuple[str, Path]]:
    """(language, index.html) of every page of the built site: the home pages, the chapters, the short
    path and the labs of both languages."""
    found = []
    for lang in LANGS:
        root = built_site if lang == LANGS[0] else built_site / lang
        for page in sorted(root.rglob("index.html")):
            parts = page.relative_to(root).parts
            if parts[0] in NOT_PAGES and len(parts) > 1:
                continue
            found.append((lang, page))
    return found


def source_pages() -> list[tuple[str, str]]:
    """(language, page) of every page the sources have, for the count."""
    return [(lang, p.relative_to(DOCS / lang).as_posix())
            for lang in LANGS for p in (DOCS / lang).rglob("*.md")]


def test_every_page_is_found_in_the_built_site(built_site):
    assert len(built_pages(built_site)) == len(source_pages()), (
        [p.relative_to(built_site).as_posix() for _, p in built_pages(built_site)], source_pages()
    )


REPORT = re.compile(r'<p class="page-report"[^>]*>(?P<body>.*?)</p>', re.S)


def test_every_page_ends_with_a_way_to_report_a_mistake_and_no_local_link(built_site):
    """The session's build knows only its own folder (CULPA_REPOSITORY_URL unset): every page says where
    to report in words, and links neither an issue nor a path of the machine."""
    problems = []
    for lang, page in built_pages(built_site):
        text = page.read_text(encoding="utf-8")
        lines = REPORT.findall(text)
        name = page.relative_to(built_site).as_posix()
        if len(lines) != 1:
            problems.append(f"{name}: {len(lines)} report lines, not 1")
            continue
        if html.unescape(lines[0]) != strings.of(lang)["reader"]["report_local"]:
            problems.append(f"{name}: the report line reads {lines[0]!r}")
        local = [h for h in re.findall(r'href="([^"]+)"', text) if str(ROOT) in h or h.startswith("file:")]
        if local:
            problems.append(f"{name}: links a local path: {local}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("repo", "issues"),
    [
        ("https://github.com/o/r", "https://github.com/o/r/issues/new"),
        ("https://github.com/o/r/", "https://github.com/o/r/issues/new"),
        ("https://github.com/o/r.git", "https://github.com/o/r/issues/new"),
        ("https://ghe.example.com/team/r", "https://ghe.example.com/team/r/issues/new"),
        ("/work/wt-reader", None),
        ("C:\\Users\\a\\culpa", None),
        ("file:///work/culpa", None),
        ("git@github.com:o/r.git", None),
        ("ssh://git@github.com/o/r", None),
        ("https://github.com", None),
        ("", None),
    ],
)
def test_only_a_repository_address_gives_an_issue_link(repo, issues):
    assert report_mistake.issues_url(repo) == issues


def _page(title: str, src_uri: str, url: str):
    file = SimpleNamespace(src_uri=src_uri)
    return SimpleNamespace(title=title, canonical_url=url, abs_url=None, file=file)


@pytest.mark.parametrize("lang", LANGS)
def test_a_published_page_links_a_new_issue_titled_with_its_name(monkeypatch, lang):
    monkeypatch.setenv("CULPA_REPOSITORY_URL", "https://github.com/o/r")
    title = {"pt": "O exemplo resolvido", "en": "The worked example"}[lang]
    address = f"https://o.github.io/r/{'' if lang == 'pt' else 'en/'}03-worked-example/"
    page = _page(title, f"{lang}/03-worked-example.md", address)
    out = report_mistake.on_page_content("<h1>x</h1><p>text</p>", page, None, lang, ROOT)
    line = REPORT.search(out)
    assert line and out.endswith(line.group(0)), out
    link = re.search(r'<a href="([^"]+)">([^<]+)</a>', line.group("body"))
    assert link and link.group(2) == strings.of(lang)["reader"]["report_link"], line.group(0)
    url = urlsplit(html.unescape(link.group(1)))
    assert (url.scheme, url.netloc, url.path) == ("https", "github.com", "/o/r/issues/new")
    query = parse_qs(url.query)
    assert title in query["title"][0] and address in query["body"][0], query


def test_the_report_line_without_a_repository_address_links_nothing(monkeypatch):
    for name in ("CULPA_REPOSITORY_URL", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    out = report_mistake.on_page_content("<p>x</p>", _page("T", "pt/index.md", "http://x/"), None, "pt", ROOT)
    assert "<a " not in out.removeprefix("<p>x</p>")


# ---- the footer ------------------------------------------------------------------------------------------

FOOTER = re.compile(r'<div class="md-copyright site-credits">(?P<body>.*?)</div>', re.S)


def vendored() -> list[tuple[str, str]]:
    """(package, licence) of every row of VENDORED.md's table whose copy is under docs/assets/vendor."""
    rows = []
    for line in (DOCS / "assets" / "vendor" / "VENDORED.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and "docs/assets/vendor/" in cells[4]:
            rows.append((cells[0].split()[0], cells[3].split()[0]))
    return rows


def test_vendored_md_is_read():
    assert {name for name, _ in vendored()} >= {"katex", "pyodide", "numpy"}, vendored()


def linked_file(href: str, page: Path, built_site: Path) -> Path | None:
    """The file of the built site that a link of `page` points at (the session's site is served under
    /REPO/: a 404 page, served at any depth, links from there)."""
    if not href or urlsplit(href).scheme:
        return None
    if href.startswith("/"):
        prefix = f"/{REPO}/"
        return (built_site / href.removeprefix(prefix)).resolve() if href.startswith(prefix) else None
    return (page.parent / href).resolve()


def footer_problems(lang: str, body: str, page: Path, built_site: Path) -> list[str]:
    s = strings.of(lang)["reader"]
    text = html.unescape(re.sub(r"<[^>]+>", "", body))
    problems = [f"no {what!r}" for what in (s["footer_rights"], s["code_licence"], s["text_licence"])
                if what not in text]
    links = dict(re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', body))
    by_text = {html.unescape(v): html.unescape(k) for k, v in links.items()}
    code = by_text.get(s["code_licence"], "")
    served = linked_file(code, page, built_site)
    if served is None or served != (built_site / credits.SERVED_LICENCE).resolve() or not served.is_file():
        problems.append(f"the code's licence links {code!r}, not the served {credits.SERVED_LICENCE}")
    elif served.read_bytes() != (ROOT / "LICENSE").read_bytes():
        problems.append(f"{credits.SERVED_LICENCE} is not the repository's LICENSE")
    if by_text.get(s["text_licence"]) != s["text_licence_url"]:
        problems.append(f"the text's licence links {by_text.get(s['text_licence'])!r}")
    for package, licence in vendored():
        if not re.search(rf"{re.escape(package)}\W[^·]*\({re.escape(licence)}\)", text, re.I):
            problems.append(f"no credit for {package} ({licence}), vendored under docs/assets/vendor")
    return problems


def test_every_footer_has_the_licences_and_the_credits_in_its_language(built_site):
    problems = []
    not_found = [("pt", built_site / "404.html"), ("en", built_site / "en" / "404.html")]
    pages = [*built_pages(built_site), *not_found]
    for lang, page in pages:
        found = FOOTER.findall(page.read_text(encoding="utf-8"))
        name = page.relative_to(built_site).as_posix()
        if len(found) != 1:
            problems.append(f"{name}: {len(found)} licence and credits footers, not 1")
            continue
        problems += [f"{name}: {p}" for p in footer_problems(lang, found[0], page, built_site)]
    assert not problems, "\n".join(problems)


def test_the_footer_credits_name_what_vendored_md_names():
    names = " ".join(c.name.lower() for c in credits.CREDITS)
    assert all(package.lower() in names for package, _ in vendored())


@pytest.mark.slow
def test_a_build_that_knows_its_repository_links_a_new_issue_on_every_page(monkeypatch, tmp_path):
    """The Pages workflow's case, built for real: with CULPA_REPOSITORY_URL set, every page of both
    languages links a new issue in that repository, titled with the page's name (its <title> before the
    site's name) and with the page's address in the body."""
    monkeypatch.setenv("CULPA_REPOSITORY_URL", "https://github.com/o/r")
    site = tmp_path / "site"
    proc = build_site(site, site_url="https://o.github.io/r/")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    problems = []
    for lang, page in built_pages(site):
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(site).as_posix()
        line = REPORT.search(text)
        link = line and re.search(r'<a href="([^"]+)">', line.group("body"))
        if not link:
            problems.append(f"{name}: no link in its report line")
            continue
        url = urlsplit(html.unescape(link.group(1)))
        query = parse_qs(url.query)
        title = html.unescape(re.search(r"<title>(.*?)</title>", text, re.S).group(1)).rsplit(" - ", 1)[0]
        address = "https://o.github.io/r/" + page.parent.relative_to(site).as_posix() + "/"
        if f"{url.netloc}{url.path}" != "github.com/o/r/issues/new":
            problems.append(f"{name}: the report link goes to {url.geturl()}")
        elif query.get("title") != [strings.of(lang)["reader"]["issue_title"].format(page=title)]:
            problems.append(f"{name}: the issue's title is {query.get('title')}, not the page's {title!r}")
        elif address.replace("/./", "/") not in query.get("body", [""])[0]:
            problems.append(f"{name}: the issue's body does not give the page's address {address}")
    assert not problems, "\n".join(problems)
