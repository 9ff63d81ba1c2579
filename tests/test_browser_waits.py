"""The browser tests wait without making the page draw: every wait goes through visiting.wait_until.

Playwright's `wait_for_function` asks its question on every animation frame unless told otherwise, and an
idle page then draws 60 frames a second for as long as the wait lasts (what that costs: visiting.POLL_MS).
`visiting.wait_until` asks every POLL_MS; a call of `wait_for_function` anywhere else in the tests fails
here, naming the file and line. The benchmarks keep Playwright's default on purpose: they time to the frame.
"""

from __future__ import annotations

import re
from pathlib import Path

from support.pages import ROOT

CALL = re.compile(r"\.wait_for_function\(")
ALLOWED = {("tests/browser/visiting.py", "def wait_until")}  # the one place that calls it, with polling


def frame_waits(path: Path, text: str) -> list[str]:
    """Each `.wait_for_function(` outside visiting.wait_until, as 'file:line: code'."""
    rel = path.relative_to(ROOT).as_posix() if path.is_absolute() else path.as_posix()
    found, inside = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("def ") or line.startswith("async def "):
            inside = line.split("(", 1)[0].replace("async ", "")
        if CALL.search(line) and (rel, inside) not in ALLOWED:
            found.append(f"{rel}:{number}: {line.strip()}")
    return found


def test_every_browser_wait_asks_on_a_timer_not_on_every_frame():
    files = [p for folder in ("browser", "support") for p in sorted((ROOT / "tests" / folder).glob("*.py"))]
    assert len(files) > 10
    found = [hit for path in files for hit in frame_waits(path, path.read_text(encoding="utf-8"))]
    assert not found, "waits that make the page draw every frame (use visiting.wait_until):\n" + "\n".join(
        found)


def test_the_rule_sees_what_it_forbids():
    planted = 'def helper(tab):\n    tab.wait_for_function("() => true")\n'
    assert frame_waits(Path("tests/browser/test_x.py"), planted) == [
        'tests/browser/test_x.py:2: tab.wait_for_function("() => true")']
    helper = 'def wait_until(page, p):\n    return page.wait_for_function(p, polling=50)\n'
    assert frame_waits(Path("tests/browser/visiting.py"), helper) == []
    assert frame_waits(Path("tests/browser/other.py"), helper) != []
