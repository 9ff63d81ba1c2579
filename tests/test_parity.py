"""pt and en are the same site in two languages: same pages, sections, code, figures, formulas, numbers.

Prose differs; everything a reader could compare across the language switch must not.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from support.pages import LANGS, canonical_math, load_page, mkdocs_config, page_files, prose_numbers

HEADING = re.compile(r"^(#{1,6})\s")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")
ADMONITION = re.compile(r"^\s*(!!!|\?\?\?\+?)\s+(\w+)")
INCLUDE = re.compile(r"--8<--\s+\"([^\"]+)\"")
PAGE_LINK = re.compile(r"\]\(([^)\s#]+\.(?:md|ipynb|py))(?:#[^)]*)?\)")
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$(?!\$)")


def structure(lang: str, rel: str) -> dict:
    page = load_page(lang, rel)
    prose = list(prose_numbers.prose_lines(page.text))
    display, inline, block, collecting = [], [], [], False
    for _, line, _ in prose:
        if line.strip().startswith("$$") or collecting:
            block.append(line.strip())
            if (line.strip().endswith("$$") and len(block) > 1) or line.strip().count("$$") == 2:
                display.append(canonical_math(" ".join(block), lang))
                block, collecting = [], False
            else:
                collecting = True
            continue
        inline += [canonical_math(f, lang) for f in INLINE_MATH.findall(re.sub(r"`[^`]*`", "", line))]
    return {
        "headings (levels, in order)": [len(m.group(1)) for _, l, _ in prose if (m := HEADING.match(l))],
        "code blocks (syntax)": [b.syntax for b in page.blocks],
        "Python code": [b.code for b in page.python_blocks],
        "expected outputs": [b.expected_output for b in page.blocks],
        "included snippets": INCLUDE.findall(page.text),
        "figures": IMAGE.findall(page.text),
        "display formulas (in order)": display,
        # inline math follows each language's sentence order: compare it as a multiset
        "inline formulas": Counter(inline),
        "admonitions": [m.group(2) for _, l, _ in prose if (m := ADMONITION.match(l))],
        "numbers tied to code": [(m.expr, m.fmt) for m in page.markers()],
        "links to pages": PAGE_LINK.findall(page.text),
    }


def test_every_page_exists_in_both_languages():
    pt, en = set(page_files("pt")), set(page_files("en"))
    assert pt == en, f"pages only in pt: {sorted(pt - en)}; pages only in en: {sorted(en - pt)}"


@pytest.mark.parametrize("rel", page_files("pt"))
def test_pages_match_across_languages(rel):
    if rel not in page_files("en"):
        pytest.fail(f"docs/pt/{rel} has no English version docs/en/{rel}")
    pt, en = structure("pt", rel), structure("en", rel)
    for key in pt:
        if pt[key] == en[key]:
            continue
        if isinstance(pt[key], Counter):
            detail = f"only in pt: {dict(pt[key] - en[key])}\n  only in en: {dict(en[key] - pt[key])}"
        else:
            first = next(
                (i for i, (a, b) in enumerate(zip(pt[key], en[key], strict=False)) if a != b),
                min(len(pt[key]), len(en[key])),
            )
            detail = (
                f"pt has {len(pt[key])}, en has {len(en[key])}; first difference at item {first + 1}:\n"
                f"  pt: {pt[key][first] if first < len(pt[key]) else '(none)'!r}\n"
                f"  en: {en[key][first] if first < len(en[key]) else '(none)'!r}"
            )
        pytest.fail(f"docs/pt/{rel} and docs/en/{rel} differ in their {key}: {detail}")


def _nav_titles(nav) -> list[str]:
    titles = []
    for item in nav:
        if isinstance(item, dict):
            for title, value in item.items():
                titles.append(title)
                if isinstance(value, list):
                    titles += _nav_titles(value)
    return titles


def test_every_navigation_title_is_translated():
    config = mkdocs_config()
    i18n = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    for language in i18n["languages"]:
        if language.get("default"):
            continue
        translations = language.get("nav_translations") or {}
        missing = [t for t in _nav_titles(config["nav"]) if t not in translations]
        assert not missing, f"navigation titles with no '{language['locale']}' translation: {missing}"
        same = [t for t, v in translations.items() if t == v]
        assert not same, f"navigation titles 'translated' to themselves in '{language['locale']}': {same}"


def test_languages_are_the_ones_the_site_declares():
    config = mkdocs_config()
    i18n = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    assert [lang["locale"] for lang in i18n["languages"]] == list(LANGS)
