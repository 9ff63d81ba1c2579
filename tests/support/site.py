"""Build the site once per test session, strictly, into a temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.pages import ROOT


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
def built_site(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("site")
    proc = build_site(target)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return target
