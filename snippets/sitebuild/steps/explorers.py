"""Explorers: every build exports the data the interactive explorers show, and loads each one's script only
on the pages that have it.

Before the files are gathered, this step runs each exporter under sitebuild/explorers/ (one per explorer:
it runs the page's own lesson code through culpa and writes every number for pt and en), and on_files serves
the result as assets/explorers/data/<name>.json (nothing is written under docs/), which the explorer's script
fetches when it scrolls into view. Like the figures it is cached (.cache/explorers/<name>/<key>.json, keyed
on the exporter, the lessons it runs, the helpers and culpa's source), so the per-language builds and
`mkdocs serve` reloads cost a few hashes.

Formulas: an exporter writes each formula as TeX with a slot for each number (explorers.formula,
`\\htmlData{slot=NAME}{0}`); `typeset(name, data)` renders every distinct TeX once with the site's KaTeX
(sitebuild/steps/katex_render.py, the renderer of every other formula), keeps KaTeX's HTML without its MathML
(the script labels each formula with its "say" text instead), lists the HTML in data["typeset"] and gives
each formula the index of its HTML. Every slot in the HTML must be filled, by the formula's own numbers or
by a name the script fills ("fills"), or the build fails naming the explorer and the TeX: no formula shows
a placeholder.

The reader's numbers: the same exporters run in the reader's browser (Pyodide, started by start.js on the
reader's first change), so on_files also serves them, the modules they import and the lessons they run,
under assets/explorers/py/ (as in snippets/: sitebuild/..., lessons/...) with manifest.json listing them;
each explorer's root gets data-wheel, culpa's wheel's path from the site's root, as Run's config has it.

A page shows an explorer with a root element `<div data-explorer="NAME" ...>` wrapping its static figure
(the figure is what a reader without JavaScript sees). After the page is rendered, this step writes the
explorer's words, the table [explorer-NAME] of the page's language in sitebuild/strings/, on that root as
data-t-* attributes (`stepForward` becomes `data-t-step-forward`, which the script reads back as
t.stepForward), and adds `<script defer src=".../assets/explorers/NAME.js">` for each explorer the page has,
after start.js (the shared starter). An unknown NAME, an explorer without words in the page's language, or an
exporter that raises, fails the build naming the page or the explorer.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import traceback
from html import escape
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from sitebuild import explorers, strings
from sitebuild.project import Project, page_language
from sitebuild.steps.katex_render import render

ROOT_ATTR = re.compile(r'<div\b[^>]*\bdata-explorer="([^"]*)"')
ROOT_TAG = re.compile(r'<div\b[^>]*\bdata-explorer="([^"]*)"[^>]*>')
CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")
MATHML = re.compile(r'<span class="katex-mathml">.*?</math></span>', re.S)
SLOT = re.compile(r'data-slot="([^"]*)"')


def typeset(name: str, data: dict) -> dict:
    """data with every formula's TeX rendered by KaTeX (data["typeset"], each formula's "typeset" index)."""
    html, index = [], {}
    for entry in explorers.formulas(data):
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


def exported(project: Project, name: str) -> str:
    """The JSON text of explorer `name`: from the cache if its key is there, else exported now."""
    key = explorers.cache_key(name)
    folder = project.cache("explorers") / name
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


class Explorers:
    def __init__(self, project: Project):
        self.project = project
        self.data: dict[str, bytes] = {}  # name -> the JSON the site serves

    def export(self) -> None:
        for name in explorers.NAMES:
            try:
                text = exported(self.project, name)
            except Exception:
                raise PluginError(f"explorers: the exporter of {name!r} (snippets/sitebuild/explorers/"
                                  f"{name.replace('-', '_')}.py) raised:\n{traceback.format_exc()}") from None
            self.data[name] = explorers.to_json(typeset(name, json.loads(text))).encode()

    def add_files(self, files, config, lang: str) -> None:
        """assets/explorers/data/<name>.json and assets/explorers/py/, once, with the site's other assets: in
        the default language's build (the i18n plugin copies docs/assets/ there only; every language's pages
        load them from there)."""
        default = config.plugins["i18n"].default_language if "i18n" in config.plugins else lang
        if lang != default:
            return
        for name, content in self.data.items():
            _replace(files, File.generated(config, f"assets/explorers/data/{name}.json", content=content))
        served = in_page_sources(self.project)
        for path, source in served.items():
            _replace(files, File.generated(config, f"assets/explorers/py/{path}", content=source))
        manifest = json.dumps({"files": sorted(served)}).encode()
        _replace(files, File.generated(config, "assets/explorers/py/manifest.json", content=manifest))

    def load_scripts(self, output: str, page, wheel: str) -> str:
        """Each explorer's script on the pages that have it; `wheel`, culpa's wheel's path from the site's
        root, on each explorer's root (its Python in the page installs it)."""
        names = list(dict.fromkeys(ROOT_ATTR.findall(output)))
        if not names:
            return output
        unknown = [n for n in names if n not in explorers.NAMES]
        if unknown:
            raise PluginError(f"explorers: {page.file.src_uri} asks for data-explorer={unknown}; the "
                              f"explorers are {list(explorers.NAMES)}")
        lang = page_language(page)
        wheel_attr = f' data-wheel="{escape(wheel, quote=True)}"'
        output = ROOT_TAG.sub(lambda m: m.group(0)[:-1] + words(m.group(1), lang) + wheel_attr + ">", output)
        tags = "".join(  # start.js first: each explorer's script calls it
            f'<script defer src="{get_relative_url(f"assets/explorers/{name}.js", page.url)}"></script>'
            for name in ["start", *names])
        return output.replace("</head>", tags + "</head>", 1)


def in_page_sources(project: Project) -> dict[str, bytes]:
    """What the explorers' Python in the page imports and runs, by its path under snippets/: the package's
    number and lesson helpers, the exporters, and the lessons their INPUTS name; and the same for the
    checked exercises (sitebuild/exercises.py, lessons/exercises/, the strings of their verdicts)."""
    snippets = project.snippets
    modules = ["sitebuild/__init__.py", "sitebuild/project.py", "sitebuild/numbers.py",
               "sitebuild/lessons.py", "sitebuild/explorers/__init__.py", "sitebuild/explorers/in_page.py",
               "sitebuild/explorers/code_graph.py"]  # the graph of a block's own code (assets/run/graph.js)
    for name in explorers.NAMES:
        script = f"sitebuild/explorers/{name.replace('-', '_')}.py"
        modules.append(script)
        inputs = explorers.declared_inputs(snippets / script)
        modules += [str(Path(path).relative_to("snippets")) for path in inputs]
    # checked exercises (sitebuild/steps/exercises.py) come the same way, with the words of their verdicts
    modules += ["sitebuild/exercises.py", "sitebuild/strings/__init__.py", "sitebuild/strings/pt.toml",
                "sitebuild/strings/en.toml"]
    for script in sorted((snippets / "lessons" / "exercises").glob("*.py")):
        modules.append(str(script.relative_to(snippets)))
        modules += [str(Path(path).relative_to("snippets")) for path in explorers.declared_inputs(script)]
    return {path: (snippets / path).read_bytes() for path in dict.fromkeys(modules)}


def words(name: str, lang: str) -> str:
    """The explorer's words in `lang` as data-t-* attributes (each with a leading space), from
    sitebuild/strings/."""
    table = strings.of(lang).get(f"explorer-{name}")
    if not table:
        raise PluginError(f"explorers: no words for explorer {name!r} in "
                          f"snippets/sitebuild/strings/{lang}.toml (a table [explorer-{name}])")
    return "".join(f' data-t-{_kebab(key)}="{escape(text, quote=True)}"' for key, text in table.items())


def _kebab(key: str) -> str:
    """stepForward -> step-forward: the attribute the browser reads back as dataset.tStepForward."""
    return CAMEL.sub(lambda m: "-" + m.group(1).lower(), key)


def _replace(files, file) -> None:
    """Add `file`; a leftover of an older build under docs/ with its name (once written there) is dropped."""
    stale = files.get_file_from_path(file.src_uri)
    if stale is not None:
        files.remove(stale)
    files.append(file)
