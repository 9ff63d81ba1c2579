"""Figures: every build draws the site's figures before it collects the pages.

Before the files are gathered, this hook runs snippets/figures/make.py's `generate`, which writes every
figure as docs/<lang>/figures/<name>.svg (gitignored) for each language; pages embed one as
`![alt text](figures/<name>.svg)`. The same command works outside a build:
`.venv/bin/python snippets/figures/make.py`.

The i18n plugin runs one build per language, so this runs more than once per `mkdocs build`: it is
idempotent and cached (.cache/figures, keyed on the scripts, culpa's source and the library versions),
and a file is written only when its bytes change, so a nested build or a `mkdocs serve` reload costs a
few file hashes and never triggers another reload. A figure script that raises fails the build, with a
message that names the script and shows its traceback.

A timing figure is measured on the machine that builds the site; its caption names that machine with
`@MACHINE@`, which on_page_markdown fills in the page's language ("Intel Xeon Processor, 2 núcleos,
1 thread"): a caption wraps, where a CPU name drawn into the figure would run off its edge.

Every figure is also drawn for a phone (<name>.phone.svg, see snippets/figures/style.py's `phone`): after a
page is rendered, each `<img src=".../figures/<name>.svg">` becomes a `<picture>` whose source serves the
phone drawing to narrow screens, so a figure reads on a 390 px phone without sideways scrolling.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def _make(root: Path):
    snippets = str(root / "snippets")
    if snippets not in sys.path:
        sys.path.insert(0, snippets)
    from figures import make

    return make


def on_pre_build(config):
    root = _root(config)
    make = _make(root)
    try:
        make.generate(out=Path(config.docs_dir), cache=root / ".cache" / "figures",
                      folder=root / "snippets" / "figures")
    except make.FigureScriptError as error:
        raise PluginError(f"figures: {error}") from None


MACHINE_WORDS = {"pt": "{cpu}, {cores} núcleos, 1 thread", "en": "{cpu}, {cores} cores, 1 thread"}


def machine_text(lang: str, machine: tuple[str, int]) -> str:
    cpu, cores = machine
    return MACHINE_WORDS[lang].format(cpu=cpu, cores=cores)


def on_page_markdown(markdown, page, config, files):
    """`@MACHINE@` in a timing figure's caption: the machine its numbers were measured on."""
    if "@MACHINE@" not in markdown:
        return markdown
    style = _make(_root(config)).style
    return markdown.replace("@MACHINE@", machine_text(page.file.src_uri.split("/", 1)[0], style.machine()))


PHONE_MEDIA = "(max-width: 44.9375em)"  # Material's phone and small-tablet layout
FIGURE_IMG = re.compile(r'<img\b[^>]*\bsrc="([^"]*\bfigures/[^"/]+)\.svg"[^>]*>')


def on_page_content(html, page, config, files):
    """Each figure of the page as a <picture>: its phone drawing on narrow screens, the usual one else."""
    docs = Path(config.docs_dir)

    def picture(found):
        src = found.group(1)
        name = src.rsplit("/", 1)[-1]
        lang = page.file.src_uri.split("/", 1)[0]
        if not (docs / lang / "figures" / f"{name}.phone.svg").is_file():
            raise PluginError(f"figures: {page.file.src_uri} shows {name}.svg, which has no phone drawing "
                              f"(docs/{lang}/figures/{name}.phone.svg); run snippets/figures/make.py")
        return (f'<picture><source media="{PHONE_MEDIA}" srcset="{src}.phone.svg" type="image/svg+xml">'
                f"{found.group(0)}</picture>")

    return FIGURE_IMG.sub(picture, html)


def on_serve(server, config, builder):
    """Redraw when a figure script or the engine changes (docs/ is watched already)."""
    root = _root(config)
    for folder in ("snippets/figures", "snippets/culpa"):
        server.watch(str(root / folder))
    return server
