"""Reading the site's pages the way the build does: snippets expanded, code blocks found, markers parsed.

Code blocks are found by pytest-codeblocks' own parser, so its marker language (expected-output,
pytest.mark.skip, importorskip) means on our pages what it means everywhere else.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import markdown
import yaml
from pytest_codeblocks.main import extract_from_buffer

from sitebuild.project import LANGS, ROOT
from sitebuild.steps import prose_numbers

DOCS = ROOT / "docs"
__all__ = ["DOCS", "LANGS", "ROOT", "prose_numbers"]  # tests import these from here

PYTHONISH_INFO = re.compile(r"^(py|python|python3|py3|pycon|ipython)\b", re.IGNORECASE)
FENCE_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<info>.*)$")


class _IgnoreTags(yaml.SafeLoader):
    pass


_IgnoreTags.add_multi_constructor("!", lambda loader, suffix, node: None)
_IgnoreTags.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


@cache
def mkdocs_config() -> dict:
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_IgnoreTags)


def _extension_config(name: str) -> dict:
    for ext in mkdocs_config()["markdown_extensions"]:
        if isinstance(ext, dict) and name in ext:
            return ext[name] or {}
    raise KeyError(f"mkdocs.yml has no markdown extension {name}")


def snippets_config() -> dict:
    """pymdownx.snippets' configuration in mkdocs.yml (base paths relative to the repository)."""
    return dict(_extension_config("pymdownx.snippets"))


def expand_snippets(text: str) -> str:
    """Expand `--8<--` includes exactly as the site's pymdownx.snippets configuration does."""
    config = snippets_config()
    config["base_path"] = [str(ROOT / p) for p in config.get("base_path", ["."])]
    md = markdown.Markdown(extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": config})
    return "\n".join(md.preprocessors["snippet"].run(text.splitlines())) + "\n"


def split_front_matter(text: str) -> tuple[dict, str, int]:
    """Return (front matter, body, number of lines the front matter took)."""
    if text.startswith("---\n"):
        end = text.index("\n---\n", 4)
        meta = yaml.safe_load(text[4:end]) or {}
        offset = text[: end + 5].count("\n")
        return meta, text[end + 5 :], offset
    return {}, text, 0


@dataclass
class Block:
    line: int  # line of the opening fence in the page's source
    syntax: str
    code: str  # with snippets expanded: what the reader sees and copies
    source: str  # as written in the page (may hold a --8<-- include)
    expected_output: str | None
    marks: list[str] = field(default_factory=list)


@dataclass
class Page:
    lang: str
    rel: str  # e.g. "03-worked-example.md"
    path: Path
    text: str
    meta: dict
    blocks: list[Block]

    @property
    def id(self) -> str:
        return f"{self.lang}/{self.rel}"

    @property
    def name(self) -> str:
        return f"docs/{self.lang}/{self.rel}"

    @property
    def python_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.syntax == "python"]

    def markers(self):
        return prose_numbers.parse_markers(self.text)


def page_files(lang: str) -> list[str]:
    """The lesson pages of a language; the labs (docs/<lang>/labs/, notebooks) are tests/test_labs.py's."""
    base = DOCS / lang
    pages = (p.relative_to(base).as_posix() for p in base.rglob("*.md"))
    return sorted(rel for rel in pages if not rel.startswith("labs/"))


def load_page(lang: str, rel: str, text: str | None = None) -> Page:
    """A page of docs/<lang>/, read from its file, or from `text`: its Markdown as a build step left it."""
    path = DOCS / lang / rel
    text = path.read_text(encoding="utf-8") if text is None else text
    meta, _, _ = split_front_matter(text)
    raw = extract_from_buffer(io.StringIO(text))
    expanded = extract_from_buffer(io.StringIO(expand_snippets(text)))
    if len(raw) != len(expanded):
        raise AssertionError(f"{path}: an included snippet adds or removes a code fence")
    blocks = [
        Block(
            line=r.lineno,
            syntax=r.syntax or "",
            code=e.code,
            source=r.code,
            expected_output=e.expected_output,
            marks=list(r.marks),
        )
        for r, e in zip(raw, expanded, strict=True)
    ]
    return Page(lang=lang, rel=rel, path=path, text=text, meta=meta, blocks=blocks)


def as_shown(page: Page) -> Page:
    """The page as the build shows it to its readers: culpa's listings in the page's language (pt: their
    comments and docstrings translated, sitebuild/steps/culpa_listings.py); other pages as they are."""
    from sitebuild.steps import culpa_listings

    expand = culpa_listings.snippets_expander(snippets_config(), ROOT)
    text = culpa_listings.in_language(page.text, page.lang, f"docs/{page.lang}/{page.rel}", expand)
    return page if text == page.text else load_page(page.lang, page.rel, text)


def all_pages() -> list[Page]:
    return [load_page(lang, rel) for lang in LANGS for rel in page_files(lang)]


def fences(text: str):
    """Yield (line, info) for every opening code fence of a Markdown text."""
    fence = None
    for number, line in enumerate(text.splitlines(), start=1):
        m = FENCE_OPEN.match(line)
        if fence is None and m:
            fence = m.group("fence")
            yield number, m.group("info").strip()
        elif fence is not None and line.strip().startswith(fence) and not line.strip().strip(fence[0]):
            fence = None


def canonical_math(tex: str, lang: str) -> str:
    r"""A formula in the form both languages share, to compare pt with en: pt writes the decimal comma
    `0{,}659`, `;` between components and a thin space `17\,408` between thousands; en writes `0.659`, `,`
    and `17{,}408` (sitebuild/steps/prose_numbers.py formats number markers inside math the same way)."""
    if lang == "pt":
        tex = re.sub(r"(?<=\d)\\,(?=\d)", ",", tex)
        tex = re.sub(r"(?<=[\d}]);", ",", tex.replace("{,}", "."))
    else:
        tex = tex.replace("{,}", ",")
    return tex


SKIP_REASON = re.compile(r"""pytest\.mark\.skip\(\s*reason\s*=\s*(["'])(?P<reason>.+?)\1\s*\)""")


# Pages whose code runs for tens of seconds in a fresh interpreter (measured 2026-12-02 on the 2-core machine
# under load: 07 26-66 s, 09 6-22 s a language): their runs are in the `slow` lane.
SLOW_PAGES = ("07-memory.md", "09-training.md")


def run_params(pages: list[Page]) -> list:
    """`pages` as pytest parameters for a test that runs each page's code, the slow ones marked slow."""
    import pytest

    return [pytest.param(p, id=p.id, marks=[pytest.mark.slow] if p.rel in SLOW_PAGES else []) for p in pages]



_RUNS: dict[tuple[str, str], object] = {}


def run_once(runner: Path, payload: str, same: str, where: Path, name: str, ok):
    """What `python -I runner PAYLOAD RESULT` writes to RESULT (JSON) for `payload`, run in a fresh
    interpreter in an empty folder under `where` with only the project installed (no PYTHONPATH, matplotlib
    drawing off screen). Shared by every page whose code to run, `same`, is the same: a page's two
    languages include the same lesson files, so a Portuguese page and its translation run the very same
    code, which prints the same. A result that `ok` rejects (the code failed) is not shared: each page then
    runs its own, and its failure names it (`name`, as a crash of the runner does)."""
    import json
    import os
    import subprocess
    import sys

    key = (str(runner), same)
    if key in _RUNS:
        return _RUNS[key]
    work = where / "reader"
    work.mkdir()
    (where / "payload.json").write_text(payload, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLBACKEND"] = "Agg"
    files = [str(where / "payload.json"), str(where / "result.json")]
    proc = subprocess.run([sys.executable, "-I", str(runner), *files], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"{name}: the runner {runner.name} crashed:\n{proc.stderr}"
    result = json.loads((where / "result.json").read_text(encoding="utf-8"))
    if ok(result):
        _RUNS[key] = result
    return result
