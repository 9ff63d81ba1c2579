"""Every change this project makes to third-party code, in one module, for exactly the versions pinned.

PINNED names the versions (pyproject.toml pins the same ones, and .github/constraints.txt; a test checks
all three agree). A build with another version installed stops in on_config, naming this module.

HOW TO REDO THE PATCHES ON AN UPGRADE
1. Bump the version in PINNED, pyproject.toml ([project.optional-dependencies] docs) and
   .github/constraints.txt; `pip install -e ".[test]"`.
2. pymdown-extensions: read pymdownx/highlight.py's `Highlight.highlight(self, src, language, ...)`; if its
   signature or what its output depends on changed (the attributes set in `Highlight.__init__`), change
   rebuild_cache.Reuse.highlight, which keys the cache on every attribute of the highlighter.
3. Material: build the site. A minified statement or rule that is no longer found once fails the build with
   its text (META_APPEND, META_WRITE, SWITCHING below). Find its new form in
   material/templates/assets/javascripts/bundle.*.min.js (search for `color-scheme`) and in
   assets/stylesheets/palette.*.min.css (search for `data-md-color-switching`), and write it here.
4. Run the tests that show each patch took: tests/test_rebuild_cache.py (the highlight cache),
   tests/test_budgets.py -k material (the rewritten bundle and palette), tests/browser/test_material_start.py
   (the page looks and switches palettes as before).

THE PATCHES

pymdown-extensions, `Highlight.highlight`: wrapped by `highlight_with` so that a code block highlighted
once in this process is not highlighted again (rebuild_cache.py says why and how it is keyed).

Material, the built bundle and palette stylesheet (`material_start`, after each language's build):
What Material's script costs on every page load, made smaller without changing what a reader sees.

  On a phone most of a chapter page's blocking time was style recalculation that Material's script forces
  while it starts; each one restyled every element the browser draws. Two came from a single selector, one
  from a class on <html>, two from a <meta>:

  - The palette switch. On load (and on every switch of light/dark) Material sets `data-md-color-switching`
    on <body>, reads the header's computed style, and removes the attribute a frame later; its stylesheet
    has `[data-md-color-switching] *, ... :after, ... :before {transition-duration: 0s !important}`, and a
    selector that reaches every element under an attribute makes each change of that attribute restyle the
    whole page (two full restyles on every load, measured: 8-9 ms each on this machine for a chapter page,
    x4 on Lighthouse's phone). After each build this module moves that rule, in the built
    assets/stylesheets/palette.*.min.css, under `@media (prefers-reduced-motion: reduce)`: a reader who
    asked for reduced motion keeps Material's instant switch (and its cost); for everyone else the rule is
    not active, so the attribute costs nothing, and switching light/dark lets links and buttons fade into
    their new colours over Material's own 125-250 ms transitions. (Keeping it for the colour-transitioned
    elements alone still cost half a full restyle.) A Material whose stylesheet no longer has the rule fails
    the build, so the change is revisited rather than silently lost.
  - `no-js` becomes `js js-focus-visible` (the classes Material's script and its focus-visible polyfill put
    on <html>) in a line of script at the top of <body> (docs/overrides/main.html), before anything is
    drawn, instead of after the whole page has been styled. Without JavaScript the class stays `no-js`.
  - The page's colour scheme. Material's script appends `<meta name="color-scheme">` to <head> and then
    writes the header's `color-scheme` into it; each change of that element makes the browser restyle the
    whole page (Blink re-reads the page's colour schemes and treats it as a change of the platform's colours,
    whatever the value), so two more full restyles on every load, and the largest ones (measured: 12 and
    28 ms of one chapter page's load on Lighthouse's phone). The meta is written instead by a line of script
    right after the header (docs/overrides/main.html), before anything is drawn, with the header's own
    `color-scheme` (light, or dark for the slate palette the reader chose); after each build this module
    makes Material's script (assets/javascripts/bundle.*.min.js) use that meta rather than append a second
    one, and write its content only when the scheme changes (a switch of light/dark). A Material whose
    script no longer has these two statements fails the build. (Its source map then points a few columns
    off on that one line.)

  Phones also draw the navigation drawer while it is closed: site.css gives its content
  `content-visibility: auto` under Material's drawer breakpoint.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from mkdocs.exceptions import PluginError
from pymdownx import highlight as pymdownx_highlight

PINNED = {"mkdocs-material": "9.8.2", "pymdown-extensions": "13.1.2"}


def check_versions() -> None:
    """Stop the build if a patched package is not the version its patch was written for."""
    for package, pinned in PINNED.items():
        installed = importlib.metadata.version(package)
        if installed != pinned:
            raise PluginError(f"{package} {installed} is installed, but sitebuild/patches.py patches "
                              f"{pinned}: install the pinned version, or redo the patches (its docstring "
                              "says how)")


# ---- pymdown-extensions ----------------------------------------------------------------------------------
ORIGINAL_HIGHLIGHT = pymdownx_highlight.Highlight.highlight  # this module is imported once per process


def highlight_with(cached) -> None:
    """Make pymdownx call `cached(original, highlighter, src, language, ...)` for every code block."""

    def highlight(self, src, language, *args, **kwargs):
        return cached(ORIGINAL_HIGHLIGHT, self, src, language, *args, **kwargs)

    pymdownx_highlight.Highlight.highlight = highlight


# ---- Material ----------------------------------------------------------------------------------------------
SWITCHING = ("[data-md-color-switching] *,[data-md-color-switching] :after,"
             "[data-md-color-switching] :before{transition-duration:0s!important}")
REDUCED = "@media (prefers-reduced-motion: reduce){" + SWITCHING + "}"


# Material's palette component, minified (Material 9.x): the meta it appends, and the write of its content.
META_APPEND = 'let o=x("meta",{name:"color-scheme"});document.head.appendChild(o);'
META_REUSE = ('let o=document.querySelector(\'meta[name="color-scheme"]\');'
              'o||(o=x("meta",{name:"color-scheme"}),document.head.appendChild(o));')
META_WRITE = "return o.content=a.colorScheme,"
META_WRITE_IF_CHANGED = "return o.content!==a.colorScheme&&(o.content=a.colorScheme),"


def _one(path: Path, pattern: str) -> Path:
    found = sorted(path.glob(pattern))
    if len(found) != 1:
        names = [p.name for p in found]
        raise PluginError(f"patches: expected one {pattern} in {path}, found {names}")
    return found[0]


def rewrite_script(scripts: Path) -> None:
    bundle = _one(scripts, "bundle.*.min.js")
    js = bundle.read_text(encoding="utf-8")
    if META_REUSE in js and META_WRITE_IF_CHANGED in js:
        return  # this build's other language did it already
    for statement in (META_APPEND, META_WRITE):
        if js.count(statement) != 1:
            raise PluginError(f"patches: {bundle.name} no longer has Material's color-scheme "
                              f"statement {statement!r} once; see sitebuild/patches.py")
    js = js.replace(META_APPEND, META_REUSE).replace(META_WRITE, META_WRITE_IF_CHANGED)
    bundle.write_text(js, encoding="utf-8")


def rewrite(site_dir: Path) -> None:
    styles = site_dir / "assets" / "stylesheets"
    if not styles.is_dir():
        return  # a language built into a folder of the site (en/) uses the root's stylesheets
    rewrite_script(site_dir / "assets" / "javascripts")
    stylesheet = _one(styles, "palette.*.min.css")
    palette = stylesheet.read_text(encoding="utf-8")
    if REDUCED in palette:
        return  # this build's other language did it already
    if palette.count(SWITCHING) != 1:
        raise PluginError(f"patches: {stylesheet.name} no longer has Material's palette-switch rule "
                          f"{SWITCHING!r} once; see sitebuild/patches.py")
    stylesheet.write_text(palette.replace(SWITCHING, REDUCED), encoding="utf-8")


def material_start(config) -> None:
    """After a language's build: Material's bundle and palette stylesheet, rewritten (see the docstring)."""
    rewrite(Path(config.site_dir))
