r"""Numbers in prose, tied to the code that computes them.

A number that the prose states and that code can compute is written as a marker::

    the right class gets {{ 0,659 <- p.data[0] | .3f }} of the probability

`0,659` is what the reader sees, in the page's language: decimal comma in pt, point in en. Inside
`$...$` or `$$...$$` math the literal is written as TeX typesets it: pt `{{ 0{,}659 <- p.data[0] | .3f }}`
(a bare comma in TeX math is punctuation and gets a space after it; `{,}` is a decimal comma) with
thousands grouped by a thin space (`17\,408`), en `{{ 0.659 <- p.data[0] | .3f }}` with `17{,}408`.
`p.data[0]` is a Python expression evaluated in the namespace left by running the page's own code blocks
in order; `.3f` is its format spec.

An `e` format (`.0e`, `.1e`) is written the typographic way, never in Python's e-notation:
`{{ 8 × 10⁻¹² <- gap | .0e }}` in both languages, pt `{{ 1,8 × 10⁻³ <- noise | .1e }}` where en writes
`1.8 × 10⁻³`, and a mantissa of 1 is left out, `10⁻⁶` (tests/test_content_rules.py fails on e-notation in
prose).

At build time this step replaces every marker by its literal and fails on a malformed one.
The test suite (tests/test_pages.py) runs each page's code, evaluates every expression, formats it for
the page's language and fails, naming page and line, when the literal differs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sitebuild import numbers
from sitebuild.numbers import localize_tex

MARKER_RE = re.compile(r"\{\{(?P<body>.*?)\}\}")
# the literal holds no braces but TeX's decimal comma `{,}`
BODY_RE = re.compile(
    r"^\s*(?P<literal>(?:[^<{}]|\{,\})+?)\s*<-\s*(?P<expr>[^|]+?)\s*(?:\|\s*(?P<fmt>[^|]*?)\s*)?$"
)
FENCE_RE = re.compile(r"^\s*(```+|~~~+)")


@dataclass(frozen=True)
class Marker:
    literal: str
    expr: str
    fmt: str
    line: int
    in_math: bool


class MarkerError(ValueError):
    pass


def _math_mask(line: str, in_block: bool) -> tuple[list[bool], bool]:
    """For each character of a prose line, whether it lies inside $...$ or $$...$$ math."""
    if "$" not in line:  # most lines: nothing changes along the line (and a build reads every line)
        return [in_block] * len(line), in_block
    mask = []
    in_inline = False
    i = 0
    while i < len(line):
        if line.startswith("$$", i) and not in_inline:
            in_block = not in_block
            mask += [True, True]
            i += 2
            continue
        if line[i] == "$" and not in_block and (i == 0 or line[i - 1] != "\\"):
            in_inline = not in_inline
            mask.append(True)
            i += 1
            continue
        mask.append(in_block or in_inline)
        i += 1
    return mask, in_block


def prose_lines(markdown: str):
    """Yield (line_number, line, math_mask) for lines outside fenced code blocks."""
    fence = None
    in_block_math = False
    for number, line in enumerate(markdown.splitlines(), start=1):
        m = FENCE_RE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            continue
        if fence is not None:
            if line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = None
            continue
        mask, in_block_math = _math_mask(line, in_block_math)
        yield number, line, mask


def parse_markers(markdown: str) -> list[Marker]:
    markers = []
    for number, line, mask in prose_lines(markdown):
        for m in MARKER_RE.finditer(line):
            body = BODY_RE.match(m.group("body"))
            if body is None:
                raise MarkerError(
                    f"line {number}: malformed number marker {m.group(0)!r}; "
                    "write {{ LITERAL <- EXPRESSION | FORMAT }}, e.g. {{ 0,659 <- p[0] | .3f }}"
                )
            markers.append(
                Marker(
                    literal=body.group("literal"),
                    expr=body.group("expr"),
                    fmt=body.group("fmt") or "",
                    line=number,
                    in_math=mask[m.start()],
                )
            )
    return markers


def format_number(value, fmt: str, lang: str, in_math: bool = False) -> str:
    """Format `value` as the page shows it: prose en `17,408.5`, pt `17.408,5`; math en `17{,}408.5`,
    pt `17\\,408{,}5`."""
    return localize(format(value, fmt), lang, in_math)


E_NOTATION = re.compile(r"^(?P<mantissa>[+-]?\d+(?:\.\d+)?)[eE](?P<exponent>[+-]?\d+)$")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def localize(text: str, lang: str, in_math: bool = False) -> str:
    """Turn Python's formatting of a number (`format(value, spec)`) into the page's language; e-notation
    (`8e-12`, `1.8e-03`) becomes mantissa × a power of ten (`8 × 10⁻¹²`, pt `1,8 × 10⁻³`)."""
    if m := E_NOTATION.match(text):
        return scientific(m.group("mantissa"), int(m.group("exponent")), lang, in_math)
    return localize_tex(text, lang) if in_math else numbers.localize(text, lang)


def scientific(mantissa: str, exponent: int, lang: str, in_math: bool) -> str:
    """`8 × 10⁻¹²` in prose, `8 \\times 10^{-12}` in math; a mantissa of 1 is left out: `10⁻⁶`."""
    if in_math:
        ten = f"10^{{{exponent}}}"
        return ten if mantissa == "1" else f"{localize_tex(mantissa, lang)} \\times {ten}"
    ten = "10" + str(exponent).translate(_SUPERSCRIPT)
    return ten if mantissa == "1" else f"{numbers.localize(mantissa, lang)} × {ten}"


def render(markdown: str) -> str:
    """Replace every marker outside code fences by its literal (what the reader sees)."""
    parse_markers(markdown)  # raises on a malformed marker
    prose = {number for number, _, _ in prose_lines(markdown)}
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        if i + 1 in prose and "{{" in line:
            lines[i] = MARKER_RE.sub(lambda m: BODY_RE.match(m.group("body")).group("literal"), line)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page) -> str:
    try:
        return render(markdown)
    except MarkerError as err:
        raise MarkerError(f"{page.file.src_uri}: {err}") from None
