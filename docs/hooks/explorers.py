"""Explorers: every build exports the data the interactive explorers show, and loads each one's script only
on the pages that have it.

Before the files are gathered, this hook runs each exporter under snippets/explorers/ (one per explorer: it
runs the page's own lesson code through culpa and writes every number for pt and en) and publishes
docs/assets/explorers/data/<name>.json (gitignored), which the explorer's script fetches when it scrolls
into view. Like docs/hooks/figures.py it is cached (.cache/explorers/<name>/<key>.json, keyed on the
exporter, the lessons it runs, the figure helpers and culpa's source) and writes a file only when its bytes
change, so the per-language builds and `mkdocs serve` reloads cost a few hashes.

Formulas: an exporter writes each formula as TeX with a slot for each number (explorers.formula,
`\\htmlData{slot=NAME}{0}`); `typeset(name, data)` renders every distinct TeX once with the site's KaTeX
(docs/hooks/katex_render.py, the renderer of every other formula), keeps KaTeX's HTML without its MathML
(the script labels each formula with its "say" text instead), lists the HTML in data["typeset"] and gives
each formula the index of its HTML. Every slot in the HTML must be filled, by the formula's own numbers or
by a name the script fills ("fills"), or the build fails naming the explorer and the TeX: no formula shows
a placeholder.

A page shows an explorer with a root element `<div data-explorer="NAME" ...>` wrapping its static figure
(the figure is what a reader without JavaScript sees). After the page is rendered, this hook adds
`<script defer src=".../assets/explorers/NAME.js">` for each explorer the page has, after start.js (the
shared starter). An unknown NAME, or an
exporter that raises, fails the build naming the page or the explorer.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import traceback
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

ROOT_ATTR = re.compile(r'<div\b[^>]*\bdata-explorer="([^"]*)"')
MATHML = re.compile(r'<span class="katex-mathml">.*?</math></span>', re.S)
SLOT = re.compile(r'data-slot="([^"]*)"')


def _katex():
    import importlib.util

    name = "explorers_katex_render"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("katex_render.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


def _formulas(value):
    """Every formula ({"tex": ...}) in an explorer's data, depth first."""
    if isinstance(value, dict):
        if "tex" in value:
            yield value
            return
        for item in value.values():
            yield from _formulas(item)
    elif isinstance(value, list):
        for item in value:
            yield from _formulas(item)


def typeset(name: str, data: dict) -> dict:
    """data with every formula's TeX rendered by KaTeX (data["typeset"], each formula's "typeset" index)."""
    render = _katex().render
    html, index = [], {}
    for entry in _formulas(data):
        tex = entry["tex"]
        if tex not in index:
            try:
                drawn = render(tex, False)
            except Exception as error:
                raise PluginError(f"explorers: a formula of {name!r} does not typeset: {error}") from None
            index[tex] = len(html)
            html.append(MATHML.sub("", drawn, count=1))
        slots = SLOT.findall(html[index[tex]])
        unfilled = sorted(set(slots) - set(entry["slots"]) - set(entry.get("fills", ())))
        unused = sorted(set(entry["slots"]) - set(slots))
        if unfilled or unused:
            raise PluginError(f"explorers: a formula of {name!r} has slots {unfilled} that nothing fills "
                              f"and numbers {unused} that no slot shows: {tex!r}")
        entry["typeset"] = index[tex]
    data["typeset"] = html
    return data


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def _explorers(root: Path):
    snippets = str(root / "snippets")
    if snippets not in sys.path:
        sys.path.insert(0, snippets)
    import explorers

    return explorers


def exported(root: Path, name: str) -> str:
    """The JSON text of explorer `name`: from the cache if its key is there, else exported now."""
    explorers = _explorers(root)
    key = explorers.cache_key(name)
    folder = root / ".cache" / "explorers" / name
    entry = folder / f"{key}.json"
    if entry.is_file():
        return entry.read_text(encoding="utf-8")
    data = explorers.module(name).export()
    text = explorers.to_json({**data, "key": key})
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.json"):  # one entry per explorer: older keys are of no further use
        old.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, entry)
    return text


def _publish(path: Path, content: bytes) -> None:
    if path.is_file() and path.read_bytes() == content:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(content)
    os.replace(tmp, path)


def on_pre_build(config):
    root = _root(config)
    explorers = _explorers(root)
    for name in explorers.NAMES:
        try:
            text = exported(root, name)
        except Exception:
            raise PluginError(f"explorers: the exporter of {name!r} (snippets/explorers/"
                              f"{name.replace('-', '_')}.py) raised:\n{traceback.format_exc()}") from None
        data = typeset(name, json.loads(text))
        _publish(Path(config.docs_dir) / "assets" / "explorers" / "data" / f"{name}.json",
                 _explorers(root).to_json(data).encode())


def on_post_page(output, page, config):
    names = list(dict.fromkeys(ROOT_ATTR.findall(output)))
    if not names:
        return output
    known = _explorers(_root(config)).NAMES
    unknown = [n for n in names if n not in known]
    if unknown:
        raise PluginError(f"explorers: {page.file.src_uri} asks for data-explorer={unknown}; the explorers "
                          f"are {list(known)}")
    tags = "".join(  # start.js first: each explorer's script calls it
        f'<script defer src="{get_relative_url(f"assets/explorers/{name}.js", page.url)}"></script>'
        for name in ["start", *names])
    return output.replace("</head>", tags + "</head>", 1)


def on_serve(server, config, builder):
    root = _root(config)
    for folder in ("snippets/explorers", "snippets/lessons"):
        server.watch(str(root / folder))
    return server
