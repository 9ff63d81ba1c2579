"""Browser sessions that run in a thread of their own while the other browser tests run.

Some browser test modules drive their pages in one long session (a module fixture that types, checks and
reads, then returns what it saw) and their tests only read what it recorded. Such a session waits on the
page most of its time (Python loading in the page, a check's time limit), and a 2-core machine sat a third
idle while it did. A module declares it with `session_fixture`:

    def drive_sessions(browser, served_site):  # what opens contexts (new_context), the session's ServedSite
        ...
        return found

    sessions = session_fixture(drive_sessions)  # the fixture `sessions` (scope: module)

After collection (tests/conftest.py) `start(session)` runs the declared sessions of every selected module
one after the other, in one thread, each context a Chromium of its own on a profile seeded with the caches
of the last one (SeededProfiles, below), once the early sessions (a module's `start_early`) are done, so
that no two Pythons in pages compete with the run-in-page session; their modules run last
(tests/conftest.py), and each fixture waits for its session's result, or raises what it raised. A module run
alone (its sessions not started) drives them in its fixture, with the module's browser.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future, wait
from pathlib import Path

import pytest

from support.site import EARLY_WORK, shared_site

Work = Callable[..., object]
DECLARED: dict[str, dict[str, Work]] = {}  # module name -> {work's name: work}
STARTED: dict[tuple[str, str], Future] = {}


def session_fixture(work: Work):
    """The module fixture named after work (`drive_sessions` gives `sessions`): work(browser, served_site)'s
    result, from the background thread when `start` started it, else computed here."""
    DECLARED.setdefault(work.__module__, {})[work.__name__] = work
    key = (work.__module__, work.__name__)

    @pytest.fixture(scope="module", name=work.__name__.removeprefix("drive_"))
    def fixture(request, served_site):
        if key in STARTED:
            return STARTED[key].result()
        return work(request.getfixturevalue("browser"), served_site)

    return fixture


def record_steps(browser, steps: dict[object, Callable]) -> dict:
    """Each step(browser) in turn, for a session that drives several pages: what it gave, or the error it
    raised, kept for that step's test alone (`outcome`), so that one step's failure fails one test."""
    found = {}
    for key, step in steps.items():
        try:
            found[key] = ("ok", step(browser))
        except Exception as error:
            found[key] = ("error", error)
    return found


def outcome(found: dict, key):
    """What record_steps kept for a step: its result, or the error it raised, raised again here."""
    kind, value = found[key]
    if kind == "error":
        raise value
    return value


class SeededProfiles:
    """What the background sessions get as their `browser`: each `new_context(**options)` is a Chromium of its
    own on a new profile folder (playwright's `launch_persistent_context`, the same options), which starts
    with no storage, as a new context does, but with the HTTP cache and the compiled code of the profile
    closed last, as a returning reader's browser has them.

    Why: the page's Python start compiles `pyodide.asm.wasm`, and Chromium keeps that compiled code only in a
    profile on disk (its code cache); a context of `browser.new_context()` is off the record and compiles it
    afresh every time. A start costs 5.1-5.7 s of processor time in a fresh context, 3.0-3.3 s with the
    code cache (tests/bench/README.md, "The test suite"), and these sessions start Python about 30 times.
    What the tests check is the same either way: a page that fetches a file still asks for it (from the
    cache: playwright's `request` event and the page's resource timing record it all the same), and a fault
    the tests plant is a route (`context.route`), which the cache never answers."""

    CACHES = ("Cache", "Code Cache")  # of a profile's Default/: the HTTP cache and V8's compiled code

    def __init__(self, playwright, executable: str, args: list[str], root: Path) -> None:
        self.playwright, self.executable, self.args, self.root = playwright, executable, args, root
        self.seed: Path | None = None  # the profile closed last, whose caches the next ones copy
        self.open: list = []

    def new_context(self, **options):
        profile = Path(tempfile.mkdtemp(dir=self.root))
        if self.seed is not None:
            for cache in self.CACHES:
                if (self.seed / "Default" / cache).is_dir():
                    shutil.copytree(self.seed / "Default" / cache, profile / "Default" / cache)
        context = self.playwright.chromium.launch_persistent_context(
            profile, executable_path=self.executable, args=self.args, **options)
        close = context.close

        def closed(**kwargs) -> None:  # then its caches are on disk, complete: the next profiles' seed
            if context in self.open:
                self.open.remove(context)
            close(**kwargs)
            old, self.seed = self.seed, profile
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)

        context.close = closed
        self.open.append(context)
        return context

    def close(self) -> None:
        for context in list(self.open):
            context.close()


def declares_sessions(module) -> bool:
    return getattr(module, "__name__", None) in DECLARED


def start(session: pytest.Session) -> None:
    """Start the declared sessions of the selected modules, in a thread, after the early sessions."""
    modules = {
        item.module.__name__ for item in session.items if declares_sessions(getattr(item, "module", None))
    }
    works = {
        (m, name): work
        for m in sorted(modules)
        for name, work in DECLARED[m].items()
        if (m, name) not in STARTED
    }
    if not works:
        return
    from visiting import CHROMIUM_ARGS, ISOLATED, find_chromium  # tests/browser/, on the path by now

    executable, args = find_chromium(), CHROMIUM_ARGS + ISOLATED  # as the `browser` fixture's
    if executable is None:
        return  # without Chromium each fixture asks for `browser`, which skips (or fails under CI=true)
    futures = {key: Future() for key in works}
    STARTED.update(futures)
    early = list(EARLY_WORK)

    def run() -> None:
        try:
            wait(early)
            site = shared_site(session.config)
            from playwright.sync_api import sync_playwright

            with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="sessions-") as root:
                browser = SeededProfiles(playwright, executable, args, Path(root))
                for key, work in works.items():
                    try:
                        futures[key].set_result(work(browser, site))
                    except BaseException as error:  # handed to the fixture, which fails its tests with it
                        futures[key].set_exception(error)
                browser.close()
        except BaseException as error:  # the site's build, or Chromium's launch: every waiting fixture hears
            for future in futures.values():
                if not future.done():
                    future.set_exception(error)

    threading.Thread(target=run, name="background sessions", daemon=True).start()
