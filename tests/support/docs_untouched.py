"""Nothing the suite runs writes into docs/ (issue #23: what pages include apart from what builds the site).

A pytest plugin (tests/conftest.py): it lists docs/'s files when the session starts and again when it ends,
and a file that appeared in between (bytecode of a module a test imported from docs/, a figure or an
explorer's data written beside the pages) fails the run, named, even when every test passed.
"""

from __future__ import annotations

from pathlib import Path

from sitebuild.project import ROOT

DOCS = ROOT / "docs"
_before: set[str] = set()


def files_in(folder: Path) -> set[str]:
    return {path.relative_to(ROOT).as_posix() for path in folder.rglob("*") if path.is_file()}


def pytest_sessionstart(session):
    _before.update(files_in(DOCS))


def pytest_sessionfinish(session):
    new = sorted(files_in(DOCS) - _before)
    if not new:
        return
    session.config.pluginmanager.get_plugin("terminalreporter").write(
        "\n\nthe tests wrote into docs/, which holds only what the pages include (write into a temporary "
        "folder, or set sys.dont_write_bytecode when importing from docs/):\n  " + "\n  ".join(new) + "\n",
        red=True)
    if session.exitstatus == 0:
        session.exitstatus = 1
