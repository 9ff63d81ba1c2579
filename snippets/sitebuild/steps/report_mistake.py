"""A way to report a mistake, at the end of every page (chapters, the short path, labs, the home page).

The link opens a new issue in the repository the build names, the one the clone command names
(steps/wheel.py `repository()`: $CULPA_REPOSITORY_URL in the Pages workflow), with the title prefilled
with the page's name and the body with its address: a plain link, no script, nothing asked of another host
until the reader follows it. A build that knows no repository address (a local build knows only its own
folder, or an ssh remote) links nothing: the line then says where to report in words, and never links a
local path. Words in strings' [reader].
"""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from sitebuild import strings
from sitebuild.steps.wheel import repository


def issues_url(repo: str) -> str | None:
    """<repo>/issues/new for a repository at an http(s) address (GitHub's form), None for anything else."""
    parts = urlsplit(repo)
    if parts.scheme not in ("https", "http") or not parts.netloc or not parts.path.strip("/"):
        return None
    path = parts.path.rstrip("/").removesuffix(".git")
    return f"{parts.scheme}://{parts.netloc}{path}/issues/new"


def new_issue_url(repo: str, lang: str, *, title: str, page_url: str) -> str | None:
    base = issues_url(repo)
    if base is None:
        return None
    s = strings.of(lang)["reader"]
    query = {"title": s["issue_title"].format(page=title), "body": s["issue_body"].format(url=page_url)}
    return f"{base}?{urlencode(query, quote_via=quote)}"


def report_line(lang: str, url: str | None) -> str:
    s = strings.of(lang)["reader"]
    if url is None:
        return f'<p class="page-report" data-search-exclude>{html.escape(s["report_local"])}</p>'
    return (f'<p class="page-report" data-search-exclude><a href="{html.escape(url)}">'
            f'{html.escape(s["report_link"])}</a>{html.escape(s["report_where"])}</p>')


def on_page_content(content: str, page, config, lang: str, root: Path) -> str:
    """The page's HTML with the report line at its end."""
    url = new_issue_url(repository(root), lang, title=page.title or page.file.src_uri,
                        page_url=page.canonical_url or page.abs_url or page.file.src_uri)
    return content + report_line(lang, url)
