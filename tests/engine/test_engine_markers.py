"""Every snippet section marked in the engine is shown by a page, and every section a page includes exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "snippets" / "culpa"
MARKER = re.compile(r"--8<-- \[start:(\w+)\]")
INCLUDE = re.compile(r'--8<-- "culpa/([\w/]+\.py):(\w+)"')


def test_engine_markers_and_page_includes_match():
    marked = {(path.relative_to(ENGINE).as_posix(), name)
              for path in ENGINE.rglob("*.py") for name in MARKER.findall(path.read_text(encoding="utf-8"))}
    included = {match for page in (ROOT / "docs").rglob("*.md")
                for match in INCLUDE.findall(page.read_text(encoding="utf-8"))}
    assert marked - included == set(), "engine sections no page shows"
    assert included - marked == set(), "sections pages include that the engine does not mark"
