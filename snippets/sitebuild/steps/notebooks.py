"""Labs: notebooks kept as text, executed by the build, rendered by mkdocs-jupyter, downloadable with outputs.

A lab is docs/<lang>/labs/<name>.md, a MyST-markdown notebook (jupytext front matter with a python
kernelspec, code in ```{code-cell} ipython3 fences), one file per language with the same name and the same
code cells (tests/test_labs.py). For mkdocs and the i18n plugin it is an ordinary page: navigation,
language switcher, search and sitemap work as for a lesson. This step makes mkdocs-jupyter show the lab
executed, with its outputs and figures:

1. on_pre_build executes every lab of every language with nbclient, top to bottom, in a fresh empty folder,
   in a kernel of this Python. A cell that raises fails the build with the lab's file, the cell, its line
   and its traceback (mkdocs-jupyter's own execution would build a page showing the error and exit 0).
   The executed notebook is cached as .cache/labs/<lang>/<name>.ipynb, next to <name>.json with the key it
   was made from: a hash of the lab's text, culpa's source, this file and the versions of Python and of the
   libraries that run it. A build whose keys all match executes nothing; the i18n plugin runs one build
   per language, and the second one finds every lab fresh. On a cold cache, LABS_JOBS labs (default 2)
   run at a time, and a lab whose code cells are another stale lab's, cell for cell (its other language's
   page), is not executed again: it is given the outputs of the one executed (a kernel runs only the code).
   Before the lab's first cell, the kernel is given sitebuild/lab_phone.py's formatter:
   every figure a cell shows is drawn a second time, for a phone, from the same figure. The build takes
   those drawings out of the executed notebook (its outputs are then exactly what the cells made) and caches
   them as <name>.phone-<n>.png; a figure without one fails the build.
2. on_pre_page points the page's source at the executed .ipynb, so that mkdocs-jupyter (execute: false)
   renders it; on_page_read_source keeps the lab's text as the page's Markdown for the other steps.
3. on_page_content turns links to pages (`../01-a-billion-knobs.md`) into their URLs, as on any page, removes
   what nbconvert's template loads from other hosts (MathJax and mermaid from a CDN, an empty `<script
   src="">`: the katex_render step typesets the math at build time), replaces its ~590 KB of inlined
   JupyterLab CSS by the few rules the cells use (notebook.css, beside this file), gives each figure the alt
   text of its code cell (YAML metadata `alt:` after the cell's fence, in the page's language; a figure
   without one fails the build), writes each figure to a PNG file next to the page, served as a <picture>
   whose source gives narrow screens its phone drawing (as the chapter's figures do: steps/figures.py), adds
   a download link in the page's language, and writes the executed notebook next to the page as
   <name>.ipynb, its page links made absolute (site_url) so that they work on the reader's machine.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import itertools
import json
import logging
import os
import posixpath
import re
import tempfile
import time
from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import urljoin

from mkdocs.exceptions import PluginError

from sitebuild import lab_phone, project, strings
from sitebuild.project import Project
from sitebuild.steps import page_code
from sitebuild.steps.figures import PHONE_MEDIA

log = logging.getLogger("mkdocs.plugins.sitebuild.notebooks")

KERNEL = "python3"
CELL_TIMEOUT = 300  # seconds; a lab is meant to run in well under 20 s
JOBS = int(os.environ.get("LABS_JOBS", "2"))  # labs executed at the same time on a cold cache
VERSIONS_OF = ("numpy", "matplotlib", "ipykernel", "nbclient", "nbformat", "jupytext")
# The kernel: the pinned environment of anything that measures time (sitebuild/project.py), matplotlib's
# inline backend (never a MPLBACKEND inherited from the tests), nothing importable but what is installed.
KERNEL_ENV = project.PINNED_ENV
KERNEL_ENV_DROP = ("MPLBACKEND", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME")
CODE_CELL_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*\{code-cell\}")
PAGE_LINK_HTML = re.compile(r"""href="(?P<target>[^"#:?]+\.md)(?P<fragment>#[^"]*)?\"""")
PAGE_LINK_MD = re.compile(r"\]\((?P<target>[^)\s#:?]+\.md)(?P<fragment>#[^)\s]*)?\)")
SCRIPT = re.compile(r"<script\b(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S | re.I)
NBCONVERT_ALT = 'alt="No description has been provided for this image"'  # nbconvert's stand-in
MATHJAX_COMMENTS = re.compile(
    r"<!-- (?:Load mathjax|MathJax configuration|End of mathjax configuration"
    r"|End of mermaid configuration) -->"
)
STYLE = re.compile(r"<style\b[^>]*>.*?</style>\s*", re.S | re.I)
NOTEBOOK_CSS = Path(__file__).with_name("notebook.css")
RENDERER_VERSIONS = ("mkdocs-jupyter", "nbconvert", "pygments", "mistune", "jupyterlab_pygments")


class LabError(PluginError):
    """A lab that cannot be built: the message names its file and what is wrong (a cell: line, traceback)."""


@dataclass(frozen=True)
class Lab:
    source: Path  # docs/<lang>/labs/<name>.md
    lang: str
    name: str
    cache: Path  # .cache/labs

    @property
    def executed(self) -> Path:
        return self.cache / self.lang / f"{self.name}.ipynb"

    @property
    def stamp(self) -> Path:
        return self.cache / self.lang / f"{self.name}.json"

    @property
    def label(self) -> str:
        return f"docs/{self.lang}/labs/{self.name}.md"

    def phone_drawing(self, number: int) -> Path:
        """The phone drawing of the lab's figure `number` (1, 2, ... in the order the page shows them)."""
        return self.cache / self.lang / f"{self.name}.phone-{number}.png"


# ---- finding, keying and executing labs -------------------------------------------------------------


def find_labs(docs_dir: Path, cache: Path) -> list[Lab]:
    labs = []
    for source in sorted(Path(docs_dir).glob("*/labs/*.md")):
        labs.append(Lab(source=source, lang=source.parent.parent.name, name=source.stem, cache=cache))
    return labs


def versions() -> dict[str, str]:
    return project.versions(*VERSIONS_OF)


def culpa_sources() -> list[Path]:
    return project.culpa_sources()


def cache_key(source: Path) -> str:
    """A hash of everything that changes what a lab prints and draws."""
    files = [source, Path(__file__), Path(lab_phone.__file__), *culpa_sources()]
    return project.content_key(files, json.dumps(versions(), sort_keys=True))


def is_fresh(lab: Lab, key: str) -> bool:
    try:
        stamp = json.loads(lab.stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    phones = range(1, stamp.get("phone_drawings", 0) + 1)
    return (
        stamp.get("key") == key
        and lab.executed.is_file()
        and all(lab.phone_drawing(n).is_file() for n in phones)
    )


def code_cell_lines(text: str) -> list[int]:
    """Line (1-based) of the fence that opens each code cell of a MyST notebook, in order."""
    return [n for n, line in enumerate(text.splitlines(), start=1) if CODE_CELL_FENCE.match(line)]


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def read_lab(source: Path):
    import jupytext

    notebook = jupytext.read(source)
    notebook.metadata.pop("jupytext", None)  # the download is a plain notebook, paired with nothing
    return notebook


def kernel_sockets(folder: str) -> dict:
    """How the build talks to a lab's kernel (a KernelManager config): over Unix sockets in `folder`, where
    the system has them. Over TCP, jupyter_client's default, the kernel manager picks free ports and the
    kernel binds them a moment later, once Python has started; on a busy machine another process can take
    one in between (an outgoing connection of the browser tests gets a port from the same range), and the
    kernel dies "before replying to kernel_info" (jupyter_client#154). A kernel died so in a .ci/run of
    2adbf17: a downloaded lab run by tests/test_labs.py's reader runner (tests/support/reader_venv.py, which
    talks to its kernels the same way), whose stderr that runner did not keep then (it does now); so the port
    is the likely cause, not a seen one. Windows keeps TCP."""
    if os.name == "nt":
        return {}
    return {"KernelManager": {"transport": "ipc", "ip": os.path.join(folder, "kernel")}}


async def execute(lab: Lab):
    """Run the lab top to bottom in a fresh empty folder; return the executed notebook or raise LabError."""
    from nbclient import NotebookClient
    from traitlets.config import Config

    notebook = read_lab(lab.source)
    current = {"index": None}

    def on_cell_start(cell, cell_index):
        current["index"] = cell_index

    async def draw_for_phones_too(notebook):
        """Before the first cell: the kernel gets lab_phone's formatter (run quietly: no output, no count)."""
        msg_id = client.kc.execute(lab_phone.kernel_setup(), silent=True, store_history=False)
        reply = await client.async_wait_for_reply(msg_id)
        content = (reply or {}).get("content", {})
        if content.get("status") != "ok":
            raise LabError(
                f"lab {lab.label}: the kernel could not set up the phone drawings "
                f"(sitebuild/lab_phone.py): {content.get('ename')}: {content.get('evalue')}\n"
                + _strip_ansi("\n".join(content.get("traceback", [])))
            )

    env = {k: v for k, v in os.environ.items() if k not in KERNEL_ENV_DROP}
    env.update(KERNEL_ENV)
    with (tempfile.TemporaryDirectory(prefix=f"lab-{lab.name}-") as work, tempfile.TemporaryFile("w+") as err,
          tempfile.TemporaryDirectory(prefix="lab-kernel-") as sockets):
        client = NotebookClient(
            notebook,
            config=Config(kernel_sockets(sockets)),
            kernel_name=KERNEL,
            timeout=CELL_TIMEOUT,
            allow_errors=False,
            record_timing=False,
            resources={"metadata": {"path": work}},
            on_cell_start=on_cell_start,
            on_notebook_start=draw_for_phones_too,
        )
        try:
            await client.async_execute(env=env, stderr=err)
        except LabError:
            raise
        except Exception as error:
            err.seek(0)
            raise LabError(describe_failure(lab, notebook, current["index"], error, err.read())) from None
    return notebook


def describe_failure(lab: Lab, notebook, index, error: Exception, kernel_stderr: str) -> str:
    where = "before its first cell ran (the kernel did not start)"
    if index is not None:
        code_cells = [i for i, c in enumerate(notebook.cells) if c.cell_type == "code"]
        ordinal = code_cells.index(index) if index in code_cells else None
        lines = code_cell_lines(lab.source.read_text(encoding="utf-8"))
        line = lines[ordinal] if ordinal is not None and ordinal < len(lines) else "?"
        where = f"in code cell {ordinal + 1 if ordinal is not None else '?'} (line {line})"
    kind = type(error).__name__
    summary = f"{getattr(error, 'ename', kind)}: {getattr(error, 'evalue', error)}"
    details = _strip_ansi(str(error)).strip()
    message = f"lab {lab.label} failed {where}: {summary}\n{details}"
    if kernel_stderr.strip() and kind != "CellExecutionError":
        message += "\n--- kernel stderr ---\n" + kernel_stderr.strip()[-3000:]
    return message


def take_phone_drawings(notebook, lab: Lab) -> list[bytes]:
    """Remove the phone drawing (lab_phone.MIME) from every figure the notebook outputs, and return them in
    the order of the figures; a figure without one raises LabError, with what the kernel said of it."""
    import base64

    drawings = []
    for cell in notebook.cells:
        outputs = cell.get("outputs", [])
        for output in outputs:
            data = output.get("data", {})
            drawing = data.pop(lab_phone.MIME, None)
            if not any(kind.startswith("image/") for kind in data):
                continue
            if drawing is None:
                errors = [
                    _strip_ansi("\n".join(o.get("traceback", [])))
                    for o in outputs
                    if o.get("output_type") == "error"
                ]
                raise LabError(
                    f"lab {lab.label}: the code cell starting {cell.source[:50]!r} shows a figure "
                    "that was not drawn for a phone (sitebuild/lab_phone.py)"
                    + ("; the kernel said:\n" + "\n".join(errors) if errors else "")
                )
            drawings.append(base64.b64decode(drawing))
    return drawings


def _write_atomically(path: Path, content: str | bytes) -> None:
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def code_cells(notebook) -> tuple[str, ...]:
    return tuple(c.source for c in notebook.cells if c.cell_type == "code")


def given_outputs(executed, notebook):
    """`notebook` (a lab in another language, with the same code cells) with the outputs, execution counts
    and kernel facts of `executed`: a kernel runs only the code, so running it again would print the same."""
    import copy

    mine = [c for c in notebook.cells if c.cell_type == "code"]
    theirs = [c for c in executed.cells if c.cell_type == "code"]
    for cell, twin in zip(mine, theirs, strict=True):
        cell.outputs = copy.deepcopy(twin.outputs)
        cell.execution_count = twin.execution_count
    if "language_info" in executed.metadata:
        notebook.metadata["language_info"] = copy.deepcopy(executed.metadata["language_info"])
    return notebook


def _store(lab: Lab, key: str, notebook, phones: list[bytes], seconds: float) -> None:
    import nbformat

    for number, drawing in enumerate(phones, start=1):
        _write_atomically(lab.phone_drawing(number), drawing)
    _write_atomically(lab.executed, nbformat.writes(notebook))
    stamp = {"key": key, "seconds": round(seconds, 2), "phone_drawings": len(phones)}
    _write_atomically(lab.stamp, json.dumps(stamp) + "\n")


async def _refresh(stale: list[tuple[Lab, str]]) -> None:
    gate = asyncio.Semaphore(max(1, JOBS))
    # Stale labs with the same code cells (a lab's pt and en pages) are executed once: the first of them,
    # and the others take its outputs.
    twins: dict[tuple[str, ...], list[tuple[Lab, str]]] = {}
    for lab, key in stale:
        twins.setdefault(code_cells(read_lab(lab.source)), []).append((lab, key))

    async def one(group: list[tuple[Lab, str]]) -> None:
        (lab, key), *others = group
        async with gate:
            start = time.perf_counter()
            notebook = await execute(lab)
            seconds = time.perf_counter() - start
        phones = take_phone_drawings(notebook, lab)
        _store(lab, key, notebook, phones, seconds)
        log.info(f"labs: executed {lab.label} in {seconds:.1f} s")
        for other, other_key in others:
            _store(other, other_key, given_outputs(notebook, read_lab(other.source)), phones, seconds)
            log.info(f"labs: {other.label} has {lab.label}'s code cells: given its outputs")

    results = await asyncio.gather(*(one(group) for group in twins.values()), return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    for failure in failures:
        if not isinstance(failure, LabError):
            raise failure
    if failures:
        raise LabError("\n\n".join(str(f) for f in failures))


def refresh(labs: list[Lab]) -> list[Lab]:
    """Execute the labs whose cached notebook is missing or stale; return those it executed."""
    stale = [(lab, key) for lab in labs if not is_fresh(lab, key := cache_key(lab.source))]
    if stale:
        asyncio.run(_refresh(stale))
    return [lab for lab, _ in stale]


def _page_file(target: str, page, files, lab: Lab):
    path = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), target))
    found = files.get_file_from_path(path)
    if found is None or not found.is_documentation_page():
        raise LabError(f"lab {lab.label} links to {target}, which is not a page of the site")
    return found


def remove_foreign_scripts(html: str, lab: Lab) -> str:
    """Drop the scripts of nbconvert's template that load from other hosts; fail if another one appears."""

    def keep(m: re.Match) -> str:
        attrs, body = m.group("attrs"), m.group("body")
        if re.search(r"""\bsrc\s*=\s*["']\s*["']""", attrs) or "text/x-mathjax-config" in attrs:
            return ""  # MathJax: an empty src (no URL configured) and its configuration
        if "mermaid" in body:
            return ""  # mermaid, imported from a CDN when a notebook outputs a diagram
        if re.search(r"""\bsrc\s*=""", attrs) or re.search(r"""["'`](?:https?:)?//""", body):
            raise LabError(f"lab {lab.label}: its page gained a script that loads from elsewhere: "
                           f"{m.group(0)[:200]!r}; remove it in sitebuild/steps/notebooks.py")
        return m.group(0)

    return MATHJAX_COMMENTS.sub("", SCRIPT.sub(keep, html))


def replace_stylesheets(html: str) -> str:
    """nbconvert's template inlines JupyterLab's whole stylesheet (~590 KB) and Pygments' twice, of which the
    cells use a few rules: drop every <style> of the page's content and inline notebook.css instead."""
    css = NOTEBOOK_CSS.read_text(encoding="utf-8").strip()
    return f"<style>{css}</style>\n" + STYLE.sub("", html)


def figure_alts(notebook, lab: Lab) -> list[str]:
    """The alt text of every image the lab outputs, in order: its code cell's `alt` metadata."""
    alts = []
    for cell in notebook.cells:
        outputs = cell.get("outputs", [])
        images = sum(1 for o in outputs if any(kind.startswith("image/") for kind in o.get("data", {})))
        if images and not cell.metadata.get("alt"):
            raise LabError(
                f"lab {lab.label}: the code cell starting {cell.source[:50]!r} draws a figure but says "
                "nothing of it to a reader who cannot see it. Give the cell an alt text in the page's "
                "language, as YAML metadata right after its fence: ---, alt: >-, the text indented, ---"
            )
        alts += [cell.metadata.get("alt")] * images
    return alts


def describe_figures(html: str, notebook, lab: Lab) -> str:
    """Replace nbconvert's stand-in alt text of each figure by the lab's own description of it."""
    alts = figure_alts(notebook, lab)
    if html.count(NBCONVERT_ALT) != len(alts):
        raise LabError(f"lab {lab.label}: its page shows {html.count(NBCONVERT_ALT)} images without a "
                       f"description, but its notebook outputs {len(alts)} figures")
    described = iter(alts)
    return re.sub(re.escape(NBCONVERT_ALT), lambda m: f'alt="{escape(next(described), quote=True)}"', html)


FIGURE_PNG = re.compile(
    r'<img\b[^>]*?\bsrc="(?P<src>data:image/png;base64,(?P<data>[A-Za-z0-9+/=\s]+))"[^>]*>'
)


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height in pixels (its IHDR chunk, which comes first)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def figures_to_files(html: str, page, phones: list[bytes], lab: Lab) -> str:
    """Write each figure the notebook embeds as base64 (~350 KB on a lab) to a PNG file next to the page,
    so that the page's HTML stays small and a figure below the first screen loads only when it is needed;
    each becomes a <picture> whose source serves its phone drawing (`phones`, in the same order) to narrow
    screens, as a "2x" image (lab_phone.DPI), sized so that the browser keeps its place."""
    import base64

    folder = Path(page.file.abs_dest_path).parent
    folder.mkdir(parents=True, exist_ok=True)
    found = len(FIGURE_PNG.findall(html))
    if found != len(phones):
        raise LabError(
            f"lab {lab.label}: its page shows {found} figures, but {len(phones)} were drawn for a phone"
        )
    numbers, drawings = itertools.count(1), iter(phones)

    def write(data: bytes, stem: str) -> str:
        name = f"{stem}-{hashlib.sha256(data).hexdigest()[:10]}.png"
        if not (folder / name).is_file():
            (folder / name).write_bytes(data)
        return name

    def to_files(m: re.Match) -> str:
        number, phone = next(numbers), next(drawings)
        desktop = write(base64.b64decode(re.sub(r"\s", "", m.group("data"))), f"figure-{number}")
        img = m.group(0).replace(m.group("src"), desktop, 1)
        width, height = (round(side / 2) for side in png_size(phone))  # "2x": 2 pixels a CSS pixel
        srcset = write(phone, f"figure-{number}.phone")
        return (
            f'<picture><source media="{PHONE_MEDIA}" srcset="{srcset} 2x" type="image/png" '
            f'width="{width}" height="{height}">{img}</picture>'
        )

    return FIGURE_PNG.sub(to_files, html)


def download_link(html: str, lab: Lab) -> str:
    words = strings.of(lab.lang)["labs"]["download"]
    link = f'<p class="lab-download"><a class="md-button" href="{lab.name}.ipynb" download>{words}</a></p>'
    return page_code.under_title(html, link)


def publish_download(lab: Lab, notebook, page, config, files) -> None:
    """Write the executed notebook next to the page, its links to pages made absolute URLs of the site."""
    import nbformat

    site_url = config.site_url or ""

    def absolute(m: re.Match) -> str:
        url = _page_file(m.group("target"), page, files, lab).url
        return f"]({urljoin(site_url, url)}{m.group('fragment') or ''})"

    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = PAGE_LINK_MD.sub(absolute, cell.source)
    target = Path(page.file.abs_dest_path).parent / f"{lab.name}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(nbformat.writes(notebook), encoding="utf-8")


def _phone_count(lab: Lab) -> int:
    return json.loads(lab.stamp.read_text(encoding="utf-8")).get("phone_drawings", 0)


def render_key(lab: Lab, config) -> str:
    """A hash of what mkdocs-jupyter's HTML of a lab depends on: the executed notebook, options, versions."""
    digest = hashlib.sha256(lab.executed.read_bytes())
    options = dict(config.plugins["mkdocs-jupyter"].config)
    digest.update(json.dumps(options, sort_keys=True, default=str).encode())
    for package in RENDERER_VERSIONS:
        try:
            digest.update(f"{package}={importlib.metadata.version(package)}".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{package}=-".encode())
    return digest.hexdigest()


# ---- the step ----------------------------------------------------------------------------------------


class Labs:
    """The labs of the build being made: executed before the pages, each lab page pointed at its notebook."""

    def __init__(self, project: Project):
        self.project = project
        self.labs: dict[str, Lab] = {}  # src_uri of the page -> its lab, for the current build

    def execute(self, config) -> None:
        labs = find_labs(Path(config.docs_dir), self.project.cache("labs"))
        executed = refresh(labs)
        if labs and not executed:
            log.debug(f"labs: all {len(labs)} up to date")
        self.labs = {f"{lab.lang}/labs/{lab.name}.md": lab for lab in labs}

    def _lab(self, page) -> Lab | None:
        return self.labs.get(page.file.src_uri)

    def point_at_executed(self, page):
        """Before mkdocs-jupyter reads the page's source: the executed notebook, which it only renders."""
        lab = self._lab(page)
        if lab is not None:
            page.file.abs_src_path = str(lab.executed)
        return page

    def cache_render(self, page, config):
        """Reuse mkdocs-jupyter's HTML of a lab while the executed notebook is the same (nbconvert takes
        ~0.3 s a lab, twice: the page and its table of contents). Cached beside the executed notebook."""
        lab = self._lab(page)
        if lab is None:
            return page
        from mkdocs.structure.toc import get_toc
        from mkdocs_jupyter.plugin import _get_nb_toc_tokens

        render = page.render
        cached = lab.cache / lab.lang / f"{lab.name}.html.json"
        key = render_key(lab, config)
        toc_depth = config.plugins["mkdocs-jupyter"].config["toc_depth"]

        def cached_render(config, files):
            try:
                stored = json.loads(cached.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                stored = {}
            if stored.get("key") == key:
                page.content, page.toc = stored["content"], get_toc(stored["toc_tokens"])
                return
            render(config, files)
            tokens, _ = _get_nb_toc_tokens(page.file.abs_src_path, toc_depth)
            stored = {"key": key, "content": page.content, "toc_tokens": tokens}
            _write_atomically(cached, json.dumps(stored, ensure_ascii=False))

        page.render = cached_render
        return page

    def read_source(self, page) -> str | None:
        """A lab page's Markdown, for the other steps: the lab's text (not the notebook's JSON)."""
        lab = self._lab(page)
        return lab.source.read_text(encoding="utf-8") if lab is not None else None

    def finish_page(self, html: str, page, config, files) -> str:
        lab = self._lab(page)
        if lab is None:
            return html

        def relative(m: re.Match) -> str:
            url = _page_file(m.group("target"), page, files, lab).url_relative_to(page.file)
            return f'href="{url}{m.group("fragment") or ""}"'

        import nbformat

        notebook = nbformat.read(lab.executed, as_version=4)
        html = PAGE_LINK_HTML.sub(relative, html)
        # as on every page (and for search)
        html = html.replace('<a class="anchor-link"', '<a class="headerlink"')
        html = remove_foreign_scripts(html, lab)
        html = replace_stylesheets(html)
        html = describe_figures(html, notebook, lab)
        phones = [lab.phone_drawing(n).read_bytes() for n in range(1, _phone_count(lab) + 1)]
        html = figures_to_files(html, page, phones, lab)
        html = download_link(html, lab)
        publish_download(lab, notebook, page, config, files)
        return html
