"""Build the site once per test session, strictly, into a temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.pages import ROOT


def build_site(target: Path, site_url: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    if site_url:
        env["SITE_URL"] = site_url
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=ROOT,
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
