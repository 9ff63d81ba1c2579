"""Rules of the writing that a reader would notice broken, checked on every page, lab, snippet and README.

(a) No reference to a course that is not on the site ("lição 2.4", "lesson 5.10", "the source lesson",
    "from the seed"): the site is self-contained and links its own pages by title.
(b) No placeholder left for later (`<repository-url>`, `<...-url>`, TODO, FIXME, XXX).
(c) In pt math, numbers are written the pt way: decimal comma `0{,}659`, `;` between components
    (number markers are checked after the build would have replaced them by their literal).
(d) Printed output never groups thousands with commas (`27,000,000,001` reads as a decimal in pt, and code
    and its output are the same in both languages): `f"{n:_}"` or plain digits.
(e) Every figure is introduced by the prose: the paragraph right before or right after it says
    "figura" (pt) or "figure" (en).
(f) No listing is wider than 80 characters (includes expanded, output blocks and lab code cells too), so
    nothing scrolls sideways.
(g) No wording a native reader stumbled on comes back: in pt, "pôr preço", "Tocar os passos", "escalar" for
    scaling by a factor ("escale", "escalada pela"), "Atenção," opening a sentence; in pt and en, a page
    number a reader cannot follow ("página 01", "page 03's"); in en, "dearer" and "this chapter does not
    cover" (said once, on the first page, in other words).

Each failure names the file, the line and the rule. The `test_rule_*_catches_*` tests break each rule on
purpose on a small made-up page and check that its checker reports it, so no rule can pass by checking
nothing.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import jupytext
import pytest

from support.pages import DOCS, LANGS, ROOT, all_pages, prose_numbers

SNIPPETS = ROOT / "snippets"
STRINGS = SNIPPETS / "sitebuild" / "strings"  # the words the build shows, the explorers' included
VENDOR = DOCS / "assets" / "vendor"
TEXT_SUFFIXES = {".md", ".py", ".js", ".css", ".html", ".yml", ".yaml", ".txt"}
WIDTH = 80


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    detail: str

    def __str__(self) -> str:
        return f"{self.path}, line {self.line}: {self.detail}"


def report(rule: str, violations: list[Violation], fix: str) -> str:
    shown = "\n  ".join(str(v) for v in violations)
    return f"rule {rule} broken {len(violations)} time(s):\n  {shown}\n{fix}"


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def text_files(*roots: Path) -> list[Path]:
    files = []
    for root in roots:
        if root.is_file():
            files.append(root)
            continue
        for path in sorted(root.rglob("*")):
            if (
                path.is_file()
                and path.suffix in TEXT_SUFFIXES
                and VENDOR not in path.parents
                and "__pycache__" not in path.parts
            ):
                files.append(path)
    return files


def lab_files(lang: str | None = None) -> list[Path]:
    return sorted(p for lg in ([lang] if lang else LANGS) for p in (DOCS / lg / "labs").glob("*.md"))


# ---- (a) references to a course that is not on the site -----------------------------------------------

LESSON_REFERENCE = re.compile(
    r"\b(?:li[cç](?:[aã]o|[oõ]es)|lessons?|aulas?|m[oó]dulos?|modules?)\s+\d+(?:\.\d+)*\b"
    r"|\bsource\s+(?:lesson|text|course)s?\b"
    r"|\bli[cç][aã]o\s+(?:de\s+origem|original|anterior|seguinte)\b"
    r"|\btextos?\s+(?:de\s+origem|-?fonte)\b"
    r"|\b(?:from|in|of)\s+the\s+seeds?\b|\bseed\s+(?:lesson|text)s?\b"
    r"|\b(?:da|na|das|nas)\s+sementes?\b"
    r"|\b(?:o|este|do|no|neste|deste)\s+curso\b"
    r"|\b(?:next|previous|later|earlier)\s+lessons?\b|\b(?:pr[oó]xima|outra)\s+li[cç][aã]o\b",
    re.IGNORECASE,
)


def lesson_references(path: Path, text: str) -> list[Violation]:
    return [
        Violation(rel(path), n, f"refers to a course that is not on the site: {m.group(0)!r}")
        for n, line in enumerate(text.splitlines(), start=1)
        for m in LESSON_REFERENCE.finditer(line)
    ]


def test_no_reference_to_a_course_that_is_not_on_the_site():
    found = [v for p in text_files(DOCS, SNIPPETS) for v in lesson_references(p, p.read_text("utf-8"))]
    assert not found, report(
        "(a) self-contained",
        found,
        "The site is self-contained: name the site's own page by its title, with a link, and say in words "
        "what the optimizer or any later step will do.",
    )


# ---- (b) placeholders ----------------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"<[\w-]+-url>|<repository[\w-]*>", re.IGNORECASE)  # not <url>, a sitemap tag
WORK_NOTE = re.compile(r"\b(?:TODO|FIXME|XXX)\b")  # capitals only: "todo" is a Portuguese word


def placeholders(path: Path, text: str) -> list[Violation]:
    found = []
    for n, line in enumerate(text.splitlines(), start=1):
        for m in (*PLACEHOLDER.finditer(line), *WORK_NOTE.finditer(line)):
            found.append(Violation(rel(path), n, f"placeholder left in: {m.group(0)!r}"))
    return found


def test_no_placeholder_is_left():
    files = text_files(DOCS, SNIPPETS, ROOT / "README.md")
    found = [v for p in files for v in placeholders(p, p.read_text("utf-8"))]
    assert not found, report(
        "(b) no placeholder", found, "Write the real thing (the address, the step), or take the line out."
    )


# ---- (c) numbers in pt math ----------------------------------------------------------------------------

DOT_DECIMAL = re.compile(r"\d\.\d")
COMMA_BETWEEN_NUMBERS = re.compile(r"\d\s*,\s*(?:\\[ ,;]\s*)*[-−]?\s*\d")


def math_segments(text: str):
    """Yield (line, formula text) for every stretch of $...$ / $$...$$ math outside code, markers
    replaced by their literal as the build replaces them."""
    for number, line, mask in prose_numbers.prose_lines(prose_numbers.render(text)):
        start = None
        for i, is_math in enumerate([*mask, False]):
            if is_math and start is None:
                start = i
            elif not is_math and start is not None:
                yield number, line[start:i]
                start = None


def pt_math_numbers(path: Path, text: str) -> list[Violation]:
    found = []
    for number, formula in math_segments(text):
        for pattern, what in (
            (DOT_DECIMAL, "a decimal point (pt writes 0{,}659)"),
            (COMMA_BETWEEN_NUMBERS, "a bare comma between numbers (pt: 0{,}659 and ';' between components)"),
        ):
            if m := pattern.search(formula):
                detail = f"pt math {formula.strip()!r} has {what}: {m.group(0)!r}"
                found.append(Violation(rel(path), number, detail))
    return found


def test_numbers_in_pt_math_are_written_the_pt_way():
    files = [p for p in (DOCS / "pt").rglob("*.md")]
    found = [v for p in sorted(files) for v in pt_math_numbers(p, p.read_text("utf-8"))]
    assert not found, report(
        "(c) pt math",
        found,
        r"In pt math write $p \approx (0{,}659;\ 0{,}242)$, and a marker {{ 0{,}659 <- p[0] | .3f }}; "
        r"thousands with a thin space, 17\,408.",
    )


# ---- (d) printed output groups no thousands with commas ------------------------------------------------

COMMA_GROUPED = re.compile(r"\d,\d{3}(?!\d)")
FORMAT_WITH_COMMA = re.compile(r"\{[^{}]*?:[^{}:]*?,[^{}]*\}")  # an f-string field like {n:,} or {x:>9,.1f}


def comma_formats(code: str) -> list[tuple[int, str]]:
    """Format specs in a piece of Python that group thousands with commas: (line within code, spec)."""
    found = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        tokens = []
    # Python 3.12+ tokenizes an f-string as FSTRING_START ... FSTRING_END (PEP 701), not one STRING token:
    # put each back together from the code, so that every Python reads the same strings here.
    lines = code.splitlines(keepends=True)
    starts = []
    for tok in tokens:
        if tok.type == getattr(tokenize, "FSTRING_START", None):
            starts.append(tok.start)
            continue
        if tok.type == getattr(tokenize, "FSTRING_END", None) and starts:
            (r0, c0), (r1, c1) = starts.pop(), tok.end
            text = "".join(lines[r0 - 1 : r1])[c0 : len("".join(lines[r0 - 1 : r1 - 1])) + c1]
            tok = tokenize.TokenInfo(tokenize.STRING, text, (r0, c0), tok.end, tok.line)
        elif tok.type != tokenize.STRING or starts:
            continue
        prefix = re.match(r"[a-zA-Z]*", tok.string).group(0).lower()
        if "f" in prefix:
            found += [(tok.start[0], m.group(0)) for m in FORMAT_WITH_COMMA.finditer(tok.string)]
        elif re.fullmatch(r"[rbu]*['\"]{1,3}[<>^=]?[+\- ]?#?0?\d*,(?:\.\d+)?[a-z%]?['\"]{1,3}", tok.string):
            found.append((tok.start[0], tok.string))  # format(n, ",")
        elif re.search(r"\{[^{}]*:[^{}]*,[^{}]*\}", tok.string) and ".format" in code:
            found.append((tok.start[0], tok.string))
    return found


def comma_grouped_outputs(page) -> list[Violation]:
    found = []
    for block in page.blocks:
        if block.expected_output is not None:
            for i, line in enumerate(block.expected_output.splitlines(), start=1):
                if m := COMMA_GROUPED.search(line):
                    detail = f"its output, line {i}, prints {m.group(0)!r}: {line!r}"
                    found.append(Violation(page.name, block.line, detail))
        if block.syntax == "python":
            for i, spec in comma_formats(block.code):
                found.append(Violation(page.name, block.line, f"its code, line {i}, formats with {spec!r}"))
    return found


def lab_comma_formats(path: Path) -> list[Violation]:
    found = []
    for n, cell in enumerate(jupytext.read(path).cells, start=1):
        if cell.cell_type == "code":
            code = "\n".join("" if line.startswith(("%", "!")) else line for line in cell.source.splitlines())
            found += [
                Violation(rel(path), n, f"code cell {n}, line {i}, formats with {spec!r}")
                for i, spec in comma_formats(code)
            ]
    return found


OUTPUT_FIX = (
    "Code and its output are the same in both languages, and 27,000,000,001 reads as a decimal in pt: "
    'print f"{n:_}" (27_000_000_001) or plain digits; the prose gives the language\'s form with a marker.'
)


def test_printed_output_groups_no_thousands_with_commas():
    found = [v for page in all_pages() for v in comma_grouped_outputs(page)]
    found += [v for path in lab_files() for v in lab_comma_formats(path)]
    assert not found, report("(d) printed output", found, OUTPUT_FIX)


def test_executed_labs_print_no_comma_grouped_numbers(built_site):
    found = []
    for path in lab_files():
        lang, name = path.parent.parent.name, path.stem
        executed = built_site / ("" if lang == LANGS[0] else lang) / "labs" / name / f"{name}.ipynb"
        assert executed.is_file(), f"the build published no executed notebook {executed}"
        for n, cell in enumerate(json.loads(executed.read_text("utf-8"))["cells"], start=1):
            for output in cell.get("outputs", []):
                text = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
                for m in COMMA_GROUPED.finditer(text):
                    found.append(Violation(rel(path), n, f"code cell {n} printed {m.group(0)!r}"))
    assert not found, report("(d) printed output of the labs", found, OUTPUT_FIX)


# ---- (e) every figure is introduced by the prose -------------------------------------------------------

FIGURE_WORD = {
    "pt": re.compile(r"\bfiguras?\b", re.IGNORECASE),
    "en": re.compile(r"\bfigures?\b", re.IGNORECASE),
}


MARKUP_ATTRIBUTE = re.compile(r"^\s+data-[\w-]+=")


def _paragraph(lines: list[str], index: int, step: int) -> tuple[int, str]:
    """The prose paragraph nearest to lines[index] going in direction `step`, skipping blank lines and
    lines of bare HTML (the markup an explorer wraps around a figure): (its first line, its text)."""
    def markup(line: str) -> bool:  # a tag, or an attribute line of a tag written over several lines
        return line.lstrip().startswith("<") or MARKUP_ATTRIBUTE.match(line) is not None

    i = index
    while 0 <= i < len(lines) and (not lines[i].strip() or markup(lines[i])):
        i += step
    found = []
    while 0 <= i < len(lines) and lines[i].strip() and not markup(lines[i]):
        found.append((i, lines[i]))
        i += step
    found.sort()
    return (found[0][0] + 1 if found else index + 1), " ".join(line for _, line in found)


def unintroduced_figures(name: str, lang: str, text: str) -> list[Violation]:
    lines = text.splitlines()
    found = []
    i = 0
    while i < len(lines):
        if "<figure" not in lines[i]:
            i += 1
            continue
        start = i
        while i < len(lines) and "</figure>" not in lines[i]:
            i += 1
        _, before = _paragraph(lines, start - 1, -1)
        _, after = _paragraph(lines, i + 1, +1)
        if not FIGURE_WORD[lang].search(before) and not FIGURE_WORD[lang].search(after):
            word = {"pt": "figura", "en": "figure"}[lang]
            found.append(
                Violation(name, start + 1, f"no paragraph right before or after the figure says {word!r}")
            )
        i += 1
    return found


def unintroduced_lab_figures(path: Path, lang: str) -> list[Violation]:
    cells = jupytext.read(path).cells
    found = []
    for n, cell in enumerate(cells):
        if cell.cell_type != "code" or "alt" not in cell.metadata:
            continue
        near = []
        if n > 0 and cells[n - 1].cell_type == "markdown":
            near.append(cells[n - 1].source.strip().split("\n\n")[-1])
        if n + 1 < len(cells) and cells[n + 1].cell_type == "markdown":
            near.append(cells[n + 1].source.strip().split("\n\n")[0])
        if not any(FIGURE_WORD[lang].search(p) for p in near):
            word = {"pt": "figura", "en": "figure"}[lang]
            found.append(
                Violation(rel(path), n + 1, f"the figure of code cell {n + 1} is not introduced: no {word!r} "
                          "in the paragraph right before or after it")
            )
    return found


def test_every_figure_is_introduced_by_the_prose():
    found = [v for page in all_pages() for v in unintroduced_figures(page.name, page.lang, page.text)]
    found += [v for lang in LANGS for path in lab_files(lang) for v in unintroduced_lab_figures(path, lang)]
    assert not found, report(
        "(e) figures are read",
        found,
        "Introduce each figure in the paragraph right before or after it ('A figura mostra…' / 'The figure "
        "shows…') and say what to notice, in the caption too.",
    )


# ---- (f) no listing wider than 80 characters -----------------------------------------------------------

ANNOTATION = re.compile(r"\s*#\s*\(\d+\)!\s*$")  # Material replaces `# (1)!` by a small button


def visible_width(line: str) -> int:
    return len(ANNOTATION.sub("", line).rstrip())


def wide_listings(page) -> list[Violation]:
    found = []
    for block in page.blocks:
        included = "--8<--" in block.source
        for kind, text in (("listing", block.code), ("output", block.expected_output or "")):
            for i, line in enumerate(text.splitlines(), start=1):
                if (width := visible_width(line)) > WIDTH:
                    where = f"{kind} line {i}" + (" (included)" if included else "")
                    at = block.line if included or kind == "output" else block.line + i
                    detail = f"{where} is {width} characters wide: {line.strip()!r}"
                    found.append(Violation(page.name, at, detail))
    return found


def wide_lab_cells(path: Path) -> list[Violation]:
    text = path.read_text("utf-8").splitlines()
    starts = [n for n, line in enumerate(text, start=1) if line.startswith("```{code-cell}")]
    found = []
    code_cells = [c for c in jupytext.read(path).cells if c.cell_type == "code"]
    for k, cell in enumerate(code_cells):
        for i, line in enumerate(cell.source.splitlines(), start=1):
            if (width := visible_width(line)) > WIDTH:
                at = starts[k] if k < len(starts) else 0
                found.append(
                    Violation(rel(path), at, f"code cell {k + 1}, line {i}, is {width} characters wide")
                )
    return found


def test_no_listing_is_wider_than_80_characters():
    found = [v for page in all_pages() for v in wide_listings(page)]
    found += [v for path in lab_files() for v in wide_lab_cells(path)]
    assert not found, report(
        "(f) listings fit",
        found,
        f"Every listing fits in {WIDTH} characters, so nothing scrolls sideways: break the line "
        "(or shorten the included source).",
    )


# ---- (g) wording a native reader stumbled on ----------------------------------------------------------

STUMBLES = {
    "pt": [
        (re.compile(r"\b(?:p[ôo]r|ponha|p[õo]e|pondo)\s+pre[çc]o\b", re.IGNORECASE),
         "'pôr preço' is a calque: say what it costs ('quanto custa', 'fazer a conta')"),
        (re.compile(r"\bTocar\s+os\s+passos\b", re.IGNORECASE),
         "'Tocar os passos' reads as touching them: a play button 'Reproduz'"),
        (re.compile(r"\bescal(?:e|ada|adas|ado|ados|ando)\b|\bescalas?\s+a\s+culpa\b", re.IGNORECASE),
         "'escalar' means to climb (or a scalar): scaling by a factor is 'multiplicar'"),
        (re.compile(r"(?:^\s*(?:[-*]\s+)?|[.!?:]\s+)Aten[çc][ãa]o,"),
         "'Atenção,' opening a sentence reads as an interjection: name the attention mechanism"),
        (re.compile(r"\bp[áa]gina\s+\d{2}\b", re.IGNORECASE),
         "a page number the reader cannot follow: link the page by its title"),
    ],
    "en": [
        (re.compile(r"\bdearer\b", re.IGNORECASE), "'dearer': say 'costs more'"),
        (re.compile(r"\bthis\s+chapter\s+does\s+not\s+cover\b", re.IGNORECASE),
         "the optimizer aside is said once, on the first page"),
        (re.compile(r"\bpage\s+\d{2}(?:'s)?\b", re.IGNORECASE),
         "a page number the reader cannot follow: link the page by its title"),
    ],
}


def stumbles(path: Path, lang: str, text: str) -> list[Violation]:
    return [
        Violation(rel(path), n, f"{m.group(0)!r}: {why}")
        for n, line in enumerate(text.splitlines(), start=1)
        for pattern, why in STUMBLES[lang]
        for m in pattern.finditer(line)
    ]


def test_no_wording_a_native_reader_stumbled_on_comes_back():
    found = [
        v
        for lang in LANGS
        for p in sorted((DOCS / lang).glob("*.md")) + lab_files(lang) + [STRINGS / f"{lang}.toml"]
        + sorted(STRINGS.glob(f"culpa.{lang}.toml"))  # culpa's comments as a pt page shows them
        for v in stumbles(p, lang, p.read_text("utf-8"))
    ]
    assert not found, report("(g) stumbles", found, "Write what a native teacher of the subject would write.")


# ---- each rule, broken on purpose ----------------------------------------------------------------------


def _page(tmp_path: Path, lang: str, text: str):
    from support import pages

    folder = tmp_path / "docs" / lang
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "broken.md").write_text(text, encoding="utf-8")
    original = pages.DOCS
    pages.DOCS = tmp_path / "docs"
    try:
        return pages.load_page(lang, "broken.md")
    finally:
        pages.DOCS = original


FAKE = ROOT / "docs" / "pt" / "broken.md"


@pytest.mark.parametrize(
    "line",
    ["como vimos na lição 2.4", "the source lesson says", "# from the seed", "see lesson 5.10",
     "Daqui, o curso segue", "a lição de origem"],
)
def test_rule_a_catches_a_lesson_reference(line):
    assert lesson_references(FAKE, f"intro\n{line}\n") == [
        Violation("docs/pt/broken.md", 2, lesson_references(FAKE, line)[0].detail)
    ]


def test_rule_a_leaves_the_sites_own_words_alone():
    own = "A semente do backward é 1.\nseed=0\nof course\na lição desta página\n"
    assert not lesson_references(FAKE, own)


def test_rule_b_catches_placeholders():
    text = "clone <repository-url>\nsee <docs-url>\n# TODO: later\nx = 1  # FIXME\ntodo mundo\n"
    found = placeholders(FAKE, text)
    assert [v.line for v in found] == [1, 2, 3, 4]


def test_rule_c_catches_dot_decimals_and_bare_commas_in_pt_math():
    text = (
        "ok $p \\approx (0{,}659;\\ 0{,}242)$ e $17\\,408$\n"
        "mau $L = 0.417$\n"
        "mau $p \\approx (0{,}659,\\ 0{,}242)$\n"
        "marcador $L \\approx {{ 0.417 <- loss | .3f }}$\n"
        "$$\nz = 2.0\n$$\n"
        "prosa 0.5 fora da matemática, `0.5` em código\n"
    )
    assert [v.line for v in pt_math_numbers(FAKE, text)] == [2, 3, 4, 6]


def test_rule_d_catches_comma_grouped_output_and_formats(tmp_path):
    page = _page(
        tmp_path,
        "en",
        '```python\nprint(f"{27_000_000_001:,}")\n```\n\n<!--pytest-codeblocks:expected-output-->\n'
        "```text\n27,000,000,001\n```\n\n```python\nprint(f\"{27_000_000_001:_}\", format(7357, ','))\n```\n",
    )
    found = comma_grouped_outputs(page)
    assert len(found) == 3, found
    assert "27,000" in found[0].detail and ":," in found[1].detail and "','" in found[2].detail
    assert [v.line for v in found] == [1, 1, 10]
    assert not comma_formats('print(f"{n:_} {x:.3f} {d[1]:>8}", {"a": 1, "b": 2})')


def test_rule_e_catches_a_figure_nobody_mentions():
    figure = (
        '<figure markdown="span">\n  ![alt](x.svg)\n  <figcaption>A figura mostra</figcaption>\n</figure>\n'
    )
    silent = f"Um parágrafo qualquer.\n\n{figure}\nOutro parágrafo.\n"
    assert [v.line for v in unintroduced_figures("p.md", "pt", silent)] == [3]
    introduced = f"A figura abaixo mostra a curva.\n\n{figure}\nOutro parágrafo.\n"
    assert not unintroduced_figures("p.md", "pt", introduced)
    wrapped = f'Outro.\n\n<div class="explorer">\n{figure}</div>\n\nNa figure acima, the curve.\n'
    assert not unintroduced_figures("p.md", "en", wrapped)
    assert unintroduced_figures("p.md", "pt", wrapped)


def test_rule_f_catches_a_wide_listing(tmp_path):
    wide = "x = " + "1" * 77
    page = _page(
        tmp_path,
        "en",
        f"```python\n{wide}\nshort = 1  # (1)!\n```\n\n!!! note\n    ```text\n    {'y' * 81}\n    ```\n",
    )
    found = wide_listings(page)
    assert [(v.line, "81 characters" in v.detail) for v in found] == [(2, True), (8, True)], found
    assert visible_width("    h = 1  # (1)!") == len("    h = 1")


def test_rule_g_catches_what_readers_stumbled_on():
    pt = (
        "Agora ponha preço nisso.\n"
        'data-t-play="Tocar os passos"\n'
        "e escale cada parte pela sensibilidade\n"
        "- Atenção, normalizações e o resto ficam de fora.\n"
        "a rede da página 01\n"
        "não escala; deixa a retropropagação escalar para bilhões; na escala log; Atenção ao detalhe\n"
    )
    assert [v.line for v in stumbles(FAKE, "pt", pt)] == [1, 2, 3, 4, 5]
    en = "both passes dearer\nthis chapter does not cover it\npage 01's network\nthe first page's network\n"
    assert [v.line for v in stumbles(FAKE, "en", en)] == [1, 2, 3]


# ---- (h) no Python e-notation in prose ------------------------------------------------------------------

E_NOTATION_IN_PROSE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?[eE][+-−]?\d+(?![\w])")


def e_notation_in_prose(path: Path, text: str) -> list[Violation]:
    """Numbers in prose written 8e-12 or 1,8e-03 (markers replaced by their literal, as the build does);
    code spans and math are left alone."""
    found = []
    for number, line, mask in prose_numbers.prose_lines(prose_numbers.render(text)):
        prose = "".join(" " if is_math else c for c, is_math in zip(line, mask, strict=True))
        prose = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), prose)
        prose = re.sub(r"<!--.*?-->|\]\([^)]*\)|--8<--.*", lambda m: " " * len(m.group(0)), prose)
        for m in E_NOTATION_IN_PROSE.finditer(prose):
            found.append(Violation(rel(path), number, f"e-notation in prose: {m.group(0)!r}"))
    return found


def test_prose_writes_no_e_notation():
    files = [p for lang in LANGS for p in (DOCS / lang).rglob("*.md")]
    found = [v for p in sorted(files) for v in e_notation_in_prose(p, p.read_text("utf-8"))]
    assert not found, report(
        "(h) e-notation in prose",
        found,
        "Write 8 × 10⁻¹², 10⁻⁶, pt 1,8 × 10⁻³ (en 1.8 × 10⁻³): a marker with an e format does it, "
        "{{ 8 × 10⁻¹² <- fd_gap | .0e }}; in math, 10^{-6}; Python's 1e-6 only inside a code span.",
    )


def test_rule_h_catches_e_notation_and_leaves_code_and_typography_alone():
    text = (
        "um erro de 8e-12 aqui\n"
        "ruído de {{ 1,8e-03 <- noise | .1e }}\n"
        "ok: `1e-6`, $10^{-6}$, 8 × 10⁻¹², {{ 10⁻⁶ <- rtol | .0e }}, float32, x2e5y\n"
    )
    assert [v.line for v in e_notation_in_prose(FAKE, text)] == [1, 2]
