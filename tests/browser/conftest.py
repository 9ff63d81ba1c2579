"""Fixtures of the browser tests: the built site served under a project-page path, and Chromium's visits.

The browser is Debian's Chromium (apt-get install chromium), driven by playwright; `playwright install`
is never needed. Without Chromium the browser tests skip with a one-line reason; under CI=true they fail.

A test that takes a `site_page` argument runs once per page of the site in both languages (ids like
"pt/03-worked-example/"); one that takes `content_page`, once per page but the 404 pages; one that takes
`lab_page`, once per notebook page.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future

import pytest
from visiting import CHROMIUM_ARGS, ISOLATED, NO_CHROMIUM, Visit, find_chromium, in_ci, visit_all

from support.served import SitePage, source_pages
from support.site import in_thread, shared_site


def pytest_generate_tests(metafunc):
    if "site_page" in metafunc.fixturenames:
        pages = source_pages()
        metafunc.parametrize("site_page", pages, ids=[p.id for p in pages])
    if "content_page" in metafunc.fixturenames:  # all but the 404 pages: each has code and is searchable
        pages = [p for p in source_pages() if p.kind != "404"]
        metafunc.parametrize("content_page", pages, ids=[p.id for p in pages])
    if "lab_page" in metafunc.fixturenames:
        pages = [p for p in source_pages() if p.kind == "notebook"]
        metafunc.parametrize("lab_page", pages, ids=[p.id for p in pages])


# --- the browser -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium() -> str:
    """Chromium's executable; without one, skip (or fail under CI=true, where the browser tests must run)."""
    executable = find_chromium()
    if executable is None:
        if in_ci():
            pytest.fail(f"CI=true and {NO_CHROMIUM}: the browser tests must run in CI", pytrace=False)
        pytest.skip(f"browser tests skipped: {NO_CHROMIUM}")
    return executable


def wanted_pages(items) -> dict[str, SitePage]:
    """The pages this session's tests ask about (a site_page or lab_page parameter), by id."""
    wanted = {}
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        for name in ("site_page", "lab_page"):
            if name in params:
                wanted[params[name].id] = params[name]
    return wanted


EARLY_VISITS: dict[str, Future] = {}


def start_visits_early(session) -> None:
    """Visit every wanted page now, in a thread of its own, as soon as the session's site is built, so that
    the visits overlap the tests that need no browser (they run first: tests/conftest.py)."""
    chromium = find_chromium()
    pages = list(wanted_pages(session.items).values())
    if chromium is None or not pages or "all" in EARLY_VISITS:
        return  # without Chromium the `chromium` fixture skips (or fails under CI=true) with its reason
    EARLY_VISITS["all"] = in_thread("visits", lambda: asyncio.run(
        visit_all(chromium, CHROMIUM_ARGS, shared_site(session.config), pages)))


@pytest.fixture(scope="session")
def visits(chromium, served_site, request):
    """The record of each page's visit (tests/browser/visiting.py), by page.

    One Chromium visits every page this session's tests ask about, a few at a time: started early when a
    module that uses it says so (start_early), otherwise the first time one is asked for.
    """
    wanted = wanted_pages(request.session.items)
    done = {}
    if "all" in EARLY_VISITS:
        done.update(EARLY_VISITS["all"].result())

    def visit(page: SitePage) -> Visit:
        if page.id not in done:
            pages = [p for p in wanted.values() if p.id not in done] or [page]
            done.update(asyncio.run(visit_all(chromium, CHROMIUM_ARGS, served_site, pages)))
        return done[page.id]

    return visit


@pytest.fixture(scope="module")
def browser(chromium):
    """Chromium driven by Playwright's sync API, one per test module (tests that click through pages),
    resolving no host but 127.0.0.1 (ISOLATED: what `visiting.kept_tab` counts on)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS + ISOLATED)
        yield launched
        launched.close()
