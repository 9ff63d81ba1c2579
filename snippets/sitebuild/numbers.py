r"""The pt/en number rule, written once: pt writes 17.408,5 where en writes 17,408.5, and a true minus.

`localize` turns Python's writing of a number (`format(value, spec)`) into the page's language: the prose of
a page (number markers), the numbers the explorers show, and the words figures draw (matplotlib's mathtext,
`$...$`, gets `{,}` for the decimal comma: a bare comma there is punctuation and gets a space after it).
`localize_tex` is the same rule for a formula KaTeX typesets: pt `0{,}659` and `17\,408` (a thin space
between thousands), en `0.659` and `17{,}408`; TeX writes the minus itself.
"""

from __future__ import annotations

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
