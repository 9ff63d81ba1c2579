"""The labs: notebooks kept as text (docs/<lang>/labs/<name>.md, MyST), executed by the build, downloadable.

Sources (no build needed):
- every lab exists in both languages and in the navigation; pt and en have the same cells, identical code,
  the same sections, formulas and links; each links back to the lessons it extends;
- its first cell says in one line, in its language, how to install culpa; its first code cell installs
  culpa from this site (and matplotlib) only when one is missing, with one pip command, and imports culpa
  and numpy.
The built site (the session's `built_site`, and builds of their own where a test must break something):
- each lab page is the rendered notebook, with every output and figure, in both languages, its formulas
  typeset by KaTeX at build time, its figures described, nothing loaded from another host, a language
  switcher that leads to the same lab, and a download link, in the page's language, to the executed .ipynb;
- that .ipynb, run as a reader runs it (a fresh venv where culpa is missing, a fresh empty folder): its first
  cell installs culpa from the served site, and the lab runs top to bottom with nbclient;
- a cell that raises fails the build, which names the lab, the cell and its line;
- a second build with nothing changed executes no lab, and the cache key follows what changes outputs.
"""

from __future__ import annotations

import asyncio
import base64
import difflib
import json
import os
import re
import shutil
from html import unescape
from pathlib import Path

import jupytext
import nbformat
import pytest

from sitebuild.steps import notebooks
from support.pages import DOCS, LANGS, canonical_math, mkdocs_config
from support.reader_venv import (
    culpa_location,
    notebook_env,
    read_verdict,
    reader_venv,
    run_notebook_command,
)
from support.site import build_site, copy_project

# Each lab and the lessons it extends (it must link back to each).
LABS = {
    "measure-the-cost": ["01-a-billion-knobs.md"],
    "build-check-train": ["08-honest-habits.md", "09-training.md"],
    "memory-for-compute": ["07-memory.md"],
}
LAB_IDS = [f"{lang}/{name}" for lang in LANGS for name in LABS]
INSTALL = {"pt": "instale", "en": "install"}  # the first cell's instruction, in the page's language
DOWNLOAD_WORD = {"pt": "Baixar", "en": "Download"}
HEADING = re.compile(r"^(#{1,6})\s", re.M)
FORMULA = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$[^$\n]+?\$", re.S)
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def source(lab_id: str) -> Path:
    lang, name = lab_id.split("/")
    return DOCS / lang / "labs" / f"{name}.md"


def cells(lab_id: str):
    return jupytext.read(source(lab_id)).cells


def page_dir(site: Path, lab_id: str) -> Path:
    lang, name = lab_id.split("/")
    return site / ("" if lang == LANGS[0] else lang) / "labs" / name


def executed_download(site: Path, lab_id: str) -> Path:
    return page_dir(site, lab_id) / f"{lab_id.split('/')[1]}.ipynb"


# ---- the sources ------------------------------------------------------------------------------------


def test_every_lab_exists_in_both_languages_and_in_the_navigation():
    for lang in LANGS:
        found = sorted(p.stem for p in (DOCS / lang / "labs").glob("*.md"))
        assert found == sorted(LABS), f"docs/{lang}/labs/ holds {found}, expected {sorted(LABS)}"
    in_nav = json.dumps(mkdocs_config()["nav"])
    missing = [name for name in LABS if f"labs/{name}.md" not in in_nav]
    assert not missing, f"labs missing from mkdocs.yml's nav: {missing}"


@pytest.mark.parametrize("name", list(LABS))
def test_labs_match_across_languages(name):
    pt, en = cells(f"pt/{name}"), cells(f"en/{name}")

    def shape(notebook_cells, lang):
        prose = "\n".join(c.source for c in notebook_cells if c.cell_type == "markdown")
        return {
            "cell types, in order": [c.cell_type for c in notebook_cells],
            "code cells": [c.source for c in notebook_cells if c.cell_type == "code"],
            "heading levels": [len(h) for h in HEADING.findall(prose)],
            "formulas": [canonical_math(f, lang) for f in FORMULA.findall(re.sub(r"`[^`]*`", "", prose))],
            "links (without #anchor)": [link.split("#")[0] for link in MD_LINK.findall(prose)],
        }

    pt_shape, en_shape = shape(pt, "pt"), shape(en, "en")
    for n, (a, b) in enumerate(zip(pt_shape["code cells"], en_shape["code cells"], strict=False), start=1):
        diff = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), "pt", "en", lineterm=""))
        assert a == b, f"{name}: code cell {n} differs between pt and en (code is shared):\n{diff}"
    for key in pt_shape:
        assert pt_shape[key] == en_shape[key], (
            f"docs/pt/labs/{name}.md and docs/en/labs/{name}.md differ in their {key}:\n"
            f"  pt: {pt_shape[key]}\n  en: {en_shape[key]}"
        )


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_lab_links_back_to_the_lessons_it_extends(lab_id):
    lang, name = lab_id.split("/")
    prose = "\n".join(c.source for c in cells(lab_id) if c.cell_type == "markdown")
    links = {link.split("#")[0] for link in MD_LINK.findall(prose)}
    for lesson in LABS[name]:
        assert f"../{lesson}" in links, f"{source(lab_id)} does not link back to ../{lesson}"
        assert (DOCS / lang / lesson).is_file(), f"{source(lab_id)} extends a lesson that does not exist"


# A number in the prose, written the language's way: en 0.5 and 1,024; pt 0,5 and 1.024 (CONTENT.md).
NUMBER = re.compile(r"(?<![\w.,])\d[\d.,]*\d(?![\w])|(?<![\w.,])\d(?![\w.,])")
NUMBER_FORMAT = {
    "en": re.compile(r"^\d{1,3}(,\d{3})*(\.\d+)?$"),
    "pt": re.compile(r"^\d{1,3}(\.\d{3})*(,\d+)?$"),
}
NOT_PROSE = re.compile(r"`[^`]*`|\$\$.+?\$\$|\$[^$\n]+\$|\]\([^)]*\)|<[^>]+>", re.S)


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_numbers_in_lab_prose_follow_the_language(lab_id):
    lang = lab_id.split("/")[0]
    prose = "\n".join(c.source for c in cells(lab_id) if c.cell_type == "markdown")
    numbers = NUMBER.findall(NOT_PROSE.sub(" ", prose))
    wrong = [n for n in numbers if not NUMBER_FORMAT[lang].match(n)]
    assert not wrong, (
        f"{source(lab_id)}: numbers not written the '{lang}' way (en 0.5 and 1,024, pt 0,5 and 1.024; "
        f"code and math keep the program's form): {wrong}"
    )


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_first_cell_says_in_one_line_how_to_install(lab_id):
    lang = lab_id.split("/")[0]
    first = cells(lab_id)[0]
    assert first.cell_type == "markdown", f"{source(lab_id)}: the first cell must be Markdown"
    lines = [line for line in first.source.splitlines() if line.strip()]
    assert len(lines) == 2 and lines[0].startswith("# "), (
        f"{source(lab_id)}: the first cell must be the title and one line on how to install culpa, "
        f"got {lines}"
    )
    instruction = lines[1]
    assert INSTALL[lang] in instruction and "culpa" in instruction and "pip install" in instruction, (
        f"{source(lab_id)}: the first cell's line must tell, in '{lang}', how to install culpa "
        f"(with the pip command): {instruction!r}"
    )


@pytest.mark.parametrize("lab_id", LAB_IDS)
@pytest.mark.parametrize("missing", [None, "culpa", "matplotlib"])
def test_first_code_cell_installs_from_this_site_only_what_is_missing(lab_id, missing, monkeypatch):
    """The first code cell is the lesson's, not plumbing: one pip command (culpa's wheel from this site, and
    matplotlib), run only when one of them is missing, then the imports. The served install itself is
    tests/test_wheel.py's."""
    import importlib.util

    from IPython.core.inputtransformer2 import TransformerManager

    code_cell = next(c for c in cells(lab_id) if c.cell_type == "code")
    lines = [line for line in code_cell.source.splitlines() if line.strip()]
    pips = [line for line in lines if "pip install" in line]
    assert len(lines) <= 7 and len(pips) == 1 and "{wheel}" in pips[0], (
        f"{source(lab_id)}: the first code cell must be a short install/import cell with one pip command "
        f"for this site's wheel (`wheel`, from @CULPA_SITE_URL@ and @CULPA_WHEEL_NAME@, filled in by "
        f"sitebuild/steps/wheel.py); it is {lines}"
    )
    code = TransformerManager().transform_cell(code_cell.source)  # %pip becomes get_ipython().run_line_magic
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == missing else real(name, *a)
    )
    calls = []

    class Shell:
        def run_line_magic(self, name, line):
            calls.append((name, line))

    namespace = {"get_ipython": Shell}
    exec(compile(code, f"{source(lab_id)}, first code cell", "exec"), namespace)
    pip = ("pip", "install --quiet {wheel} matplotlib")  # IPython puts the variable's value in {wheel}
    assert calls == ([] if missing is None else [pip]), (
        f"{source(lab_id)}: with {missing or 'nothing'} missing the first code cell ran {calls}"
    )
    assert namespace["wheel"] == "@CULPA_SITE_URL@culpa/@CULPA_WHEEL_NAME@", namespace["wheel"]
    assert namespace["culpa"].__name__ == "culpa" and namespace["np"].__name__ == "numpy"


# The longest address the first cell will hold: a Pages site of an owner with a long name.
PAGES_SITE = "https://a-rather-long-owner-name.github.io/backprop-visualized/"


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_first_code_cell_fits_80_columns_with_the_pages_address(lab_id):
    """A reader who downloads the notebook reads its first cell in any editor: with the Pages address and
    the wheel's name filled in (sitebuild/steps/wheel.py), no line passes 80 columns."""
    from sitebuild.steps.wheel import wheel_name
    from support.pages import ROOT

    code_cell = next(c for c in cells(lab_id) if c.cell_type == "code")
    filled = (code_cell.source.replace("@CULPA_SITE_URL@", PAGES_SITE)
              .replace("@CULPA_WHEEL_NAME@", wheel_name(ROOT)))
    long = [line for line in filled.splitlines() if len(line) > 80]
    assert not long, f"{source(lab_id)}: lines over 80 columns with the Pages address filled in: {long}"


# ---- the built pages --------------------------------------------------------------------------------


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_no_lab_cell_printed_to_stderr(built_site, lab_id):
    """What a lab's cells print to stderr is noise a reader should never see on the page (matplotlib's
    "findfont" lines, when its font list was written by another install: sitebuild/__init__.py keeps the
    build's own); the labs print their results to stdout."""
    import nbformat

    notebook = nbformat.read(executed_download(built_site, lab_id), as_version=4)
    noise = [(k, "".join(o.get("text", ""))[:120]) for k, cell in enumerate(notebook.cells)
             for o in cell.get("outputs", []) if o.get("name") == "stderr"]
    assert not noise, f"{source(lab_id)}: cells printed to stderr (cell index, text): {noise[:3]}"


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_lab_page_is_the_rendered_notebook_with_outputs_and_figures(built_site, lab_id):
    page = page_dir(built_site, lab_id) / "index.html"
    assert page.is_file(), f"no page for {source(lab_id)} at {page.relative_to(built_site)}"
    html = page.read_text(encoding="utf-8")
    assert "{code-cell}" not in html and "jupytext:" not in html, f"{page}: shows the lab's source text"
    executed = nbformat.read(executed_download(built_site, lab_id), as_version=4)
    code = [c for c in executed.cells if c.cell_type == "code"]
    shown = re.findall(r'class="jp-Cell jp-CodeCell[^"]*" id="cell-id=', html)
    assert len(shown) == len(code), f"{page}: shows {len(shown)} code cells, the lab has {len(code)}"
    printed = [o.text for c in code for o in c.outputs if o.output_type == "stream" and o.text.strip()]
    figures = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
    assert printed and figures, f"{source(lab_id)}: a lab prints and draws something"
    text = unescape(re.sub(r"<[^>]+>", "", html))
    for out in printed:
        first_line = out.strip().splitlines()[0]
        assert first_line in text, f"{page}: the output {first_line!r} is not on the page"
    images = [dict(re.findall(r'(\w+)="([^"]*)"', tag)) for tag in re.findall(r"<img\b[^>]*>", html)]
    # sitebuild/steps/notebooks.py moves each embedded figure into a PNG file next to the page
    shown = [(i["src"], i.get("alt", "")) for i in images if i.get("src", "").endswith(".png")]
    assert [(page.parent / src).read_bytes() for src, _ in shown] == [
        base64.b64decode(f.data["image/png"]) for f in figures
    ], f"{page}: the page does not show the notebook's figures, in order"
    generic = [alt for _, alt in shown if not alt or alt.startswith("No description")]
    assert not generic, f"{page}: figures without the lab's own description: {generic}"


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_lab_formulas_are_typeset_at_build_time(built_site, lab_id):
    """Every formula of the lab's Markdown cells is KaTeX HTML in the page (steps/katex_render.py)."""
    html = (page_dir(built_site, lab_id) / "index.html").read_text(encoding="utf-8")
    typeset = [unescape(t).strip() for t in re.findall(
        r'<annotation encoding="application/x-tex">(.*?)</annotation>', html, re.S)]
    prose = "\n".join(c.source for c in cells(lab_id) if c.cell_type == "markdown")
    formulas = [f.strip("$").strip() for f in FORMULA.findall(re.sub(r"`[^`]*`", "", prose))]
    assert formulas, f"{source(lab_id)}: a lab explains with at least one formula"
    missing = [f for f in formulas if f not in typeset]
    assert not missing, f"{lab_id}: formulas of the notebook's Markdown cells not typeset by KaTeX: {missing}"


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_lab_page_loads_nothing_from_other_hosts(built_site, lab_id):
    html = (page_dir(built_site, lab_id) / "index.html").read_text(encoding="utf-8")
    for m in re.finditer(r"<script\b([^>]*)>(.*?)</script>", html, re.S | re.I):
        attrs, body = m.group(1), m.group(2)
        src = re.search(r"""\bsrc\s*=\s*["']([^"']*)["']""", attrs)
        assert src is None or (src.group(1).strip() and "//" not in src.group(1)), (
            f"{lab_id}: a script with src={src.group(1)!r}: empty or from another host"
        )
        assert not re.search(r"""["'`](?:https?:)?//""", body), (
            f"{lab_id}: an inline script reaches another host: {body.strip()[:200]!r}"
        )
    for word in ("cdnjs", "mathjax.js", "mermaid.esm"):
        assert word not in html, f"{lab_id}: the page still references {word}"


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_language_switcher_leads_to_the_same_lab(built_site, lab_id):
    lang, name = lab_id.split("/")
    here = page_dir(built_site, lab_id)
    html = (here / "index.html").read_text(encoding="utf-8")
    for other in LANGS:
        link = re.search(rf'<a href="([^"]+)" hreflang="{other}"', html)
        assert link, f"{lab_id}: no language switcher entry for '{other}'"
        target = (here / link.group(1)).resolve()
        assert target == page_dir(built_site, f"{other}/{name}").resolve(), (
            f"{lab_id}: the switcher's '{other}' entry leads to {target}, not to the same lab"
        )


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_download_link_gives_the_executed_notebook_in_the_page_language(built_site, lab_id):
    lang = lab_id.split("/")[0]
    here = page_dir(built_site, lab_id)
    html = (here / "index.html").read_text(encoding="utf-8")
    link = re.search(r'<a [^>]*href="([^"]+\.ipynb)"[^>]*\bdownload\b[^>]*>([^<]+)</a>', html)
    assert link, f"{lab_id}: no download link to an .ipynb on the page"
    assert DOWNLOAD_WORD[lang] in link.group(2), f"{lab_id}: the download link is not in '{lang}'"
    download = (here / link.group(1)).resolve()
    assert download == executed_download(built_site, lab_id).resolve() and download.is_file()
    notebook = nbformat.read(download, as_version=4)
    nbformat.validate(notebook)
    title = cells(lab_id)[0].source.splitlines()[0]
    assert notebook.cells[0].source.splitlines()[0] == title, f"{download}: not the '{lang}' notebook"
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), f"{download}: not every code cell was executed"
    assert any(c.outputs for c in code), f"{download}: the notebook has no outputs"
    assert "jupytext" not in notebook.metadata, f"{download}: still paired with its text source"
    for c in notebook.cells:
        for target in MD_LINK.findall(c.source) if c.cell_type == "markdown" else []:
            assert re.match(r"https?://", target), (
                f"{download}: the link {target!r} would not work on the reader's machine"
            )


def _code_cells(path: Path) -> tuple[str, ...]:
    return tuple(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")


@pytest.fixture(scope="module")
def downloads_run(served_site, tmp_path_factory) -> dict[str, dict]:
    """Run every lab's downloaded notebook as a reader would, two at a time: in a fresh venv where culpa is
    missing (support/reader_venv.py: Jupyter, numpy and matplotlib borrowed), from a fresh empty folder, so
    that its first cell installs culpa from the served site. A download whose code cells are another's, cell
    for cell (a lab's pt and en notebooks: a kernel executes only the code), is not run again. For each lab:
    the download that ran its code, what failed (or None), its first code cell, where culpa came from."""
    site = served_site.dir
    code = {lab_id: _code_cells(executed_download(site, lab_id)) for lab_id in LAB_IDS}
    first = {}  # code cells -> the first lab that has them
    for lab_id in LAB_IDS:
        first.setdefault(code[lab_id], lab_id)

    async def run_all():
        gate = asyncio.Semaphore(2)

        async def one(lab_id):
            async with gate:
                home = tmp_path_factory.mktemp("reader")
                python = await asyncio.to_thread(reader_venv, home / "venv", True)
                work = home / "work"
                work.mkdir()
                notebook = shutil.copy(executed_download(site, lab_id), work)
                verdict = home / "verdict.json"
                proc = await asyncio.create_subprocess_exec(
                    *run_notebook_command(python, Path(notebook), verdict), cwd=work, env=notebook_env(),
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
                _, stderr = await asyncio.wait_for(proc.communicate(), timeout=1200)
                result = read_verdict(verdict, stderr.decode(errors="replace"))
                result["culpa"] = await asyncio.to_thread(culpa_location, python, work)
                result["venv"] = str(home / "venv")
            return lab_id, result

        return dict(await asyncio.gather(*(one(lab_id) for lab_id in first.values())))

    results = asyncio.run(run_all())
    return {lab_id: {"ran": first[code[lab_id]], **results[first[code[lab_id]]]} for lab_id in LAB_IDS}


@pytest.mark.parametrize("lab_id", LAB_IDS)
@pytest.mark.slow
def test_downloaded_notebook_runs_top_to_bottom_in_a_fresh_folder(downloads_run, lab_id):
    run = downloads_run[lab_id]
    assert run["failure"] is None, (
        f"the downloaded notebook of {source(lab_id)} fails in a fresh folder and venv (run as "
        f"{run['ran']}'s, which has the same code cells): {run['failure']}"
    )


@pytest.mark.parametrize("lab_id", LAB_IDS)
@pytest.mark.slow
def test_a_downloaded_labs_first_cell_installs_culpa_from_the_site(downloads_run, served_site, lab_id):
    run = downloads_run[lab_id]
    assert f'site = "{served_site.base}"' in run["first_code_cell"], (
        f"{run['ran']}: the downloaded notebook's first cell installs from elsewhere:\n"
        f"{run['first_code_cell']}"
    )
    assert run["culpa"].startswith(run["venv"]), (
        f"{run['ran']}: after its first cell, culpa came from {run['culpa']}, not the reader's venv"
    )


# ---- execution at build time: failures and the cache ------------------------------------------------


@pytest.mark.slow
def test_a_cell_that_raises_fails_the_build_naming_the_lab_and_the_cell(built_site, tmp_path):
    project = copy_project(tmp_path / "project")
    lab = project / "docs" / "en" / "labs" / "measure-the-cost.md"
    text = lab.read_text(encoding="utf-8")
    fences = notebooks.code_cell_lines(text)
    lines = text.splitlines(keepends=True)
    at = fences[1] - 1  # the planted cell becomes the second code cell
    planted = "```{code-cell} ipython3\nraise RuntimeError('planted by test_labs')\n```\n\n"
    lab.write_text("".join(lines[:at]) + planted + "".join(lines[at:]), encoding="utf-8")
    proc = build_site(tmp_path / "site", project=project)
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"the build passed although a cell of a lab raises:\n{log[-3000:]}"
    expected = f"docs/en/labs/measure-the-cost.md failed in code cell 2 (line {at + 1})"
    assert expected in log and "RuntimeError: planted by test_labs" in log, (
        f"the build failed without naming the lab, the cell and the error ({expected!r}):\n{log[-3000:]}"
    )


@pytest.mark.slow
def test_a_second_build_executes_no_lab(rebuilds):
    """A build of a copy of the project whose lab caches are current (support/rebuilds.py: `again`)."""
    assert set(rebuilds.again.lab_keys) == set(LAB_IDS)
    ran = re.findall(r"labs: executed (\S+)", rebuilds.again.log)
    assert not ran, f"a second build with nothing changed executed labs again: {ran}"
    assert rebuilds.again.executed_mtimes == rebuilds.before.executed_mtimes, (
        "a second build with nothing changed rewrote executed notebooks")
    assert (page_dir(rebuilds.again.site, LAB_IDS[0]) / "index.html").is_file()


KERNEL_TRANSPORT_LAB = """---
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# The kernel's transport

```{code-cell} ipython3
from ipykernel.kernelapp import IPKernelApp
print(IPKernelApp.instance().transport)
```
"""


@pytest.mark.skipif(os.name == "nt", reason="Windows has no Unix sockets: its kernels keep TCP")
def test_a_labs_kernel_talks_to_the_build_over_unix_sockets(tmp_path):
    """notebooks.kernel_sockets: over TCP a port picked for the kernel can be taken before it binds it."""
    source = tmp_path / "docs" / "en" / "labs" / "transport.md"
    source.parent.mkdir(parents=True)
    source.write_text(KERNEL_TRANSPORT_LAB, encoding="utf-8")
    lab = notebooks.Lab(source=source, lang="en", name="transport", cache=tmp_path / "cache")
    executed = asyncio.run(notebooks.execute(lab))
    printed = "".join(o.get("text", "") for c in executed.cells if c.cell_type == "code" for o in c.outputs)
    assert printed.strip() == "ipc", f"the lab's kernel said its transport is {printed.strip()!r}, not ipc"


@pytest.mark.skipif(os.name == "nt", reason="Windows has no Unix sockets: its kernels keep TCP")
@pytest.mark.slow
def test_a_downloaded_notebooks_kernel_runs_over_unix_sockets(downloads_run):
    """The reader's runner (support/reader_venv.py) starts its kernels as the build does."""
    transports = {run["ran"]: run.get("transport") for run in downloads_run.values()}
    assert set(transports.values()) == {"ipc"}, f"the downloads' kernels ran over {transports}"


def test_cache_key_follows_everything_that_changes_outputs(tmp_path, monkeypatch):
    lab = tmp_path / "lab.md"
    shutil.copy(source(LAB_IDS[0]), lab)
    base = notebooks.cache_key(lab)
    assert notebooks.cache_key(lab) == base, "the key is not stable"

    lab.write_text(lab.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert notebooks.cache_key(lab) != base, "editing the lab does not change its key"
    shutil.copy(source(LAB_IDS[0]), lab)

    engine = [tmp_path / p.name for p in notebooks.culpa_sources()]
    for original, copy in zip(notebooks.culpa_sources(), engine, strict=True):
        shutil.copy(original, copy)
    monkeypatch.setattr(notebooks, "culpa_sources", lambda: engine)
    assert notebooks.cache_key(lab) == base
    engine[0].write_text(engine[0].read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert notebooks.cache_key(lab) != base, "changing culpa's source does not change the key"
    monkeypatch.undo()

    hook = tmp_path / "notebooks.py"
    hook.write_text(Path(notebooks.__file__).read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    monkeypatch.setattr(notebooks, "__file__", str(hook))
    assert notebooks.cache_key(lab) != base, "changing how labs are executed does not change the key"
    monkeypatch.undo()

    monkeypatch.setattr(notebooks, "versions", lambda: {"numpy": "0.0"})
    assert notebooks.cache_key(lab) != base, "another numpy (Python, matplotlib...) does not change the key"
