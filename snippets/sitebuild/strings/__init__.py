"""Every word the build puts in front of a reader, one file per language: pt.toml and en.toml.

The two files have the same tables and keys (tests/test_strings.py): [run] is the Run bar of every Python
block (assets/run/run.js reads it from the page's run-config), [run_limits] what a block cannot do in the
browser, [labs] the labs' download link and the cells that cannot run in the page, [figures] the caption
words of a timing figure, [explorer-NAME] every word of an interactive explorer (its caption included:
sitebuild/steps/explorers.py writes the table on the explorer's root as data-t-* attributes), [reader] what
every page offers (its code as a .py, a way to report a mistake, the footer's licences and credits), [theme]
what third-party templates would otherwise write in English (sitebuild/steps/theme_words.py), [keep] the
link to what the reader made and the edits kept across reloads (sitebuild/steps/keep.py, assets/run/keep.js).
`{name}` in a string is filled by whoever shows it.

culpa.pt.toml is of another kind: culpa's comments and docstrings in Portuguese, for the listings of
culpa's source a pt page includes (sitebuild/steps/culpa_listings.py); en shows them as culpa writes them.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from sitebuild.project import LANGS

HERE = Path(__file__).resolve().parent


@cache
def of(lang: str) -> dict:
    """The strings of `lang`, by table: of("pt")["run"]["run"] == "Executar"."""
    if lang not in LANGS:
        raise LookupError(f"no strings for language {lang!r}: the site's languages are {LANGS}")
    with open(HERE / f"{lang}.toml", "rb") as file:
        return tomllib.load(file)
