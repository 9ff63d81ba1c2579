"""The project's Python finds its modules by name: no file loads another by its path, nobody edits sys.path.

The build is an importable package (`sitebuild`, made importable by `pip install -e`), the engine another
(`culpa`); a test imports them by name. What once made the build hard to follow (hooks that executed each
other's files, `sys.path.insert(0, "snippets")` in several places) fails here, naming the file and line.
Scripts run as a reader runs them (`runpy.run_path` of a lesson in a fresh folder) and a module looked up by
name in a folder (`PathFinder.find_spec(name, [folder])`: the page's matplotlib stand-in, two versions of
culpa side by side in tests/bench/engine_ab.py) are not loads by path. Vendored files are not ours; every
other text file of the project is read (Python also lives in the worker's strings, the pages and the CI).
"""

from __future__ import annotations

import re
from pathlib import Path

from support.pages import ROOT
from support.project_files import own_text_files

START = r"(?:\b|(?<=\\n))"  # a word's start, or right after a "\n" written in a string of code (worker.js)
FORBIDDEN = {
    "loads a file by its path": re.compile(rf"{START}(?:spec_from_file_location|SourceFileLoader)\b"),
    "edits sys.path": re.compile(rf"{START}sys\.path\.(insert|append|extend)\b|{START}sys\.path\s*(\+=|=)"),
}
# Python is written in more than .py files: the page's worker runs Python it carries as strings (worker.js),
# the pages and the README show it, the CI scripts call it ("": .ci/run).
TEXTS = {".py", ".js", ".html", ".md", ".yml", ".toml", ".txt", ""}


def project_texts() -> list[Path]:
    """The project's own text files (support.project_files: tracked, vendored files aside), but this one,
    which names what it forbids."""
    return [path for path in own_text_files(TEXTS) if path.resolve() != Path(__file__).resolve()]


def offences(text: str) -> list[tuple[int, str, str]]:
    return [
        (number, what, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        for what, pattern in FORBIDDEN.items()
        if pattern.search(line)
    ]


def test_no_module_is_loaded_by_its_path_and_sys_path_is_left_alone():
    found = []
    for path in project_texts():
        found += [f"{path.relative_to(ROOT)}:{n}: {what}: {line}"
                  for n, what, line in offences(path.read_text(encoding="utf-8"))]
    assert not found, "import modules by name (pip install -e makes sitebuild and culpa importable):\n" + (
        "\n".join(found)
    )


def test_the_rule_reads_every_kind_of_file_that_carries_python():
    names = {path.relative_to(ROOT).as_posix() for path in project_texts()}
    for wanted in ("docs/assets/run/worker.js", "snippets/sitebuild/plugin.py", ".ci/run", "README.md",
                   ".github/workflows/pages.yml", "docs/assets/run/matplotlib/pyplot.py"):
        assert wanted in names, f"{wanted} is not read by the rule"
    assert not [name for name in names if "vendor" in name.split("/")], "vendored files are not ours"


def test_the_rule_sees_what_it_forbids():
    planted = [
        "spec = importlib.util.spec_from_file_location('wheel', HOOKS / 'wheel.py')",
        "sys.path.insert(0, 'snippets')",
        "sys.path.append(str(ROOT))",
        "sys.path += ['snippets']",
        """pyodide.runPython('import sys\\nsys.path.insert(0, "/standin")\\nimport matplotlib');""",
    ]
    assert [len(offences(line)) for line in planted] == [1, 1, 1, 1, 1]
    allowed = [
        "spec = importlib.machinery.PathFinder.find_spec('pyplot', [folder])",
        "return runpy.run_path(str(script), run_name='__main__')",
        "print(sys.path)",
    ]
    assert [offences(line) for line in allowed] == [[], [], []]
