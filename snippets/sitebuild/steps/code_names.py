"""Search finds the names a page's code uses, without the code: each name once per section of the index.

Code blocks are left out of the search index (search_per_language.exclude_code: they were 40% of it). A
reader who searches `set_printoptions`, `logaddexp` or `retain_graph` wants the page, and the section, whose
code uses it. So each section of the index gets one line of inline code: the identifiers of its Python
blocks (functions and methods called, attributes, classes and functions defined, their parameters, keyword
arguments, imported modules and names), each once, with nothing else of the code.

Left out: Python's keywords, one-letter names, `self` and `cls`, Python's builtins called by their bare
name (`print`, `range`, `len`: every page calls them; as an attribute, `x.sum()`, a name stays), the names
the section's prose already has as a word, and COMMON: names whose code appears in most of a language's
sections (measured: `backward`, `Tensor`, `numpy` ...) are kept once per page, in its first section that
uses them, so that they still find every page without costing a line in every section.

Two moments, because the search plugin splits a page into sections as it reads it:
- `CodeNames.lend` (before the search plugin reads a page): in the copy search reads, each Python block is
  replaced by a mark holding its names (MARK, then the names), and the <div>s that would hide a heading
  from the section logic are taken out (a notebook's cells);
- `merge` (after every language is built, on each language's index): in each section, the marks become one
  `<p><code>name name ...</code></p>` at the end of its text.

Material's search tokenizer must keep an identifier whole and split it from what surrounds it in prose: the
`separator` of the search plugin (mkdocs.yml) splits on spaces, hyphens, punctuation and brackets, and on a
dot before a letter (`np.logaddexp` -> np, logaddexp), never on `_`: `set_printoptions`, typed as it is, is
one term for lunr, in the index and in the query.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
import textwrap
from collections import Counter
from html import unescape

from mkdocs.exceptions import PluginError

# A Python block in the copy search reads: a Markdown page's fence (language-python) or a notebook's code
# cell (hl-python), then its <pre>. Output blocks (language-text, a cell's output area) hold no code.
PYTHON_BLOCK = re.compile(
    r'(<div class="(?:language-python|highlight-ipynb hl-python)\b[^"]*"[^>]*>\s*)<pre\b[^>]*>(.*?)</pre>',
    re.S,
)
TAGS = re.compile(r"<[^>]+>")
IPYTHON_LINE = re.compile(r"^(\s*)[%!].*$", re.M)  # %pip, %config, !ls: not Python
DIV_TAG = re.compile(r"<div\b[^>]*>|</div>")
MARK = "\ue000"  # a private-use character: never in a page's text
MARKED = re.compile(rf"<p><code>{MARK}([^<]*)</code></p>")
NOT_NAMES = {"self", "cls"}
BARE_BUILTINS = set(dir(builtins))
COMMON_SHARE = 0.25  # a name in the code of more than this share of a language's sections is COMMON


def identifiers(code: str) -> list[str]:
    """The names a block of Python code uses, each once."""
    tree = _parse(IPYTHON_LINE.sub(r"\1pass", code))
    builtin_calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BARE_BUILTINS
    ]
    builtin_keywords = {id(k) for call in builtin_calls for k in call.keywords}  # print(end=), zip(strict=)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.append(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id not in BARE_BUILTINS:
                found.append(node.func.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(node.name)
        elif isinstance(node, ast.arg) or (
            isinstance(node, ast.keyword) and node.arg and id(node) not in builtin_keywords
        ):
            found.append(node.arg)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += node.module.split(".")
        elif isinstance(node, ast.alias):
            found += node.name.split(".") + ([node.asname] if node.asname else [])
    return list(dict.fromkeys(name for name in found if _worth_indexing(name)))


def _parse(code: str) -> ast.Module:
    """A block as a page shows it: a whole program, or a section of a file that starts indented (a method
    of culpa's Tensor, maybe followed by a function)."""
    code = textwrap.dedent(code)
    try:
        return ast.parse(code)
    except SyntaxError:
        return ast.parse("if True:\n" + code)  # still failing: the build says which page (CodeNames.lend)


def _worth_indexing(name: str) -> bool:
    return (
        len(name) > 1
        and name not in NOT_NAMES
        and not (keyword.iskeyword(name) or keyword.issoftkeyword(name))
    )


class CodeNames:
    """The step's first moment: the copy of each page that search reads carries its blocks' names."""

    def __init__(self):
        self.real: dict[str, str] = {}  # src_uri -> the page's HTML, while search reads the marked copy

    def lend(self, page) -> None:
        """Before the search plugin reads the page: each Python block replaced by a mark of its names."""

        def mark(m: re.Match) -> str:
            code = unescape(TAGS.sub("", m.group(2)))
            try:
                names = identifiers(code)
            except SyntaxError as error:
                raise PluginError(
                    f"{page.file.src_uri}: a Python block search cannot read ({error}): {code[:80]!r}"
                ) from None
            return f"{m.group(1)}<p><code>{MARK}{' '.join(names)}</code></p>"

        self.real[page.file.src_uri] = page.content
        page.content = _headings_on_top(PYTHON_BLOCK.sub(mark, page.content))

    def take_back(self, page) -> None:
        """After the search plugin indexed it: the page as it was."""
        real = self.real.pop(page.file.src_uri, None)
        if real is not None:
            page.content = real


def _headings_on_top(html: str) -> str:
    """The copy without its <div> tags (search keeps no <div>), those marked data-search-exclude and what
    is in them left whole. The search plugin puts what follows a heading nested in a <div> back into the
    section before it, once that <div> closes: a notebook wraps every cell in <div>s, so a lab's code and
    prose after a heading's cell went to the page's first section, not to that heading's."""
    out, last, stack = [], 0, []  # stack: for each open <div>, whether it is kept
    for m in DIV_TAG.finditer(html):
        opening = not m.group(0).startswith("</")
        if opening:
            keep = bool(stack and stack[-1]) or "data-search-exclude" in m.group(0)
            stack.append(keep)
        else:
            keep = stack.pop() if stack else True
        out.append(html[last : m.start()] + (m.group(0) if keep else ""))
        last = m.end()
    out.append(html[last:])
    return "".join(out)


def merge(docs: list[dict], separator: str) -> None:
    """The second moment, on one language's index (its docs, in page order): in each section, its blocks'
    marks become one line of names, each once, without the words its prose has; a COMMON name only in the
    first section of its page that uses it, and not at all on a page whose prose has it."""
    split = re.compile(separator)
    marked = [[n for group in MARKED.findall(doc["text"]) for n in group.split()] for doc in docs]
    prose = [MARKED.sub("", doc["text"]) for doc in docs]
    words = [{w for w in split.split(TAGS.sub(" ", unescape(text)).lower()) if w} for text in prose]
    pages = [doc["location"].split("#", 1)[0] for doc in docs]
    on_page: dict[str, set[str]] = {}  # a page's words, then also the names given to its sections
    for page, section_words in zip(pages, words, strict=True):
        on_page.setdefault(page, set()).update(section_words)
    with_code = sum(1 for names in marked if names)
    uses = Counter(name for names in marked for name in set(names))
    common = {name for name, count in uses.items() if count > COMMON_SHARE * with_code}
    for doc, names, text, section_words, page in zip(docs, marked, prose, words, pages, strict=True):
        kept = [
            name
            for name in dict.fromkeys(names)
            if name.lower() not in section_words and not (name in common and name.lower() in on_page[page])
        ]
        on_page[page].update(name.lower() for name in kept)
        doc["text"] = text + (f"<p><code>{' '.join(kept)}</code></p>" if kept else "")
