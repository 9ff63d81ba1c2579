"""Regenerate every figure of the site, in both languages, with one command:

    .venv/bin/python -m sitebuild.make_figures              # all figures, into the cache (.cache/figures)
    .venv/bin/python -m sitebuild.make_figures branching    # only the figures named
    .venv/bin/python -m sitebuild.make_figures --force      # ignore the cache: redraw, measure timings again
    .venv/bin/python -m sitebuild.make_figures --out DIR    # also write DIR/<lang>/figures/<name>.svg

It prints each figure's alt text in both languages, for the pages to copy. The site build does the same
(sitebuild/steps/figures.py) and serves the cached drawings, so `mkdocs build` and `mkdocs serve` always show
current figures; nothing is written under docs/.

A figure is one module of sitebuild/figures/ (every `*.py` there but `__init__.py`), `<name with
underscores>.py` for the figure `<name-with-dashes>`, that defines:

    LABELS = {"pt": {...}, "en": {...}}   # every word it draws, in both languages
    ALT = {"pt": "...", "en": "..."}      # alt text: what the figure shows and what to notice
    TIMING = True                         # only if its data are measured times or memory (see below)
    INPUTS = ["snippets/lessons/x.py"]    # files besides culpa it reads (a lesson), relative to the repo
    CAPTION = {"pt": "...", "en": "..."}  # optional: a caption for the page (assumptions, sources)
    def data() -> dict: ...               # what it plots: numbers, lists, NumPy arrays (kept as JSON)
    def draw(lang, data) -> Figure: ...   # the drawing, from data() after a JSON round trip

The cache, .cache/figures/<name>/<key>/{pt.svg, en.svg, data.json}: the key hashes everything that can
change a figure (the script, the helper modules (style, lessons, numbers, this one), its INPUTS,
culpa's source, the Python, NumPy and
matplotlib versions). A figure is drawn again only when its key changes, and a published file is written
only when its bytes change, so `mkdocs serve` stays fast and does not rebuild in a loop.

Timing figures (TIMING = True) are measured, never stored in git: their data() runs in a fresh Python
process pinned to one thread (OMP/OpenBLAS/MKL), with glibc's malloc thresholds raised so that large
temporaries are not page-faulted in again and again. That happens each time the figure regenerates:
after any change to culpa or to the script, with --force, and on every CI run (CI starts with an empty
cache). The figure names the machine it was measured on. A script that raises stops nothing else: every
other figure is still made, then FigureScriptError names each failing script.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sitebuild import figures, lessons, project, style

HERE = Path(figures.__file__).resolve().parent  # the figure scripts
ROOT = project.ROOT
LANGS = project.LANGS
VARIANTS = (*LANGS, *(f"{lang}.phone" for lang in LANGS))  # each figure, for desktop and for a phone
# What every figure's drawing depends on besides its own script and INPUTS
HELPERS = tuple(Path(__file__).resolve().parent / name for name in (
    "make_figures.py", "style.py", "lessons.py", "numbers.py", "figures/__init__.py"))
DEFAULT_CACHE = ROOT / ".cache" / "figures"


class FigureScriptError(RuntimeError):
    """One or more figure scripts raised; the message names each script and shows its traceback."""


@dataclass
class Made:
    name: str
    script: Path
    key: str
    svg: dict[str, bytes]
    data: dict
    alt: dict[str, str]
    cached: bool
    seconds: float
    entry: Path  # the cache entry: <variant>.svg for each of VARIANTS
    caption: dict[str, str] = field(default_factory=dict)
    phone: dict[str, bytes] = field(default_factory=dict)  # the same figure drawn for a phone, by language


def figure_scripts(folder: Path = HERE) -> list[Path]:
    """The figure scripts: every module of sitebuild/figures/ (a pattern, not a list)."""
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))


def figure_name(script: Path) -> str:
    return script.stem.replace("_", "-")


def load_script(script: Path):
    """The figure's module, sitebuild.figures.<stem>, imported afresh (`mkdocs serve` sees edits)."""
    name = f"{figures.__name__}.{script.stem}"
    module = importlib.reload(sys.modules[name]) if name in sys.modules else importlib.import_module(name)
    for needed in ("LABELS", "ALT", "data", "draw"):
        if not hasattr(module, needed):
            raise AttributeError(f"a figure script must define {needed} (see sitebuild/make_figures.py)")
    for table in ("LABELS", "ALT"):
        if set(getattr(module, table)) != set(LANGS):
            raise ValueError(f"{table} must have exactly the languages {LANGS}")
    return module


def declared_inputs(script: Path) -> list[Path]:
    """The files a script lists in `INPUTS = [...]` (read without running the script)."""
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "INPUTS" for t in node.targets):
            return [ROOT / name for name in ast.literal_eval(node.value)]
    return []


def cache_key(script: Path) -> str:
    """A hash of everything that can change the figure drawn by `script`."""
    files = [script, *HELPERS, *declared_inputs(script), *project.culpa_sources()]
    return project.content_key(files, json.dumps(project.versions("numpy", "matplotlib")))[:20]


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"data() returned a {type(value).__name__}, which a figure cannot keep as JSON")


def data_as_json(module) -> str:
    return json.dumps(module.data(), default=_jsonable)


def _measure_in_fresh_process(script: Path) -> str:
    """data() of a timing figure, run in a new single-threaded interpreter; its JSON text."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "data.json"
        code = ("import sys; from pathlib import Path; from sitebuild import make_figures as make; "
                "Path(sys.argv[2]).write_text(make.data_as_json(make.load_script(Path(sys.argv[1]))))")
        # this project's snippets/ first: a build of a copy of the repository measures the copy's code
        path_var = os.pathsep.join(filter(None, [str(ROOT / "snippets"), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, **project.PINNED_ENV, "PYTHONPATH": path_var, "MPLBACKEND": "Agg"}
        proc = subprocess.run([sys.executable, "-c", code, str(script), str(out)],
                              env=env, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"measuring data() in a fresh process failed:\n{proc.stderr.strip()}")
        return out.read_text()


def _read_entry(entry: Path):
    """A complete cache entry's (svg by language and variant, data, texts), or None (missing, or removed
    meanwhile). The keys of the svg are the file names' stems: "pt", "en", "pt.phone", "en.phone"."""
    try:
        svg = {stem: (entry / f"{stem}.svg").read_bytes() for stem in VARIANTS}
        data = json.loads((entry / "data.json").read_text())
        texts = json.loads((entry / "text.json").read_text())
    except OSError:
        return None
    return svg, data, texts


def _write_entry(entry: Path, svg: dict[str, bytes], data_text: str, texts: dict) -> None:
    """Write the cache entry whole, or not at all: it appears by one rename, so a build stopped midway
    or another build writing the same figure (two processes) never leaves a half entry."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{entry.name}-", dir=entry.parent))
    for lang, content in svg.items():
        (tmp / f"{lang}.svg").write_bytes(content)
    (tmp / "data.json").write_text(data_text)
    (tmp / "text.json").write_text(json.dumps(texts, ensure_ascii=False, indent=1))
    for old in entry.parent.iterdir():  # one entry per figure: older keys are of no further use
        if old != entry and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)
    try:
        os.replace(tmp, entry)
    except OSError:  # another process wrote this entry first: keep theirs
        shutil.rmtree(tmp, ignore_errors=True)


def publish(path: Path, content: bytes) -> bool:
    """Write `content` to `path` only if the file differs (so a file watcher sees no change otherwise)."""
    if path.is_file() and path.read_bytes() == content:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(content)
    os.replace(tmp, path)
    return True


def make_one(script: Path, cache: Path = DEFAULT_CACHE, force: bool = False) -> Made:
    """One figure, both languages: from the cache if its key is there, else drawn (and measured) now."""
    name, key, start = figure_name(script), cache_key(script), time.perf_counter()
    entry = cache / name / key
    found = None if force else _read_entry(entry)
    cached = found is not None
    if not cached:
        importlib.reload(style)  # helpers may have changed under a running `mkdocs serve`
        importlib.reload(lessons)
        module = load_script(script)
        timing = getattr(module, "TIMING", False)
        data_text = _measure_in_fresh_process(script) if timing else data_as_json(module)
        data = json.loads(data_text)
        svg = {lang: style.svg_bytes(module.draw(lang, data)) for lang in LANGS}
        with style.phone():
            svg.update({f"{lang}.phone": style.svg_bytes(style.fit_to_phone(module.draw(lang, data)))
                        for lang in LANGS})
        texts = {"alt": module.ALT, "caption": getattr(module, "CAPTION", {})}
        _write_entry(entry, svg, data_text, texts)
        found = svg, data, texts
    svg, data, texts = found
    return Made(name, script, key, {lang: svg[lang] for lang in LANGS}, data, texts["alt"], cached,
                time.perf_counter() - start, entry, texts["caption"],
                {lang: svg[f"{lang}.phone"] for lang in LANGS})


def generate(names=None, out: Path | None = None, cache: Path = DEFAULT_CACHE, force: bool = False,
             folder: Path = HERE, log=None) -> dict[str, Made]:
    """Make the figures (all, or those `names`) and publish them as out/<lang>/figures/<name>.svg.

    `out=None` (what the site build asks) publishes nothing: the build serves the cache entries. Raises
    FigureScriptError naming every script that raised; the other
    figures are still made and published first. Each figure is also published drawn for a phone, as
    out/<lang>/figures/<name>.phone.svg.
    """
    scripts = figure_scripts(folder)
    known = {figure_name(s): s for s in scripts}
    unknown = sorted(set(names or ()) - set(known))
    if unknown:
        raise FigureScriptError(f"no figure script for {unknown}; the figures are {sorted(known)}")
    made, failures = {}, []
    for name, script in known.items():
        if names and name not in names:
            continue
        try:
            result = make_one(script, cache, force)
        except Exception:
            failures.append(f"{script.relative_to(ROOT)} raised:\n{traceback.format_exc()}")
            continue
        made[name] = result
        if out is not None:
            for lang in LANGS:
                publish(Path(out) / lang / "figures" / f"{name}.svg", result.svg[lang])
                publish(Path(out) / lang / "figures" / f"{name}.phone.svg", result.phone[lang])
        if log:
            log(result)
    if failures:
        raise FigureScriptError("a figure script failed; fix it and build again.\n\n" + "\n".join(failures))
    if out is not None and not names:
        _remove_stale(Path(out), set(made))
    return made


def _remove_stale(out: Path, names: set[str]) -> None:
    """Figures whose script is gone (renamed, deleted) leave no stale file behind."""
    for lang in LANGS:
        for path in (out / lang / "figures").glob("*.svg"):
            if path.name.removesuffix(".svg").removesuffix(".phone") not in names:
                path.unlink()


def _print(result: Made) -> None:
    how = "from the cache" if result.cached else f"drawn in {result.seconds:.1f} s"
    print(f"\n{result.name} ({result.script.name}, {how})")
    for lang in LANGS:
        print(f"  ![{result.alt[lang]}](figures/{result.name}.svg)")
    for lang, caption in result.caption.items():
        print(f"  caption {lang}: {caption}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="figure names (default: all)")
    parser.add_argument("--force", action="store_true", help="ignore the cache")
    parser.add_argument("--out", type=Path, help="also write OUT/<lang>/figures/<name>.svg")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        generate(args.names or None, out=args.out, cache=args.cache, force=args.force, log=_print)
    except FigureScriptError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"\nall done in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
