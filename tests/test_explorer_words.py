"""What the words around an explorer claim is what the explorer shows (issue 24), without a browser.

With JavaScript on, nearly every reader sees the explorer, not the static figure it wraps; so
- every explorer has its own caption, in both languages (snippets/sitebuild/strings/, [explorer-NAME]
  caption), and its words live there only: no page carries data-t-* attributes any more;
- no caption, and no prose sentence tied to an explorer, names a step number or count, a side (left/right,
  esquerda/direita) or a precision (float32/float64) that the explorer's exported data does not show. What
  the data shows: the step numbers its counter and its nodes carry (sitebuild/explorers/, "phase_n" of the
  backward steps, "n" for an explorer that counts one phase), the sides its drawing puts things on ("sides"),
  and the precisions it computes ("precisions").

The prose tied to an explorer is, in the page section that holds it (from the heading above it to the next
one), the paragraph just before it, the paragraph just after it, and every paragraph that speaks of the figure
("figura"/"figure"). A planted sentence ("17 passos", "float32" where there is none) fails naming the page.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from sitebuild import explorers, strings
from support.pages import ROOT

LANGS = ("pt", "en")
ROOT_DIV = re.compile(r'<div\b[^>]*\bdata-explorer="([^"]+)"[^>]*>')
HEADING = re.compile(r"^#{1,6} ", re.M)
STEP = {  # a step number, or a list of them, next to the word step
    "pt": re.compile(r"\bpassos?\s+((?:\d+(?:\s*(?:,|e|a|de)\s*(?=\d))?)+)|\b(\d+)\s+passos\b", re.I),
    "en": re.compile(r"\bsteps?\s+((?:\d+(?:\s*(?:,|and|to|of)\s*(?=\d))?)+)|\b(\d+)\s+steps\b", re.I),
}
SIDE = {
    "pt": re.compile(r"\b(esquerda|direita)\b", re.I),
    "en": re.compile(r"\b(?:on|to|at|from)\s+(?:the\s+|its\s+|their\s+)?(left|right)\b"
                     r"|\b(left|right)\s+(?:of|to|side)\b", re.I),
}
SIDES = {"esquerda": "left", "direita": "right", "left": "left", "right": "right"}
PRECISION = re.compile(r"\bfloat(?:16|32|64)\b")


@pytest.fixture(scope="module")
def data():
    return {name: explorers.module(name).export() for name in explorers.NAMES}


def shown(data: dict) -> dict:
    """What an explorer's exported data shows: step numbers, sides, precisions."""
    steps = data.get("steps", [])
    backward = [s for s in steps if s.get("phase") == "backward" and "phase_n" in s]
    numbers = {int(s["phase_n"]) for s in backward} if backward else {int(s["n"]) for s in steps}
    return {"steps": numbers, "sides": set(data.get("sides", {}).values()),
            "precisions": set(data.get("precisions", []))}


def caption(name: str, lang: str, data: dict) -> str:
    """The explorer's caption in `lang`, its {slots} filled as the script fills them (from the data)."""
    text = strings.of(lang)[f"explorer-{name}"]["caption"]
    values = {**data.get("caption", {}), "knob": data.get("knob_name", "")}
    fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
    missing = fields - {k for k, v in values.items() if v}
    assert not missing, f"[explorer-{name}] caption ({lang}): nothing in the data fills {sorted(missing)}"
    return text.format(**values)


def _paragraphs(text: str) -> list[str]:
    """The prose paragraphs of a piece of Markdown: code fences and HTML blocks left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text)]
    return [b for b in blocks if b and not b.startswith(("<", "!!!", "#"))]


def tied(text: str) -> list[tuple[str, str, str | None]]:
    """(explorer, paragraph, the static caption of a compact explorer or None) for every paragraph of prose
    tied to an explorer in a page's Markdown."""
    found = []
    for m in ROOT_DIV.finditer(text):
        name = m.group(1)
        end = text.index("</div>", m.end()) + len("</div>")
        headings = [h.start() for h in HEADING.finditer(text)]
        top = max([h for h in headings if h < m.start()], default=0)
        bottom = min([h for h in headings if h > end], default=len(text))
        before, after = _paragraphs(text[top:m.start()]), _paragraphs(text[end:bottom])
        paragraphs = before[-1:] + after[:1] + [p for p in before[:-1] + after[1:]
                                               if re.search(r"\bfigur[ae]\b", p, re.I)]
        block = text[m.start():end]
        static = re.search(r"<figcaption>(.*?)</figcaption>", block, re.S)
        compact = "data-compact" in m.group(0) and static
        found += [(name, p, None) for p in paragraphs]
        if compact:  # the home page's preview keeps its static caption on screen too
            found.append((name, re.sub(r"<[^>]+>", "", static.group(1)), "caption"))
    return found


def claims(lang: str, text: str, shows: dict) -> list[str]:
    """What `text` names that the explorer does not show, one line each."""
    problems = []
    for m in STEP[lang].finditer(text):
        named = {int(n) for n in re.findall(r"\d+", m.group(0))}
        if named - shows["steps"]:
            problems.append(f"{m.group(0)!r}: the explorer numbers its steps "
                            f"{sorted(shows['steps']) or 'not at all'}")
    for m in SIDE[lang].finditer(text):
        side = SIDES[(m.group(1) or m.group(2)).lower()]
        if side not in shows["sides"]:
            problems.append(f"{m.group(0)!r}: the explorer puts nothing on the {side} "
                            f"(its sides: {sorted(shows['sides']) or 'none'})")
    for m in PRECISION.finditer(text):
        if m.group(0) not in shows["precisions"]:
            problems.append(f"{m.group(0)!r}: the explorer computes in "
                            f"{sorted(shows['precisions']) or 'no named precision'}")
    return problems


def violations(path: Path, lang: str, text: str, data: dict) -> list[str]:
    where = path.relative_to(ROOT) if path.is_absolute() else path
    found = []
    for name, paragraph, _ in tied(text):
        for sentence in re.split(r"(?<=[.!?:])\s+(?=[A-ZÀ-Ý$])", paragraph):
            found += [f"{where} ({name}): {p} in {sentence[:90]!r}"
                      for p in claims(lang, sentence, shown(data[name]))]
    return found


def _pages():
    for lang in LANGS:
        for path in sorted((ROOT / "docs" / lang).glob("*.md")):
            text = path.read_text(encoding="utf-8")
            if ROOT_DIV.search(text):
                yield lang, path, text


def test_each_explorer_has_its_own_caption_in_both_languages(data):
    for name in explorers.NAMES:
        texts = {lang: caption(name, lang, data[name]) for lang in LANGS}
        for lang, text in texts.items():
            assert len(text) > 80, f"[explorer-{name}] caption ({lang}) is missing or too short: {text!r}"
        assert texts["pt"] != texts["en"], f"[explorer-{name}] caption is the same in pt and en"


@pytest.mark.parametrize("name", explorers.NAMES)
def test_every_word_an_explorers_script_reads_is_in_its_table_in_both_languages(name):
    """An explorer's script reads its words as t.KEY (its root's data-t-* attributes, from [explorer-NAME]):
    a key missing from the table leaves the page silent where it should speak (the worked example's graph
    was an unnamed group to a screen reader: t.label)."""
    script = (ROOT / "docs" / "assets" / "explorers" / f"{name}.js").read_text("utf-8")
    used = set(re.findall(r"\bt\.([A-Za-z]+)", script))
    assert used, f"{name}.js reads no words"
    for lang in LANGS:
        table = strings.of(lang)[f"explorer-{name}"]
        missing = sorted(key for key in used if key not in table)
        assert not missing, f"{name}.js reads {missing}, missing from [explorer-{name}] of {lang}.toml"


def test_the_explorers_words_live_in_the_strings_files_only():
    pages = [(lang, path) for lang, path, text in _pages() if "data-t-" in text]
    assert not pages, (f"explorer words in pages' data-t-* attributes: {pages}; they belong in "
                       "snippets/sitebuild/strings/<lang>.toml, [explorer-NAME]")


def test_no_caption_or_tied_sentence_claims_what_its_explorer_does_not_show(data):
    found = []
    for name in explorers.NAMES:
        for lang in LANGS:
            for sentence in re.split(r"(?<=[.!?:])\s+", caption(name, lang, data[name])):
                found += [f"snippets/sitebuild/strings/{lang}.toml [explorer-{name}] caption: {p}"
                          for p in claims(lang, sentence, shown(data[name]))]
    pages = list(_pages())
    assert len(pages) == 8, [str(p) for _, p, _ in pages]  # 03, 04, 08 and home, both languages
    for lang, path, text in pages:
        assert tied(text), f"{path}: no prose found around its explorer"
        found += violations(path, lang, text, data)
    assert not found, "\n".join(found)


PLANTS = [  # (page, language, a sentence planted in the paragraph before the explorer, what must be named)
    ("03-worked-example.md", "pt", "O explorador percorre 17 passos.", "'17 passos'"),
    ("03-worked-example.md", "en", "It says Step 10 of 17 at L.", "'Step 10 of 17'"),
    ("04-through-a-network.md", "pt", "Os gradientes ficam acima, em float32.", "'float32'"),
    ("08-honest-habits.md", "en", "The values sit to the left of each node in float16.", "'float16'"),
]


@pytest.mark.parametrize("page, lang, plant, named", PLANTS)
def test_a_planted_claim_fails_naming_the_page(data, page, lang, plant, named):
    path = ROOT / "docs" / lang / page
    text = path.read_text(encoding="utf-8")
    at = ROOT_DIV.search(text).start()
    planted = text[:at].rstrip("\n") + " " + plant + "\n\n" + text[at:]
    assert not violations(path, lang, text, data), "the page itself must be clean for this test"
    found = violations(path, lang, planted, data)
    assert found and all(str(Path("docs") / lang / page) in f for f in found), found
    assert any(named in f for f in found), found


def test_a_planted_caption_fails_naming_the_strings_file(data, monkeypatch):
    table = dict(strings.of("en")["explorer-worked-example"])
    table["caption"] += " Both columns are float32, 17 steps in all."
    monkeypatch.setitem(strings.of("en"), "explorer-worked-example", table)
    worked = data["worked-example"]
    found = claims("en", caption("worked-example", "en", worked), shown(worked))
    assert any("float32" in f for f in found) and any("17 steps" in f for f in found), found
