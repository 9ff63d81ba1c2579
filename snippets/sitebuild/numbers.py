r"""The pt/en number rule, written once: pt writes 17.408,5 where en writes 17,408.5, and a true minus.

`localize` turns Python's writing of a number (`format(value, spec)`) into the page's language: the prose of
a page (number markers), the numbers the explorers show, and the words figures draw (matplotlib's mathtext,
`$...$`, gets `{,}` for the decimal comma: a bare comma there is punctuation and gets a space after it).
`localize_tex` is the same rule for a formula KaTeX typesets: pt `0{,}659` and `17\,408` (a thin space
between thousands), en `0.659` and `17{,}408`; TeX writes the minus itself. `number`, `power`, `sequence`
and `conjunction` write numbers and lists with it (figures reach them as `style.number`, ...).

No matplotlib or MkDocs here: the explorers' exporters write their numbers with this module in the
reader's browser too (Pyodide), where neither is installed.
"""

from __future__ import annotations

import math
import re

MINUS = "\u2212"
_SWAP = str.maketrans({",": ".", ".": ","})
_HYPHEN_MINUS = re.compile(r"(?<![A-Za-z{])-(?=[\d.,{])")  # a minus sign, not a hyphen in a word or 1e-05


def localize(text: str, lang: str) -> str:
    """Python's (or matplotlib's) writing of a number, in `lang`: separators swapped in pt, a true minus."""
    if lang == "pt":
        text = text.translate(_SWAP)
        if "$" in text:  # mathtext: a bare comma would get punctuation spacing
            text = text.replace(",", "{,}")
    return _HYPHEN_MINUS.sub(MINUS, text)


def localize_tex(text: str, lang: str) -> str:
    """Python's writing of a number, in `lang`, inside a formula KaTeX typesets."""
    if lang == "pt":
        return text.replace(",", "\\,").replace(".", "{,}")
    return text.replace(",", "{,}")


def number(value, spec: str = "", lang: str = "en") -> str:
    """format(value, spec) as the page's language writes it: number(17408, ',', 'pt') == '17.408'."""
    return localize(format(value, spec), lang)


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def power_parts(value: float) -> tuple[float, int]:
    """The mantissa (one decimal) and the exponent power() writes a positive value with: (1.8, -5)."""
    exponent = int(math.floor(math.log10(value)))
    mantissa = round(value / 10.0**exponent, 1)
    if mantissa >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return mantissa, exponent


def spoken_power(value: float, lang: str) -> dict:
    """power()'s parts, for words to read aloud ("3,2 vezes 10 elevado a −7"): the mantissa as the language
    writes it (None when it is 1: "10 elevado a −5") and the exponent, with a true minus."""
    mantissa, exponent = power_parts(value)
    return {"mantissa": None if mantissa == 1 else number(mantissa, ".1f", lang),
            "exponent": str(exponent).replace("-", MINUS)}


def power(value: float, lang: str, mathtext: bool = False) -> str:
    """A value as mantissa times a power of ten, one decimal: 1,8 × 10⁻⁵ in pt (10$^{-5}$ in a figure)."""
    mantissa, exponent = power_parts(value)
    if mathtext:
        ten = f"10$^{{{exponent}}}$".replace("-", MINUS)
    else:
        ten = "10" + str(exponent).translate(_SUPERSCRIPT)
    return ten if mantissa == 1 else f"{number(mantissa, '.1f', lang)} × {ten}"


def sequence(texts, lang: str, brackets: str = "()") -> str:
    """Numbers already written for `lang`, as a list: (0,659; 0,242) in pt, where en writes (0.659, 0.242)."""
    return brackets[:1] + ("; " if lang == "pt" else ", ").join(texts) + brackets[1:]


def conjunction(items, lang: str) -> str:
    """2, 16, 16 e 2 in pt; 2, 16, 16 and 2 in en."""
    *first, last = [str(item) for item in items]
    return ", ".join(first) + (" e " if lang == "pt" else " and ") + last if first else last
