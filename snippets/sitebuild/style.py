"""The look every figure shares, and numbers written the way each page's language writes them.

Importing this module fixes matplotlib's settings for the figures: an SVG comes out byte-identical on a
rerun (a fixed hash salt for its ids, no date in its metadata, matplotlib's own DejaVu Sans drawn as paths,
so no font of the reader's machine is involved), and text is large enough to read on a phone.
Figures are made with `new_figure` (a plain matplotlib Figure, no pyplot state) and saved by `svg_bytes`.
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import re
import textwrap

import matplotlib
from matplotlib.figure import Figure
from matplotlib.ticker import Formatter, LogFormatter, ScalarFormatter

from sitebuild.numbers import (  # noqa: F401 (figures write their numbers as style.number, style.power, ...)
    MINUS,
    conjunction,
    localize,
    number,
    power,
    power_parts,
    sequence,
    spoken_power,
)
from sitebuild.project import LANGS  # noqa: F401 (figures and explorers read style.LANGS)

# One color per role, the same in every figure (they read on the white card in both site palettes).
BACKPROP = "#5e35b1"  # the site's deep purple: the backward pass
FORWARD_DIFF = "#e65100"  # one-sided (forward) differences
CENTRAL_DIFF = "#00838f"  # two-sided (central) differences
NEUTRAL = "#616161"
LIGHT = "#bdbdbd"
PUSH_UP = "#1565c0"  # a negative gradient: gradient descent raises this value
PUSH_DOWN = "#e65100"  # a positive gradient: gradient descent lowers this value

WIDTH = 6.4  # inches: about 610 CSS pixels at natural size, scaled down on a phone (text stays >= 9 px)
PHONE_WIDTH = 3.6  # inches: a 390 px phone's figure box at natural size (text as large as on desktop)

RC = {
    "svg.hashsalt": "culpa-figures",  # stable element ids: the same figure gives the same bytes
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",  # shipped with matplotlib: every machine draws the same glyphs
    "font.size": 13,
    "axes.titlesize": 14,
    "axes.titleweight": "bold",
    "axes.labelsize": 13,
    "xtick.labelsize": 12,
    "ytick.labelsize": 12,
    "legend.fontsize": 11.5,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.unicode_minus": True,
    "axes.formatter.use_mathtext": False,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "lines.linewidth": 2.2,
    "lines.markersize": 6.5,
}
matplotlib.rcParams.update(RC)


_on_phone = False
PHONE_TITLE = 30  # characters: a longer title is wrapped on a phone
PHONE_NOTE = 26  # characters: a longer line of a note in a plot is wrapped on a phone
PHONE_LABEL = 34  # characters: a longer axis label is wrapped on a phone
PHONE_RC = {  # a phone shows the figure at about its natural size: text a little smaller still reads well
    "font.size": 11.5, "axes.titlesize": 12, "axes.labelsize": 11.5, "xtick.labelsize": 10.5,
    "ytick.labelsize": 10.5, "legend.fontsize": 10,
}


@contextlib.contextmanager
def phone():
    """Draw for a phone within this block: sitebuild/make_figures.py draws every figure once more this way,
    served as <lang>/figures/<name>.phone.svg to narrow screens (a <picture> source: steps/figures.py)."""
    global _on_phone
    before, _on_phone = _on_phone, True
    try:
        with matplotlib.rc_context(PHONE_RC):
            yield
    finally:
        _on_phone = before


def on_phone() -> bool:
    """True while make_figures.py draws the phone variant: a script with a layout of its own asks this."""
    return _on_phone


def fit_to_phone(fig: Figure) -> Figure:
    """What make_figures.py does to every figure drawn within `phone()`: a long title is wrapped, notes and
    axis labels longer than PHONE_LABEL characters are wrapped, notes and
    annotations in a plot get at most 9.5 pt, lines of at most PHONE_NOTE characters and no say
    in the layout, and the legend of a one-panel figure
    moves under the plot, where it cannot cover the narrower plot's lines. Figures laid out by hand (no
    layout engine, like the worked-example graph) draw their own phone layout (`on_phone()`)."""
    for ax in fig.axes:
        title = ax.title.get_text()
        if len(title) > PHONE_TITLE:
            ax.set_title(textwrap.fill(title, PHONE_TITLE))
        for label in (ax.xaxis.label, ax.yaxis.label):
            if len(label.get_text()) > PHONE_LABEL and "\n" not in label.get_text():
                label.set_text(textwrap.fill(label.get_text(), PHONE_LABEL))
        if fig.get_layout_engine() is not None:
            for note in ax.texts:  # notes inside a plot: smaller, shorter lines, and no say in the layout
                note.set_in_layout(False)
                note.set_fontsize(min(note.get_fontsize(), 9.5))
                text = note.get_text()
                if "$" not in text:
                    note.set_text("\n".join(textwrap.fill(line, PHONE_NOTE) for line in text.split("\n")))
    legend = fig.axes[0].get_legend() if len(fig.axes) == 1 else None
    if legend is not None and fig.get_layout_engine() is not None:
        handles, labels = legend.legend_handles, [text.get_text() for text in legend.get_texts()]
        legend.remove()
        fig.legend(handles, labels, loc="outside lower center", ncols=1, frameon=False)
    return fig


def new_figure(height: float, width: float = WIDTH, **subplots) -> tuple[Figure, object]:
    """A figure and its axes (as `Figure.subplots` returns them), laid out with the constrained layout.

    On a phone (within `phone()`) it is PHONE_WIDTH wide, and panels side by side are stacked instead,
    returned in the same order (left, right becomes top, bottom), so a script needs no change for it."""
    if _on_phone:
        columns = subplots.pop("ncols", 1)
        subplots.pop("width_ratios", None)
        if columns > 1 and subplots.get("nrows", 1) == 1:
            subplots["nrows"], height = columns, 0.8 * height * columns
        else:
            subplots["ncols"], height = columns, max(3.0, 0.85 * height)
        width = PHONE_WIDTH
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots(**subplots)


def svg_bytes(fig: Figure) -> bytes:
    """The figure as SVG, with no date in it (deterministic bytes for deterministic data)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def prose(text: str) -> str:
    """A paragraph written across source lines (alt texts, captions) as one line of text."""
    return " ".join(text.split())


class Localized(Formatter):
    """Wraps a matplotlib tick formatter and writes its labels in the page's language."""

    def __init__(self, base: Formatter, lang: str):
        self.base, self.lang = base, lang

    def set_axis(self, axis):
        super().set_axis(axis)
        self.base.set_axis(axis)

    def set_locs(self, locs):
        self.base.set_locs(locs)

    def __call__(self, x, pos=None):
        return localize(self.base(x, pos), self.lang)

    def format_ticks(self, values):
        return [localize(label, self.lang) for label in self.base.format_ticks(values)]

    def get_offset(self):
        return localize(self.base.get_offset(), self.lang)


def localize_axes(ax, lang: str) -> None:
    """Numeric tick labels of `ax` in the page's language. Call it after the axes' scales are set."""
    numeric = (ScalarFormatter, LogFormatter)
    for axis in (ax.xaxis, ax.yaxis):
        if isinstance(axis.get_major_formatter(), numeric):
            axis.set_major_formatter(Localized(axis.get_major_formatter(), lang))
        if isinstance(axis.get_minor_formatter(), numeric):
            axis.set_minor_formatter(Localized(axis.get_minor_formatter(), lang))


# ---- the machine a timing figure was measured on, named in the figure ----
def machine() -> tuple[str, int]:
    """The CPU's model name (as /proc/cpuinfo or the platform module gives it) and the number of cores."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return re.sub(r"\((R|TM)\)", "", cpu).strip(), os.cpu_count() or 1
