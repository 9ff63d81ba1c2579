"""Build the site once per test session, strictly, for a project-page path, and serve it on 127.0.0.1.

One build serves the whole session: `built_site` (its folder, for the tests that read files) and
`served_site` (its address, for the browser tests) are the same site. Tests that must break something
build a copy of the project (`copy_project`, `build_site(..., project=copy)`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from support.pages import ROOT
from support.served import REPO, PagesHandler, ServedSite


def copy_project(target: Path) -> Path:
    """What a build reads (mkdocs.yml, pyproject.toml, README.md, docs/, snippets/) plus the figure and lab
    caches, so that a test can plant a fault in the copy and build it without re-running every unchanged
    figure and lab."""
    target.mkdir(parents=True)
    for name in ("mkdocs.yml", "pyproject.toml", "README.md", "LICENSE"):  # the last three: culpa's wheel
        shutil.copy(ROOT / name, target / name)
    shutil.copytree(ROOT / "docs", target / "docs", ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    shutil.copytree(ROOT / "snippets", target / "snippets", ignore=shutil.ignore_patterns("__pycache__"))
    for cache in ("labs", "figures"):
        if (ROOT / ".cache" / cache).is_dir():
            shutil.copytree(ROOT / ".cache" / cache, target / ".cache" / cache)
    return target


def build_site(
    target: Path, site_url: str | None = None, project: Path = ROOT
) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of `project` (the repository, or a copy of it) into `target`. A copy is built
    by its own code: its snippets/ comes first on the path, before the editable install's."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    if project != ROOT:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(project / "snippets"), env.get("PYTHONPATH")]))
    if site_url:
        env["SITE_URL"] = site_url
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )


class BuildFailed(Exception):
    """The session's build failed: its log, without MkDocs' INFO chatter."""


_SITE_KEY = pytest.StashKey[dict]()
_SITE_LOCK = threading.Lock()


def shared_site(config: pytest.Config) -> ServedSite:
    """The session's one site: built (strictly, for http://127.0.0.1:PORT/REPO/) and served the first time
    anything asks for it, from whichever thread (a test module may start early work in a thread of its own:
    tests/conftest.py), then the same site for everyone. A failed build raises BuildFailed, every time."""
    with _SITE_LOCK:
        if _SITE_KEY not in config.stash:
            config.stash[_SITE_KEY] = _build_and_serve(config)
        found = config.stash[_SITE_KEY]
    if "failed" in found:
        raise BuildFailed(found["failed"])
    return found["site"]


def _build_and_serve(config: pytest.Config) -> dict:
    handler = type("Handler", (PagesHandler,), {"site_dir": Path("/nonexistent"), "prefix": f"/{REPO}/"})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    target = Path(tempfile.mkdtemp(prefix="pages-")) / REPO
    config.add_cleanup(lambda: shutil.rmtree(target.parent, ignore_errors=True))
    proc = build_site(target, site_url=f"{origin}/{REPO}/")
    if proc.returncode != 0:
        server.server_close()
        lines = f"{proc.stdout}\n{proc.stderr}".splitlines()
        problems = [line for line in lines if line.strip() and not line.startswith("INFO")]  # not the chatter
        return {"failed": "\n".join(problems or lines)}
    handler.site_dir = target
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    config.add_cleanup(stop)
    return {"site": ServedSite(dir=target, origin=origin, prefix=f"/{REPO}/")}


EARLY_WORK: list[Future] = []  # what in_thread started; support/background.py's sessions wait for it


def in_thread(name: str, work) -> Future:
    """Start work() in a daemon thread of its own; its result (or what it raised) comes back through the
    future. Early browser sessions (`start_early`, tests/conftest.py) run so, beside the other tests."""
    future: Future = Future()
    EARLY_WORK.append(future)

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as error:  # handed to whoever waits, which fails its tests with it
            future.set_exception(error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


@pytest.fixture(scope="session")
def served_site(request) -> ServedSite:
    """The site built for http://127.0.0.1:PORT/REPO/ and served there for the whole session."""
    try:
        return shared_site(request.config)
    except BuildFailed as failed:
        pytest.fail(f"mkdocs build --strict for the project path failed:\n{failed}", pytrace=False)


@pytest.fixture(scope="session")
def built_site(served_site) -> Path:
    """The site built once for the session (the one `served_site` serves): every test that only reads
    the built site reads this one."""
    return served_site.dir
