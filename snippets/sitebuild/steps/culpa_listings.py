"""culpa's listings in the page's language: the same code, its comments and docstrings translated.

A page shows culpa's own source by including a named section of it (`--8<-- "culpa/tensor.py:op_mul"`),
so that the listing changes when the engine does. culpa is written in English, comments and docstrings
included, and stays so: it is the engine, not a page. What a listing teaches must still reach a pt reader
in Portuguese, and the code must stay the code culpa runs, byte for byte.

So on_page_markdown, last of the Markdown steps, replaces each such include of a page whose language has a
table (strings/culpa.<lang>.toml: pt) by the lines pymdownx.snippets would have put there (its own
preprocessor, with the site's configuration, expands the include), with every comment and every
docstring swapped for its translation. Everything downstream (highlighting, Run and its run-config, the
page's .py, search) sees the listing a pt reader reads; en pages are left alone, and so is every other
include (the lessons' code is the same in both languages and teaches through annotations).

A comment or docstring with no translation fails the build, naming the page, the section and the line:
a comment culpa gains reaches the site only translated. The translated listing must tokenize to the same
code as culpa's (every token but comments and docstrings, in order), or the build fails too.
tests/test_culpa_listings.py checks the table against every pt page without a build, and the built pages.
"""

from __future__ import annotations

import io
import re
import tokenize
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import markdown as markdown_lib
from mkdocs.exceptions import PluginError

from sitebuild.project import page_language

STRINGS = Path(__file__).resolve().parents[1] / "strings"
# An include of culpa's source, as pymdownx.snippets reads an inline one: the whole line, quoted path.
INCLUDE = re.compile(
    r"""^(?P<space>[ \t]*)-+8<-+[ \t]+(?P<quote>["'])(?P<target>culpa/[^"'\n]+)(?P=quote)[ \t]*$""", re.M
)
STRING_START = re.compile(r"""(?P<prefix>[rRuU]?)(?P<quote>\"\"\"|'''|"|')""")
STATEMENT_START = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}  # what comes before a statement


class ListingError(PluginError):
    """A culpa listing a page shows cannot be shown in the page's language (untranslated, or changed)."""


def table_path(lang: str, folder: Path = STRINGS) -> Path:
    return folder / f"culpa.{lang}.toml"


def load_table(path: Path) -> dict[str, dict[str, str]]:
    """{"comments": {en: translation}, "docstrings": {en: translation}} from a culpa.<lang>.toml."""
    with open(path, "rb") as file:
        raw = tomllib.load(file)
    docstrings = {}
    for entry in raw.get("docstrings", []):
        en, text = entry["en"].strip("\n"), entry["translation"].strip("\n")
        if en in docstrings:
            raise ListingError(f"{path.name}: the docstring {en!r} is translated twice")
        docstrings[en] = text
    return {"comments": dict(raw.get("comments", {})), "docstrings": docstrings}


@dataclass(frozen=True)
class Prose:
    """A comment or a docstring of a listing: where it is (tokenize's rows and columns) and its text, the
    key of its translation (a docstring's continuation lines without the indentation of its quotes)."""

    kind: str  # "comment" or "docstring"
    start: tuple[int, int]
    end: tuple[int, int]
    text: str
    source: str  # the listing's line(s) that hold it, as written
    quotes: tuple[str, str] = ("", "")  # a docstring's opening (prefix and quote) and closing quote


def _tokens(code: str, where: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError) as error:
        raise ListingError(f"{where}: cannot read the listing's comments ({error})") from None


def _docstring_text(token: tokenize.TokenInfo) -> tuple[str, str, str]:
    """(prefix + quote, the text between the quotes with continuation lines dedented, quote)."""
    m = STRING_START.match(token.string)
    if not m:
        raise ValueError(f"not a docstring: {token.string!r}")
    opening, quote = m.group(0), m.group("quote")
    inner = token.string[len(opening) : -len(quote)]
    column = token.start[1]
    first, *rest = inner.split("\n")
    rest = [line[min(column, len(line) - len(line.lstrip(" "))) :] for line in rest]
    return opening, "\n".join([first, *rest]), quote


def prose_of(code: str, where: str = "listing") -> list[Prose]:
    """Every comment and docstring (a string standing alone as a statement) of `code`, in order."""
    tokens = _tokens(code, where)
    lines = code.split("\n")
    found, previous = [], None
    for i, token in enumerate(tokens):
        if token.type == tokenize.COMMENT:
            text = token.string[1:].strip()
            found.append(Prose("comment", token.start, token.end, text, lines[token.start[0] - 1]))
        elif token.type == tokenize.STRING and (previous is None or previous.type in STATEMENT_START):
            after = next((t for t in tokens[i + 1 :] if t.type not in (tokenize.COMMENT, tokenize.NL)), None)
            if after is None or after.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                source = "\n".join(lines[token.start[0] - 1 : token.end[0]])
                opening, text, quote = _docstring_text(token)
                found.append(Prose("docstring", token.start, token.end, text, source, (opening, quote)))
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token
    return found


def code_tokens(code: str, where: str = "listing") -> list[tuple[int, str]]:
    """The listing's code as tokens, comments and docstrings left out: what a translation must not change."""
    docstrings = {p.start for p in prose_of(code, where) if p.kind == "docstring"}
    return [
        (t.type, t.string)
        for t in _tokens(code, where)
        if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE) and t.start not in docstrings
    ]


def translate(code: str, table: dict, where: str) -> tuple[str, list[Prose]]:
    """(code with every comment and docstring the table translates replaced, those it does not)."""
    lines = code.split("\n")
    missing = []
    for prose in reversed(prose_of(code, where)):  # from the end: earlier rows keep their numbers
        (row, col), (end_row, end_col) = prose.start, prose.end
        if prose.kind == "comment":
            text = table["comments"].get(prose.text)
            if text is None:
                missing.append(prose)
                continue
            lines[row - 1] = f"{lines[row - 1][:col]}# {text}"  # a comment runs to the line's end
        else:
            text = table["docstrings"].get(prose.text)
            if text is None:
                missing.append(prose)
                continue
            opening, quote = prose.quotes
            first, *rest = text.split("\n")
            new = [lines[row - 1][:col] + opening + first]
            new += [(" " * col + line) if line else "" for line in rest]
            new[-1] += quote + lines[end_row - 1][end_col:]
            lines[row - 1 : end_row] = new
    translated = "\n".join(lines)
    if code_tokens(translated, where) != code_tokens(code, where):
        raise ListingError(
            f"{where}: the translated listing is not culpa's code any more (a translation holds a quote "
            "or a line break that changes the code): check its entries in the table"
        )
    return translated, list(reversed(missing))


def snippets_expander(config: dict, root: Path) -> Callable[[str], list[str]]:
    """A function from an include line to the lines pymdownx.snippets puts in its place, with the site's
    own configuration of the extension (`config`: its mkdocs.yml entry; base paths relative to `root`)."""
    config = dict(config, auto_append=[])  # only the include asked for
    config["base_path"] = [str(root / p) for p in config.get("base_path", ["."])]
    md = markdown_lib.Markdown(extensions=["pymdownx.snippets"],
                               extension_configs={"pymdownx.snippets": config})
    preprocessor = md.preprocessors["snippet"]

    def expand(include: str) -> list[str]:
        return preprocessor.run([include])

    return expand


def untranslated_message(where: str, target: str, missing: list[Prose], lang: str, table: Path) -> str:
    shown = "\n".join(
        f"  {p.kind} {p.text!r}, in:\n" + "\n".join(f"    | {line}" for line in p.source.split("\n"))
        for p in missing
    )
    return (
        f"{where} shows {target} with {len(missing)} comment(s) or docstring(s) that have no {lang} "
        f"translation:\n{shown}\nAdd each to snippets/sitebuild/strings/{table.name} ([comments] for a "
        "comment, [[docstrings]] for a docstring), keyed by culpa's English text."
    )


def in_language(markdown: str, lang: str, where: str, expand: Callable[[str], list[str]],
                folder: Path = STRINGS) -> str:
    """`markdown` (a page of `lang`, named `where` in errors) with every include of culpa's source replaced
    by the included lines, translated; unchanged when `lang` has no table."""
    path = table_path(lang, folder)
    if not path.exists() or not INCLUDE.search(markdown):
        return markdown
    table = load_table(path)
    problems = []

    def replace(m: re.Match) -> str:
        target = m.group("target")
        code = "\n".join(expand(m.group(0).strip()))  # unindented: the include's indent comes after
        translated, missing = translate(code, table, f"{where}, {target}")
        if missing:
            problems.append(untranslated_message(where, target, missing, lang, path))
        return "\n".join(m.group("space") + line for line in translated.split("\n"))

    result = INCLUDE.sub(replace, markdown)
    if problems:
        raise ListingError("\n".join(problems))
    return result


def on_page_markdown(markdown: str, page, config) -> str:
    lang = page_language(page)
    if not table_path(lang).exists() or not INCLUDE.search(markdown):
        return markdown
    root = Path(config.config_file_path).resolve().parent
    expand = snippets_expander(config.mdx_configs.get("pymdownx.snippets", {}), root)
    return in_language(markdown, lang, f"docs/{page.file.src_uri}", expand)
