"""What the site's interactive explorers show, computed by culpa at build time and written as plain JSON.

One module per explorer (`worked_example.py` for `data-explorer="worked-example"`, `nudge.py`, `blame.py`),
each defining

    INPUTS = ["snippets/lessons/x.py"]   # the lesson files it runs, relative to the repository
    def export() -> dict: ...            # every number the explorer shows, already written for pt and en
    def check(data) -> list[str]: ...    # what disagrees with culpa, recomputed: one line per problem

`export()` runs the page's own lesson code (sitebuild.lessons.run), so the explorer shows the objects the page
computes. The script in docs/assets/explorers/ only lays out and reveals: every number a reader sees is a
string here, written the way the page's language writes it (pt "0,659" and "17.408", en "0.659" and "17,408").
sitebuild/steps/explorers.py runs the exporters at build time (cached on their sources, the lessons and
culpa) and serves <site>/assets/explorers/data/<name>.json.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import math
import re
from pathlib import Path

import numpy as np

from sitebuild import numbers as style  # the number writers, without matplotlib (they run in Pyodide too)
from sitebuild import project

HERE = Path(__file__).resolve().parent
ROOT = project.ROOT
LANGS = project.LANGS
NAMES = ("worked-example", "nudge", "blame")


def module(name: str):
    """The exporter module of explorer `name` ("worked-example" -> explorers.worked_example)."""
    if name not in NAMES:
        raise LookupError(f"no explorer named {name!r}; the explorers are {list(NAMES)}")
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}")


def cache_key(name: str) -> str:
    """A hash of everything that can change explorer `name`'s data: its exporter, this module, the figure
    helpers it uses, the lessons it runs, culpa's source and the NumPy and Python versions."""
    script = HERE / f"{name.replace('-', '_')}.py"
    inputs = [ROOT / path for path in declared_inputs(script)]
    helpers = [HERE / "__init__.py", HERE.parent / "lessons.py", HERE.parent / "numbers.py"]
    files = [script, *helpers, *inputs, *project.culpa_sources()]
    return project.content_key(files, json.dumps(project.versions("numpy")))[:20]


def declared_inputs(script: Path) -> list[str]:
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "INPUTS" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return []


def formulas(value):
    """Every formula ({"tex": ...}) in an explorer's data, depth first."""
    if isinstance(value, dict):
        if "tex" in value:
            yield value
            return
        for item in value.values():
            yield from formulas(item)
    elif isinstance(value, list):
        for item in value:
            yield from formulas(item)


def to_json(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


# ---- numbers written for both languages ----
def text(value, spec: str) -> dict[str, str]:
    """One number, as each language writes it: text(0.6590, '.3f') == {'pt': '0,659', 'en': '0.659'}."""
    value = float(value) + 0.0  # -0.0 is written 0
    if float(format(value, spec).replace(",", "")) == 0:
        value = 0.0  # a value that rounds to zero has no sign
    return {lang: style.number(value, spec, lang) for lang in LANGS}


def short(value) -> dict[str, str]:
    """Three decimals with trailing zeros dropped, as the worked-example figure writes them (2.0, 0.659)."""
    return dict(zip(LANGS, _short(float(value) + 0.0), strict=True))  # a dict of the caller's own


# An explorer writes the same few numbers many times (a gradient in its node, its step, its formula and its
# sentence): a reader's recompute in the page wrote each again, a third of the worked example's answer time.
@functools.lru_cache(maxsize=4096)
def _short(value: float) -> tuple[str, ...]:
    trimmed = format(value, ".3f").rstrip("0")
    trimmed = trimmed + "0" if trimmed.endswith(".") else trimmed
    if float(trimmed) == 0:
        trimmed = "0.0"
    return tuple(style.localize(trimmed, lang) for lang in LANGS)


def numbers(values, write=short) -> dict[str, str]:
    """A scalar or a vector: 0,659, or (0,659; 0,242; 0,099) in pt where en writes (0.659, 0.242, 0.099)."""
    array = np.asarray(values, dtype=float)
    if array.ndim == 0:
        return write(array.item())
    items = [write(v) for v in array.ravel()]
    return {lang: style.sequence([item[lang] for item in items], lang) for lang in LANGS}


def power(value: float) -> dict[str, str]:
    """A positive error as mantissa × a power of ten, 1,8 × 10⁻⁵ in pt; an exact zero is written 0."""
    if value == 0 or not math.isfinite(value):
        return {lang: "0" if value == 0 else "∞" for lang in LANGS}
    return {lang: style.power(value, lang) for lang in LANGS}


def spoken_power(value: float) -> dict:
    """power(value)'s parts, for words read aloud ("3,2 vezes 10 elevado a −7"): {"mantissa": {pt, en},
    "exponent": {pt, en}}, the mantissa None when it is 1 ("10 elevado a −5")."""
    parts = {lang: style.spoken_power(value, lang) for lang in LANGS}
    mantissa = {lang: parts[lang]["mantissa"] for lang in LANGS}
    mantissa = None if None in mantissa.values() else mantissa
    return {"mantissa": mantissa, "exponent": {lang: parts[lang]["exponent"] for lang in LANGS}}


# ---- the reader's numbers, typed into an explorer's fields ----
_NUMBER = re.compile(r"[+\-\u2212]?(\d+([.,]\d*)?|[.,]\d+)")


def read_number(text, low: float, high: float) -> tuple[float | None, dict | None]:
    """A number as a reader types it in either language (2,5 or 2.5, −1 with a true minus or a hyphen),
    between low and high: (value, None), or (None, the problem: {"problem": "empty" | "number" | "range",
    "text", "low", "high"}, the limits written for each language) for the page's words to say."""
    text = str(text).strip()
    limits = {"low": short(low), "high": short(high)}
    if not text:
        return None, {"problem": "empty", "text": "", **limits}
    if not _NUMBER.fullmatch(text):
        return None, {"problem": "number", "text": text, **limits}
    value = float(text.replace(",", ".").replace("\u2212", "-"))
    if not low <= value <= high:
        return None, {"problem": "range", "text": text, **limits}
    return value, None


# ---- formulas, typeset at build time, with slots for culpa's numbers ----
# An explorer's formula is {"tex": ..., "slots": {name: {pt, en}}, "say": {pt, en}}: TeX in which each
# number is a slot, \htmlData{slot=NAME}{0}, the number each slot shows, and the formula read aloud (the
# label a screen reader gets; KaTeX's drawing is hidden from it). sitebuild/steps/explorers.py typesets the
# TeX with the site's KaTeX (the slots keep their place and size) and the script puts each number in its
# slot.
# A slot whose name starts with "_" (an index, i or j) is filled by the script from what the reader picked,
# and is listed in "fills".
def slot(name: str) -> str:
    return rf"\htmlData{{slot={name}}}{{0}}"


def quantity(name: str, values, write=short) -> tuple[str, dict]:
    """TeX for a number, or a column vector of slots (name.0, name.1, ...), and the numbers for its slots."""
    array = np.asarray(values, dtype=float)
    if array.ndim == 0:
        return slot(name), {name: write(array.item())}
    items = [write(v) for v in array.ravel()]
    rows = r" \\ ".join(slot(f"{name}.{k}") for k in range(len(items)))
    return r"\begin{pmatrix} " + rows + r" \end{pmatrix}", {f"{name}.{k}": v for k, v in enumerate(items)}


def formula(tex: str, say, *slot_sets: dict, fills=()) -> dict:
    """One formula of an explorer, set in display style (full-size fractions) inline in the text: `say` is
    {pt, en}, or one text for both languages."""
    slots = {}
    for found in slot_sets:
        slots.update(found)
    entry = {"tex": r"\displaystyle " + tex, "slots": slots,
             "say": dict(say) if isinstance(say, dict) else {lang: say for lang in LANGS}}
    if fills:
        entry["fills"] = list(fills)
    return entry


def slot_values(entry: dict, name: str, lang: str) -> str:
    """The number slot `name` of a formula shows, as one text: a vector's slots joined as numbers() writes
    it. An exporter's check() compares it with the number it checked against culpa."""
    slots = entry["slots"]
    if name in slots:
        return slots[name][lang]
    items = [slots[f"{name}.{k}"][lang] for k in range(len(slots)) if f"{name}.{k}" in slots]
    return style.sequence(items, lang) if items else ""


# ---- culpa's own code for an op's local derivative ----
def op_code(method, parent: int) -> dict:
    """The source of a culpa op (a Tensor method), its place in culpa/tensor.py, and the line holding the
    local derivative for input number `parent`: the element of the tuple its backward returns."""
    # read once per version of the file (`mkdocs serve` runs on while culpa is edited): a reader's numbers,
    # recomputed in the page, reuse it
    return dict(_op_code(method, parent, Path(inspect.getsourcefile(method)).stat().st_mtime_ns))


@functools.cache
def _op_code(method, parent: int, _version: int) -> dict:
    lines, first = inspect.getsourcelines(method)
    source = Path(inspect.getsourcefile(method))  # culpa/tensor.py as installed (in Pyodide: the wheel)
    tree = ast.parse(_dedent(lines))
    returned = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and isinstance(node.body, ast.Tuple):
            returned = node.body
        elif isinstance(node, ast.FunctionDef) and node.name == "backward":
            returned = next(n.value for n in ast.walk(node) if isinstance(n, ast.Return))
    if not isinstance(returned, ast.Tuple) or parent >= len(returned.elts):
        raise ValueError(f"cannot find the local derivative of input {parent} in {method.__qualname__}")
    element = returned.elts[parent]
    highlight = list(range(element.lineno - 1, element.end_lineno))  # 0-based, within `lines`
    return {
        "section": (_section(source, first, first + len(lines) - 1)
                    or f"culpa/tensor.py:{method.__qualname__}"),
        "first_line": first,
        "lines": _dedent(lines).splitlines(),
        "highlight": highlight,
    }


def _dedent(lines: list[str]) -> str:
    indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
    return "".join(line[indent:] if line.strip() else "\n" for line in lines)


def _section(source: Path, first: int, last: int) -> str | None:
    """The named snippet section of culpa/tensor.py (`# --8<-- [start:op_mul]`) around lines first..last."""
    found = None
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
        if "--8<-- [start:" in line and number < first:
            found = (line.split("[start:", 1)[1].split("]", 1)[0], number)
        if "--8<-- [end:" in line and found and line.split("[end:", 1)[1].startswith(found[0] + "]"):
            if number > last:
                return f"culpa/tensor.py:{found[0]}"
            found = None
    return None
