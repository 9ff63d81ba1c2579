"""Figures: every build draws the site's figures and serves them from the cache, for each page's language.

on_pre_build runs sitebuild/make_figures.py's `generate`, which draws every figure for each language and for
a phone, cached in .cache/figures (keyed on the script, its helpers, its lessons, culpa's source and the
library versions): a build with nothing changed draws nothing. A figure script that raises fails the build,
with a message that names the script and shows its traceback. on_files then adds each drawing to the
language being built as <lang>/figures/<name>.svg (and <name>.phone.svg), as if it were a file of
docs/<lang>/figures/, without writing anything under docs/: pages embed one as
`![alt text](figures/<name>.svg)`, and `mkdocs serve` reloads when a figure script or culpa changes.

A timing figure is measured on the machine that builds the site; its caption names that machine with
`@MACHINE@`, which on_page_markdown fills in the page's language ("Intel Xeon Processor, 2 núcleos,
1 thread"): a caption wraps, where a CPU name drawn into the figure would run off its edge.

Every figure is also drawn for a phone (see sitebuild/style.py's `phone`): after a page is rendered, each
`<img src=".../figures/<name>.svg">` becomes a `<picture>` whose source serves the phone drawing to narrow
screens, so a figure reads on a 390 px phone without sideways scrolling.
"""

from __future__ import annotations

import posixpath
import re

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from sitebuild import make_figures, strings, style
from sitebuild.project import LANGS, Project, page_language

PHONE_MEDIA = "(max-width: 44.9375em)"  # Material's phone and small-tablet layout
FIGURE_IMG = re.compile(r'<img\b[^>]*\bsrc="([^"]*\bfigures/[^"/]+)\.svg"[^>]*>')


def machine_text(lang: str, machine: tuple[str, int]) -> str:
    cpu, cores = machine
    return strings.of(lang)["figures"]["machine"].format(cpu=cpu, cores=cores)


class Figures:
    def __init__(self, project: Project):
        self.project = project
        self.made: dict[str, make_figures.Made] = {}

    def draw(self) -> None:
        try:
            self.made = make_figures.generate(cache=self.project.cache("figures"))
        except make_figures.FigureScriptError as error:
            raise PluginError(f"figures: {error}") from None

    def add_files(self, files, config, lang: str) -> None:
        """Each figure of `lang`, served from its cache entry as if it were docs/<lang>/figures/<file>."""
        default = config.plugins["i18n"].default_language if "i18n" in config.plugins else lang
        for name, made in self.made.items():
            for variant in (lang, f"{lang}.phone"):
                file_name = f"{name}.svg" if variant == lang else f"{name}.phone.svg"
                file = File.generated(config, f"{lang}/figures/{file_name}",
                                      abs_src_path=str(made.entry / f"{variant}.svg"))
                # where the i18n plugin puts a file of docs/<lang>/: the default language at the site's root
                file.dest_uri = f"figures/{file_name}" if lang == default else f"{lang}/figures/{file_name}"
                _replace(files, file)

    def fill_machine(self, markdown: str, page) -> str:
        """`@MACHINE@` in a timing figure's caption: the machine its numbers were measured on."""
        if "@MACHINE@" not in markdown:
            return markdown
        return markdown.replace("@MACHINE@", machine_text(page_language(page), style.machine()))

    def pictures(self, html: str, page, files) -> str:
        """Each figure of the page as a <picture>: its phone drawing on narrow screens, the usual one else."""
        lang = page_language(page)
        if lang not in LANGS:
            return html

        def picture(found):
            src = found.group(1)
            name = src.rsplit("/", 1)[-1]
            folder = posixpath.dirname(page.file.src_uri)
            phone = posixpath.normpath(posixpath.join(folder, f"{src}.phone.svg"))
            if files.get_file_from_path(phone) is None:
                raise PluginError(f"figures: {page.file.src_uri} shows {name}.svg, which has no phone "
                                  f"drawing ({phone}); is there a figure script for {name}?")
            return (f'<picture><source media="{PHONE_MEDIA}" srcset="{src}.phone.svg" type="image/svg+xml">'
                    f"{found.group(0)}</picture>")

        return FIGURE_IMG.sub(picture, html)


def _replace(files, file) -> None:
    """Add `file`; a leftover of an older build under docs/ with its name (once written there) is dropped."""
    stale = files.get_file_from_path(file.src_uri)
    if stale is not None:
        files.remove(stale)
    files.append(file)
