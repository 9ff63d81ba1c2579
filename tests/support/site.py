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
import threading
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
    for name in ("mkdocs.yml", "pyproject.toml", "README.md"):  # the last two make culpa's wheel
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


@pytest.fixture(scope="session")
def served_site(tmp_path_factory) -> ServedSite:
    """Build the site for http://127.0.0.1:PORT/REPO/ and serve it there for the whole session."""
    handler = type("Handler", (PagesHandler,), {"site_dir": Path("/nonexistent"), "prefix": f"/{REPO}/"})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    target = tmp_path_factory.mktemp("pages") / REPO
    proc = build_site(target, site_url=f"{origin}/{REPO}/")
    if proc.returncode != 0:
        server.server_close()
        lines = f"{proc.stdout}\n{proc.stderr}".splitlines()
        problems = [line for line in lines if line.strip() and not line.startswith("INFO")]  # not the chatter
        log = "\n".join(problems or lines)
        pytest.fail(f"mkdocs build --strict for the project path failed:\n{log}", pytrace=False)
    handler.site_dir = target
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield ServedSite(dir=target, origin=origin, prefix=f"/{REPO}/")
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def built_site(served_site) -> Path:
    """The site built once for the session (the one `served_site` serves): every test that only reads
    the built site reads this one."""
    return served_site.dir
