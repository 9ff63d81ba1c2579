"""One copy of the project, built again three times, for the tests of what a rebuild redoes.

Session fixture `rebuilds` (a pytest plugin: tests/conftest.py lists it). The tests of the lab cache
(`test_labs.py`), of the figure and lab caches together (`test_site_build.py`) and of the figures' determinism
(`test_figures.py`) read what these builds did, instead of each building a copy of its own: a build of a copy
costs 11 to 63 s of a 2-core machine, and the last one here, which executes every lab and draws every figure
again, is the largest single item of the suite.

1. `again`: the copy built with its caches (the checkout's, copied) current: nothing to execute or draw. When
   the checkout's caches are behind its code (someone edits the tree while the suite runs), one build first
   brings them up to date.
2. `lesson_edited`: after a comment line is added to `snippets/lessons/training.py` (one figure reads it).
3. `culpa_edited`: after a comment line is added to `snippets/culpa/tensor.py`, which every figure and lab
   depends on: every lab executes again and every figure is drawn again, in this build's process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitebuild.steps import notebooks
from support.site import build_site, copy_project


@dataclass
class Build:
    """What one build of the copy did, and the state of the copy's caches after it."""

    site: Path | None  # where it was built (None: no build, the caches as they were)
    log: str
    figure_keys: dict[str, str]  # figure -> the cache entry it is served from
    lab_keys: dict[str, str]  # lang/lab -> the key of its executed notebook
    render_keys: dict[str, str]  # lang/lab.html.json -> the key of its rendered HTML
    notebooks: dict[str, bytes]  # lang/lab -> the executed notebook's bytes
    executed_mtimes: dict[str, int]  # lang/lab -> when its executed notebook was last written


@dataclass
class Rebuilds:
    project: Path
    before: Build  # the copy's caches before `again` (no build: what the checkout's builds left)
    again: Build
    lesson_edited: Build
    culpa_edited: Build


def _state(project: Path, site: Path | None, log: str) -> Build:
    cache = project / ".cache"
    figures = {d.name: next(e.name for e in d.iterdir() if not e.name.startswith("."))
               for d in (cache / "figures").iterdir()} if (cache / "figures").is_dir() else {}
    labs = {f"{lab.lang}/{lab.name}": lab for lab in notebooks.find_labs(project / "docs", cache / "labs")
            if lab.stamp.is_file()}
    renders = {f"{p.parent.name}/{p.name}": json.loads(p.read_text())["key"]
               for p in sorted((cache / "labs").glob("*/*.html.json"))}
    return Build(site, log, figures,
                 {k: json.loads(lab.stamp.read_text())["key"] for k, lab in labs.items()}, renders,
                 {k: lab.executed.read_bytes() for k, lab in labs.items() if lab.executed.is_file()},
                 {k: lab.executed.stat().st_mtime_ns for k, lab in labs.items() if lab.executed.is_file()})


def _build(project: Path, target: Path) -> Build:
    proc = build_site(target, project=project)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"the build of a copy of the project failed:\n{log[-4000:]}"
    return _state(project, target, log)


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + line, encoding="utf-8")


@pytest.fixture(scope="session")
def rebuilds(built_site, tmp_path_factory) -> Rebuilds:
    """The builds above, made once per session, after the session's own build filled the caches."""
    tmp = tmp_path_factory.mktemp("rebuilds")
    project = copy_project(tmp / "project")
    labs = notebooks.find_labs(project / "docs", project / ".cache" / "labs")
    if any(not notebooks.is_fresh(lab, notebooks.cache_key(lab.source)) for lab in labs):
        _build(project, tmp / "catch-up")  # the checkout changed since the session's build
    before = _state(project, None, "")
    again = _build(project, tmp / "again")
    _append(project / "snippets" / "lessons" / "training.py", "\n# edited by a test\n")
    lesson_edited = _build(project, tmp / "lesson")
    _append(project / "snippets" / "culpa" / "tensor.py", "\n# edited by a test\n")
    culpa_edited = _build(project, tmp / "culpa")
    return Rebuilds(project, before, again, lesson_edited, culpa_edited)
