"""A lab's figures drawn once more for a phone, by the kernel that executes the lab, from the same figure.

The notebooks step (sitebuild/steps/notebooks.py) runs this file's text in each lab's kernel before the
lab's first cell (`kernel_setup`): the kernel imports nothing of the build, and runs the build's own copy of
this file. It registers one more IPython display formatter for matplotlib figures, of its own MIME type
(MIME). Whenever a cell shows a figure (plt.show(), or a figure still open when the cell ends), IPython asks
every formatter for its view of it: the inline backend draws the desktop PNG as it always does, and this one
draws a copy of the same figure for a phone (`phone_figure`):

- PHONE_WIDTH inches wide, the width of the chapter's phone figures (sitebuild/style.py), drawn at DPI, that
  is 2 pixels per CSS pixel once served as a "2x" image: at natural size a point of text is 4/3 CSS px, as
  in the chapter's phone SVGs, and a 390 px phone shows it at about that size;
- panels side by side stacked, in reading order (left, right becomes top, bottom), each as tall as it was
  wide on the phone's scale (PANEL_HEIGHT of its desktop height), colorbars beside their panel;
- each panel's legend above it, in one column, where it covers no line of the narrower plot;
- every text at the size the cell gave it, and never under MIN_TEXT points.

The figure a cell drew is not touched (the copy is made by pickling it), so its desktop drawing, the notebook
and its outputs are what they were. The drawing comes back base64-encoded under MIME; the build takes it out
of the executed notebook (so the download holds no trace of it) and serves it as the phone source of its
figure's <picture>. Its PNG says the size of its smallest text (SMALLEST_TEXT_KEY, in points), so a test can
tell how large that text is on a phone without reading the pixels.
"""

from __future__ import annotations

import base64
import io
import pickle
from pathlib import Path

MIME = "application/vnd.culpa.phone-figure+base64"  # never in a published notebook: the build removes it
PHONE_WIDTH = 3.6  # inches: sitebuild/style.py's PHONE_WIDTH (tests/test_lab_figures.py checks they agree)
DPI = 192  # 2 x 96 CSS px per inch: served as "2x", an inch of the drawing is 96 CSS px, as in an SVG
PANEL_HEIGHT = 0.8  # a stacked panel's height, as a share of the desktop figure's height
ONE_PANEL_HEIGHT = (3.0, 0.85)  # a figure of one panel: at least 3 in, else 0.85 of its desktop height
MIN_TEXT = 8.0  # points: 10.7 CSS px at natural size, 9 px even in a 320 px phone's column
SMALLEST_TEXT_KEY = "Smallest text (pt)"


def _panels(fig):
    """The figure's panels (axes laid out on a grid), in reading order; colorbars and insets are not."""
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    top = {id(ax.get_subplotspec().get_topmost_subplotspec().get_gridspec()) for ax in panels}
    if len(top) != 1:
        return panels  # more than one grid (subfigures, nested grids): their layout stays as it is
    spec = lambda ax: ax.get_subplotspec().get_topmost_subplotspec()  # noqa: E731
    return sorted(panels, key=lambda ax: (spec(ax).rowspan.start, spec(ax).colspan.start))


def _legend_above(ax) -> None:
    legend = ax.get_legend()
    if legend is None:
        return
    handles, labels = legend.legend_handles, [text.get_text() for text in legend.get_texts()]
    size = legend.get_texts()[0].get_fontsize() if labels else None
    frame = legend.get_frame_on()
    legend.remove()
    ax.legend(
        handles,
        labels,
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncols=1,
        fontsize=size,
        frameon=frame,
        borderaxespad=0.3,
    )


def _texts(fig):
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def copy_of(fig):
    """An independent copy of `fig`, unknown to pyplot (so the inline backend never shows it)."""
    copy = pickle.loads(pickle.dumps(fig))
    manager = getattr(copy.canvas, "manager", None)
    if manager is not None:  # unpickling a pyplot figure registers the copy with pyplot: undo that
        import matplotlib.pyplot as plt

        plt.close(copy)
    return copy


def phone_figure(fig):
    """A copy of `fig` laid out for a phone (see the module's docstring); `fig` itself is unchanged."""
    from matplotlib.gridspec import GridSpec

    width, height = fig.get_size_inches()
    copy = copy_of(fig)
    panels = _panels(copy)
    grid = {(ax.get_subplotspec().get_topmost_subplotspec().get_gridspec().ncols) for ax in panels}
    if len(panels) > 1 and grid != {1} and len(grid) == 1:
        stacked = GridSpec(len(panels), 1, figure=copy)
        for row, ax in enumerate(panels):
            ax.set_subplotspec(stacked[row, 0])
        new_height = PANEL_HEIGHT * height * len(panels)
    else:
        new_height = max(ONE_PANEL_HEIGHT[0], ONE_PANEL_HEIGHT[1] * height)
    for ax in panels:
        _legend_above(ax)
    copy.set_size_inches(PHONE_WIDTH, new_height)
    copy.canvas.draw()  # makes the ticks the axes show, so that their labels have a size
    for ax in copy.axes:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            for which, ticks in (("major", axis.get_major_ticks()), ("minor", axis.get_minor_ticks())):
                if any(tick.label1.get_fontsize() < MIN_TEXT for tick in ticks):
                    ax.tick_params(axis=name, which=which, labelsize=MIN_TEXT)
    for text in _texts(copy):  # titles, labels, legends, notes
        text.set_fontsize(max(text.get_fontsize(), MIN_TEXT))
    return copy


def smallest_text(fig) -> float:
    """The size, in points, of the smallest text `fig` shows (after a draw: tick labels exist then)."""
    fig.canvas.draw()
    return min((t.get_fontsize() for t in _texts(fig)), default=MIN_TEXT)


def png(fig) -> bytes:
    """`fig` as the PNG a phone is served: tight around what it draws, as the inline backend saves it, at DPI,
    with the size of its smallest text in its metadata and no software version (the same bytes on a rerun)."""
    buffer = io.BytesIO()
    fig.savefig(
        buffer,
        format="png",
        dpi=DPI,
        bbox_inches="tight",
        facecolor=fig.get_facecolor(),
        edgecolor=fig.get_edgecolor(),
        metadata={"Software": None, SMALLEST_TEXT_KEY: f"{smallest_text(fig):g}"},
    )
    return buffer.getvalue()


def phone_png_base64(fig) -> str:
    return base64.b64encode(png(phone_figure(fig))).decode("ascii")


def install(shell) -> None:
    """Register the phone drawing as a display formatter of matplotlib figures in this IPython `shell`.

    It answers for figures in its own `__call__` instead of a registered printer: the inline backend removes
    every formatter's printer of figures whenever it selects its formats (on importing pyplot, on each
    `%config InlineBackend.figure_formats`). A drawing that fails raises, and so fails the cell."""
    import sys

    from IPython.core.formatters import BaseFormatter
    from traitlets import Unicode

    class PhoneFormatter(BaseFormatter):
        format_type = Unicode(MIME)

        def __call__(self, obj):
            figure = sys.modules.get("matplotlib.figure")
            if figure is None or type(obj) is not figure.Figure:
                return None
            return phone_png_base64(obj)

    shell.display_formatter.formatters[MIME] = PhoneFormatter(parent=shell.display_formatter)


def kernel_setup() -> str:
    """The code that installs the phone drawing in a lab's kernel: this file's text, run in a namespace of
    its own (the lab's own names are left as they were), then `install`."""
    path = Path(__file__)
    return (
        f"(lambda ns: (exec(compile({path.read_text(encoding='utf-8')!r}, {str(path)!r}, 'exec'), ns), "
        f"ns['install'](get_ipython())))({{'__name__': 'culpa_lab_phone'}})"
    )
