"""Every file of the project that a comment, a docstring or a document names is there.

When the build moved from docs/hooks/ into the `sitebuild` package, comments in the stylesheets, the
vendoring notes and a lesson's docstring went on naming the old files: a maintainer who follows such a
pointer finds nothing. Here every path written in the project's own text files that starts with one of its
folders (docs/, snippets/, tests/) or with a package's folder as the code names it (sitebuild/, lessons/,
culpa/, assets/) must name a file or folder that exists; a miss fails naming the path and the files that
write it. Vendored files are not ours, nor this file (its example names a moved path). A few paths are
examples or files made on purpose by a test: each is listed below with its reason.
"""

from __future__ import annotations

import re
from pathlib import Path

from support import project_files
from support.pages import ROOT

NAMED = re.compile(
    r"(?<![\w/.-])((?:docs|snippets|tests|sitebuild|lessons|culpa|assets)/[\w/.-]*\w"
    r"\.(?:py|json|js|css|md|toml|sh|yml))(?![\w-])"
)
# a path that a folder of the project's is written relative to: snippets/ for the packages, docs/ for assets/
BASES = ("", "snippets", "snippets/sitebuild", "docs")
TEXTS = {".py", ".js", ".css", ".md", ".toml", ".sh", ".yml", ".html"}
NOT_FILES = {  # path -> why it is written and absent
    "docs/pt/NN-name.md": "CONTRIBUTING.md's recipe for a new page: a placeholder",
    "docs/en/NN-name.md": "CONTRIBUTING.md's recipe for a new page: a placeholder",
    "snippets/lessons/name.py": "CONTRIBUTING.md's recipe for a new lesson: a placeholder",
    "lessons/name.py": "CONTRIBUTING.md's recipe for a new lesson: a placeholder",
    "snippets/lessons/x.py": "a docstring's example of a lesson named in INPUTS",
    "docs/pt/broken.md": "test_content_rules.py writes it into a copy of the project",
    "snippets/sitebuild/figures/broken_on_purpose.py": "test_figures.py writes it into a copy",
    "tests/browser/other.py": "test_browser_waits.py's example of a file that breaks the rule",
    "tests/browser/test_x.py": "test_browser_waits.py's example of a file that breaks the rule",
    "assets/math.js": "test_budgets.py checks that no page loads a math script",
    "docs/throttling.md": "Lighthouse's own documentation, not this project's",
    "assets/explorers/py/manifest.json": "the build writes it into the site (sitebuild/steps/explorers.py)",
    "assets/run/keep-words.json": "the build writes it into the site (sitebuild/steps/keep.py)",
}


def own_text_files() -> list[Path]:
    here = Path(__file__).resolve()
    return [path for path in project_files.own_text_files(TEXTS) if path.resolve() != here]


def named_but_absent(text: str) -> list[str]:
    """The paths `text` names that are neither in the project nor excused in NOT_FILES."""
    return [named for named in (m.group(1) for m in NAMED.finditer(text))
            if named not in NOT_FILES and not any((ROOT / base / named).exists() for base in BASES)]


def test_every_path_the_project_names_exists():
    absent: dict[str, set[str]] = {}
    for file in own_text_files():
        for named in named_but_absent(file.read_text(encoding="utf-8", errors="replace")):
            absent.setdefault(named, set()).add(str(file.relative_to(ROOT)))
    assert not absent, "named but not in the project (moved or renamed?):\n" + "\n".join(
        f"  {named}  (in {', '.join(sorted(files))})" for named, files in sorted(absent.items()))


def test_the_placeholders_are_still_written_and_still_absent():
    """An entry of NOT_FILES that nothing names any more, or that now exists, is a stale excuse."""
    text = "\n".join(f.read_text(encoding="utf-8", errors="replace") for f in own_text_files())
    stale = [named for named in NOT_FILES
             if named not in text or any((ROOT / base / named).exists() for base in BASES)]
    assert not stale, f"NOT_FILES lists paths nothing names or that exist: {stale}"


def test_a_moved_file_named_in_a_comment_is_caught():
    comment = "/* the class comes from docs/hooks/offscreen.py, now sitebuild/steps/offscreen.py */"
    assert named_but_absent(comment) == ["docs/hooks/offscreen.py"]
    assert named_but_absent("served as assets/run/keep-words.json, see snippets/culpa/tensor.py") == []
