"""Explorers: every build exports the data the interactive explorers show, and loads each one's script only
on the pages that have it.

Before the files are gathered, this hook runs each exporter under snippets/explorers/ (one per explorer: it
runs the page's own lesson code through culpa and writes every number for pt and en) and publishes
docs/assets/explorers/data/<name>.json (gitignored), which the explorer's script fetches when it scrolls
into view. Like docs/hooks/figures.py it is cached (.cache/explorers/<name>/<key>.json, keyed on the
exporter, the lessons it runs, the figure helpers and culpa's source) and writes a file only when its bytes
change, so the per-language builds and `mkdocs serve` reloads cost a few hashes.

A page shows an explorer with a root element `<div data-explorer="NAME" ...>` wrapping its static figure
(the figure is what a reader without JavaScript sees). After the page is rendered, this hook adds
`<script defer src=".../assets/explorers/NAME.js">` for each explorer the page has, after start.js (the
shared starter). An unknown NAME, or an
exporter that raises, fails the build naming the page or the explorer.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import traceback
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

ROOT_ATTR = re.compile(r'<div\b[^>]*\bdata-explorer="([^"]*)"')


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
        _publish(Path(config.docs_dir) / "assets" / "explorers" / "data" / f"{name}.json", text.encode())


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
