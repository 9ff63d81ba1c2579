"""The project's Python finds its modules by name: no file loads another by its path, nobody edits sys.path.

The build is an importable package (`sitebuild`, made importable by `pip install -e`), the engine another
(`culpa`); a test imports them by name. What once made the build hard to follow (hooks that executed each
other's files, `sys.path.insert(0, "snippets")` in several places) fails here, naming the file and line.
Scripts run as a reader runs them (`runpy.run_path` of a lesson in a fresh folder) and a module looked up by
name in a folder (`PathFinder.find_spec(name, [folder])`: the page's matplotlib stand-in, two versions of
culpa side by side in tests/bench/engine_ab.py) are not loads by path. Vendored files are not ours.
"""

from __future__ import annotations

import re
from pathlib import Path

from support.pages import ROOT

FORBIDDEN = {
    "loads a file by its path": re.compile(r"\bspec_from_file_location\b|\bSourceFileLoader\b"),
    "edits sys.path": re.compile(r"\bsys\.path\.(insert|append|extend)\b|\bsys\.path\s*(\+=|=)"),
}
FOLDERS = ("snippets", "tests", ".ci", ".github")
VENDORED = ("vendor",)


def offences(text: str) -> list[tuple[int, str, str]]:
    return [
        (number, what, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        for what, pattern in FORBIDDEN.items()
        if pattern.search(line)
    ]


def test_no_module_is_loaded_by_its_path_and_sys_path_is_left_alone():
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.resolve() == Path(__file__).resolve():  # this file names what it forbids
                continue
            if VENDORED[0] in path.relative_to(ROOT).parts or "__pycache__" in path.parts:
                continue
            found += [f"{path.relative_to(ROOT)}:{n}: {what}: {line}"
                      for n, what, line in offences(path.read_text(encoding="utf-8"))]
    assert not found, "import modules by name (pip install -e makes sitebuild and culpa importable):\n" + (
        "\n".join(found)
    )


def test_the_rule_sees_what_it_forbids():
    planted = [
        "spec = importlib.util.spec_from_file_location('wheel', HOOKS / 'wheel.py')",
        "sys.path.insert(0, 'snippets')",
        "sys.path.append(str(ROOT))",
        "sys.path += ['snippets']",
    ]
    assert [len(offences(line)) for line in planted] == [1, 1, 1, 1]
    allowed = [
        "spec = importlib.machinery.PathFinder.find_spec('pyplot', [folder])",
        "return runpy.run_path(str(script), run_name='__main__')",
        "print(sys.path)",
    ]
    assert [offences(line) for line in allowed] == [[], [], []]
