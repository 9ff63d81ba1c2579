"""culpa's listings reach a pt reader in Portuguese: the same code as en, comments and docstrings translated
(sitebuild/steps/culpa_listings.py, with its table snippets/sitebuild/strings/culpa.pt.toml).

The first tests read the pages and the table without a build (seconds): every comment and docstring of
every culpa section a pt page includes has a translation, and the table holds nothing no page shows; the
listings the step makes are the en listings' code line for line, with pt comments, and fit in 80
characters; a comment planted in culpa fails, naming the page, the section and the line. The last test
reads the session's build: the pt page, its Run blocks and its .py carry the translated listings.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from sitebuild.steps import culpa_listings
from support.pages import DOCS, ROOT, load_page, snippets_config

PT_TABLE = culpa_listings.table_path("pt")
RUN_CONFIG = re.compile(r'<script type="application/json" id="run-config">(.*?)</script>', re.S)
WIDTH = 80  # tests/test_content_rules.py, rule (f)


def _expand(root=ROOT):
    return culpa_listings.snippets_expander(snippets_config(), root)


def pages_with_culpa(lang: str = "pt") -> list[str]:
    """The pages of `lang` (labs included) that include a section of culpa's source."""
    base = DOCS / lang
    return sorted(
        p.relative_to(base).as_posix()
        for p in base.rglob("*.md")
        if culpa_listings.INCLUDE.search(p.read_text(encoding="utf-8"))
    )


def translated(rel: str, lang: str = "pt") -> str:
    """The page's Markdown as the build hands it to pymdownx.snippets: culpa's listings translated."""
    text = (DOCS / lang / rel).read_text(encoding="utf-8")
    return culpa_listings.in_language(text, lang, f"docs/{lang}/{rel}", _expand())


def code_lines(code: str) -> list[str]:
    """A listing's lines with its comments cut off (what precedes them kept as it is, spaces included) and
    each docstring as one mark: its code, line by line."""
    lines = code.split("\n")
    for prose in reversed(culpa_listings.prose_of(code)):
        (row, col), (end_row, end_col) = prose.start, prose.end
        if prose.kind == "comment":
            lines[row - 1] = lines[row - 1][:col]
        else:
            lines[row - 1 : end_row] = [lines[row - 1][:col] + "<docstring>" + lines[end_row - 1][end_col:]]
    return lines


def culpa_blocks(rel: str, lang: str, text: str | None = None) -> list[tuple]:
    """(block, its include line, its line in the page) for each Python block of the page that includes
    culpa's source: as the page's file has it, or as `text` (the page's Markdown after the step, where the
    includes are gone) has the same block."""
    written = load_page(lang, rel).python_blocks
    blocks = written if text is None else load_page(lang, rel, text).python_blocks
    assert len(blocks) == len(written)
    return [(b, w.source.strip(), w.line) for b, w in zip(blocks, written, strict=True)
            if culpa_listings.INCLUDE.search(w.source)]


def test_pt_pages_include_culpa_and_en_pages_are_left_alone():
    rels = pages_with_culpa("pt")
    assert "06-inside-culpa.md" in rels
    assert pages_with_culpa("en") == rels
    assert not culpa_listings.table_path("en").exists()  # en shows culpa as it is written
    text = (DOCS / "en" / rels[0]).read_text(encoding="utf-8")
    assert culpa_listings.in_language(text, "en", f"docs/en/{rels[0]}", _expand()) == text


@pytest.mark.parametrize("rel", pages_with_culpa("pt"))
def test_every_comment_and_docstring_a_pt_page_shows_from_culpa_is_translated(rel):
    try:
        translated(rel)
        return
    except culpa_listings.ListingError as error:
        message = str(error)
    pytest.fail(message, pytrace=False)


def test_the_table_translates_only_what_a_pt_page_shows():
    shown = {"comment": set(), "docstring": set()}
    expand = _expand()
    for rel in pages_with_culpa("pt"):
        for m in culpa_listings.INCLUDE.finditer((DOCS / "pt" / rel).read_text(encoding="utf-8")):
            for prose in culpa_listings.prose_of("\n".join(expand(m.group(0).strip()))):
                shown[prose.kind].add(prose.text)
    table = culpa_listings.load_table(PT_TABLE)
    stale = sorted(set(table["comments"]) - shown["comment"])
    stale += sorted(set(table["docstrings"]) - shown["docstring"])
    assert not stale, (
        f"{PT_TABLE.relative_to(ROOT)} translates what no pt page shows from culpa any more (culpa changed "
        f"it, or the page no longer includes it): remove these entries: {stale}"
    )
    kept = [en for kind in table.values() for en, pt in kind.items() if en == pt and "=" not in en]
    assert not kept, f"left as they are in {PT_TABLE.name}, but not formulas (no `=`): translate {kept}"


@pytest.mark.parametrize("rel", pages_with_culpa("pt"))
def test_the_pt_listing_is_the_en_code_with_the_translated_comments(rel):
    table = culpa_listings.load_table(PT_TABLE)
    translations = set(table["comments"].values()) | set(table["docstrings"].values())
    english = {en for kind in table.values() for en, pt in kind.items() if en != pt}
    pt, en = culpa_blocks(rel, "pt", translated(rel)), culpa_blocks(rel, "en")
    assert len(pt) == len(en) > 0
    for (p, include, line), (e, *_) in zip(pt, en, strict=True):
        where = f"docs/pt/{rel}, line {line}: {include}"
        assert code_lines(p.code) == code_lines(e.code), f"{where}: its code is not en's"
        for prose in culpa_listings.prose_of(p.code):
            assert prose.text in translations and prose.text not in english, (
                f"{where}: {prose.kind} {prose.text!r} is not the table's Portuguese"
            )
        wide = [line for line in p.code.splitlines() if len(line.rstrip()) > WIDTH]
        assert not wide, (
            f"{where}: translated lines wider than {WIDTH} characters (shorten them in "
            f"{PT_TABLE.name}): {wide}"
        )


def test_a_comment_culpa_gains_fails_naming_the_page_the_section_and_the_line(tmp_path):
    (tmp_path / "snippets").mkdir()
    shutil.copytree(ROOT / "snippets" / "culpa", tmp_path / "snippets" / "culpa")
    source = tmp_path / "snippets" / "culpa" / "tensor.py"
    planted = "        out = broadcasting(np.multiply, A, B, \"mul\")  # planted: the elementwise product"
    text = source.read_text(encoding="utf-8")
    assert text.count('        out = broadcasting(np.multiply, A, B, "mul")\n') == 1
    source.write_text(text.replace('        out = broadcasting(np.multiply, A, B, "mul")', planted), "utf-8")
    page = (DOCS / "pt" / "06-inside-culpa.md").read_text(encoding="utf-8")
    with pytest.raises(culpa_listings.ListingError) as failed:
        culpa_listings.in_language(page, "pt", "docs/pt/06-inside-culpa.md", _expand(tmp_path))
    message = str(failed.value)
    assert "docs/pt/06-inside-culpa.md shows culpa/tensor.py:op_mul" in message
    assert planted.strip() in message and "planted: the elementwise product" in message
    assert "culpa/tensor.py:op_tanh" not in message  # only what lacks a translation is named


def test_a_translation_that_would_change_the_code_fails():
    table = {"comments": {}, "docstrings": {"Doc.": 'Doc."""; x = 1; """'}}
    with pytest.raises(culpa_listings.ListingError, match="not culpa's code any more"):
        culpa_listings.translate('def f():\n    """Doc."""\n    return 1', table, "a listing")


def test_comments_and_docstrings_are_found_and_replaced_in_place():
    code = (
        "def f(a):\n"
        '    """Two lines\n'
        '    of doc."""\n'
        "    s = '# not a comment'  # a comment\n"
        "    # a line of its own\n"
        "    return s\n"
    )
    found = culpa_listings.prose_of(code)
    assert [(p.kind, p.text) for p in found] == [
        ("docstring", "Two lines\nof doc."), ("comment", "a comment"), ("comment", "a line of its own"),
    ]
    table = {"comments": {"a comment": "um comentário", "a line of its own": "uma linha só dele"},
             "docstrings": {"Two lines\nof doc.": "Três\nlinhas\nde doc."}}
    out, missing = culpa_listings.translate(code, table, "a listing")
    assert not missing
    assert out == (
        "def f(a):\n"
        '    """Três\n'
        "    linhas\n"
        '    de doc."""\n'
        "    s = '# not a comment'  # um comentário\n"
        "    # uma linha só dele\n"
        "    return s\n"
    )


def test_the_built_pt_page_runs_and_offers_the_translated_listings(built_site):
    table = culpa_listings.load_table(PT_TABLE)
    pt_html = (built_site / "06-inside-culpa" / "index.html").read_text(encoding="utf-8")
    en_html = (built_site / "en" / "06-inside-culpa" / "index.html").read_text(encoding="utf-8")
    pt, en = (json.loads(RUN_CONFIG.search(h).group(1))["blocks"] for h in (pt_html, en_html))
    assert len(pt) == len(en)
    for k, (p, e) in enumerate(zip(pt, en, strict=True)):
        assert code_lines(p["code"]) == code_lines(e["code"]), f"block {k}: pt's code is not en's"
    shown = {prose.text for block in pt for prose in culpa_listings.prose_of(block["code"])}
    for en_text, pt_text in [*table["comments"].items(), *table["docstrings"].items()]:
        assert pt_text in shown, f"the built pt page does not show {pt_text!r}"
        assert en_text == pt_text or en_text not in shown, f"the built pt page still shows {en_text!r}"
    script = (built_site / "06-inside-culpa" / "06-inside-culpa.py").read_text(encoding="utf-8")
    assert "# o próprio array do tensor" in script and "the tensor's own array" not in script
