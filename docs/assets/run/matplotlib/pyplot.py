"""This page's stand-in for matplotlib.pyplot: it draws the labs' figures as SVG, in the page's Python.

The site's Python in the page (Pyodide) has no matplotlib, so assets/run/worker.js installs this small
package as `matplotlib` the first time a block names it, and nowhere else: on your machine and in Jupyter,
the labs draw with the real matplotlib. It draws exactly what the labs' figure cells ask for, the way
matplotlib draws it (tab10 colours "C0".."C9", 5 % margins, ticks at round numbers, log axes with a tick at
every power of the base): `subplots`, and on an axes `plot`, `loglog`, `semilogx`, `semilogy`, `scatter`,
`contour`, `contourf`, `set` and its `set_*`, `legend`, `grid`, `fig.colorbar`, then `show`. Anything else,
a function or a keyword argument, raises NotInThisPage naming it (LIMIT, the page's sentence, is set by the
worker), never a figure that silently differs. Labels take the part of TeX the labs use ($N$, $x_1$,
$\\sqrt{n}$, $\\times$).

show() hands each open figure to `display(data_url, texts)`, set by the worker (the page shows the SVG as an
image: what the reader's code writes on a figure stays text inside it); `svg(fig)` is the drawing itself.
"""

from __future__ import annotations

import base64
import math
import re
import sys
import zlib
from html import escape

import numpy as np

LIMIT = (
    "{call}"  # the page's sentence, in its language (strings' [run] plotSubset), set by assets/run/worker.js
)
display = None  # display(data_url, texts): set by assets/run/worker.js; without it show() only closes

COLORS = {
    f"C{i}": c
    for i, c in enumerate(
        [
            "#1f77b4",
            "#ff7f0e",
            "#2ca02c",
            "#d62728",
            "#9467bd",
            "#8c564b",
            "#e377c2",
            "#7f7f7f",
            "#bcbd22",
            "#17becf",
        ]
    )
}
NAMED = {
    "black": "#000000",
    "k": "#000000",
    "white": "#ffffff",
    "w": "#ffffff",
    "gray": "#808080",
    "grey": "#808080",
    "red": "#ff0000",
    "r": "#ff0000",
    "blue": "#0000ff",
    "b": "#0000ff",
    "green": "#008000",
    "g": "#008000",
    "c": "#00bfbf",
    "m": "#bf00bf",
    "y": "#bfbf00",
}
# matplotlib's RdBu (ColorBrewer's 11 colours, from red to blue), drawn between its stops as matplotlib does
RDBU = [
    "#67001f",
    "#b2182b",
    "#d6604d",
    "#f4a582",
    "#fddbc7",
    "#f7f7f7",
    "#d1e5f0",
    "#92c5de",
    "#4393c3",
    "#2166ac",
    "#053061",
]
CMAPS = {"RdBu": RDBU, "RdBu_r": RDBU[::-1]}
MARKERS = "os^vDx+."
LINESTYLES = {
    "-": None,
    "--": (3.7, 1.6),
    "-.": (6.4, 1.6, 1, 1.6),
    ":": (1, 1.65),
    "": "none",
    "None": "none",
}
FONT = 10.0  # points, matplotlib's default size for every text but a title
FONT_FAMILY = "DejaVu Sans, Bitstream Vera Sans, Arial, Helvetica, sans-serif"
TICK = 3.5  # major tick length, points
SYMBOLS = {
    "times": "×",
    "cdot": "·",
    "sqrt": "√",
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ϵ",
    "varepsilon": "ε",
    "theta": "θ",
    "lambda": "λ",
    "mu": "μ",
    "sigma": "σ",
    "partial": "∂",
    "nabla": "∇",
    "infty": "∞",
    "leq": "≤",
    "geq": "≥",
    "approx": "≈",
    "pm": "±",
    "to": "→",
    "ldots": "…",
    "Delta": "Δ",
    "Sigma": "Σ",
    "eta": "η",
    "pi": "π",
    "mathrm": "",
    "mathdefault": "",
    "rm": "",
}


class NotInThisPage(NotImplementedError):
    """What this page's stand-in does not draw (the real matplotlib, on your machine, does)."""


class _Missing(NotInThisPage, AttributeError):  # an attribute it lacks: hasattr() stays False
    pass


def _limit(call):
    return NotInThisPage(LIMIT.format(call=call))


def _only(call, kwargs, allowed):
    for key in kwargs:
        if key not in allowed:
            raise _limit(f"{call}({key}=...)")


class _Strict:
    """Asking for anything this class does not define names the call instead of an AttributeError."""

    _name = "object"

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise _Missing(LIMIT.format(call=f"{self._name}.{name}"))


# --- colours ------------------------------------------------------------------------------------------


def _color(value, call):
    if isinstance(value, str):
        if value in COLORS:
            return COLORS[value]
        if value in NAMED:
            return NAMED[value]
        if re.fullmatch(r"#[0-9a-fA-F]{6}", value):
            return value.lower()
    elif isinstance(value, tuple) and len(value) in (3, 4) and all(0 <= v <= 1 for v in value):
        return "#" + "".join(f"{round(v * 255):02x}" for v in value[:3])
    raise _limit(f"{call}(color={value!r})")


def _cmap(name, call):
    if name not in CMAPS:
        raise _limit(f"{call}(cmap={name!r})")
    stops = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in CMAPS[name]], dtype=float)
    return lambda t: np.stack(
        [np.interp(np.clip(t, 0, 1), np.linspace(0, 1, len(stops)), stops[:, k]) for k in range(3)], axis=-1
    )


def _hex(rgb):
    return "#" + "".join(f"{int(round(v)):02x}" for v in rgb)


# --- labels: the part of TeX the labs use ----------------------------------------------------------------


def _runs(text):
    """A label as runs of (text, style): style is "", "i" (a math letter), "sub" or "sup"."""
    text = str(text)
    runs = []
    for k, part in enumerate(re.split(r"(?<!\\)\$", text)):
        if k % 2 == 0:
            if part:
                runs.append((part.replace("\\$", "$"), ""))
            continue
        _math(part, runs, "", text)
    return runs


def _math(tex, runs, level, whole):
    i = 0
    while i < len(tex):
        ch = tex[i]
        if ch == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", tex[i:])
            name = m.group(1)
            i += len(m.group(0))
            if name in (" ", ",", ";", ":"):
                runs.append((" " if name == " " else "\u2009", level))
            elif name in ("times", "cdot", "pm"):
                runs.append((f" {SYMBOLS[name]} ", level))
            elif name == "sqrt":
                body, i = _group(tex, i)
                runs.append(("√", level))
                _math(body, runs, level + "o", whole)
            elif name in SYMBOLS:
                runs.append((SYMBOLS[name], level))
            elif name in "{}_^%$#&":
                runs.append((name, level))
            else:
                raise _limit(f"TeX \\{name} in {whole!r}")
        elif ch in "_^":
            body, i = _group(tex, i + 1)
            _math(body, runs, "sub" if ch == "_" else "sup", whole)
        elif ch == "{":
            body, i = _group(tex, i)
            _math(body, runs, level, whole)
        elif ch == " ":
            i += 1  # TeX's math mode ignores spaces
        else:
            runs.append((ch, level + ("i" if ch.isalpha() else "")))
            i += 1


def _group(tex, i):
    if i < len(tex) and tex[i] == "{":
        depth = 0
        for j in range(i, len(tex)):
            depth += {"{": 1, "}": -1}.get(tex[j], 0)
            if depth == 0:
                return tex[i + 1 : j], j + 1
        raise _limit(f"TeX {tex!r} (an unclosed brace)")
    return tex[i : i + 1], i + 1


def _plain(text):
    return re.sub(r"  +", " ", "".join(t for t, _ in _runs(text)))


WIDTHS = {**dict.fromkeys("il.,:;|!'()[]ft", 0.34), **dict.fromkeys(" ", 0.32), **dict.fromkeys("mwMW", 0.9)}


def _width(text, size=FONT):
    """About how wide a label is in DejaVu Sans, in points: no font metrics here, an estimate per letter."""
    total = 0.0
    for t, style in _runs(text):
        scale = 0.7 if ("sub" in style or "sup" in style) else 1.0
        total += sum(WIDTHS.get(c, 0.68 if c.isupper() else 0.6) for c in t) * size * scale
    return total


def _text(x, y, text, cls, size=FONT, anchor="middle", rotate=False, baseline="central"):
    parts = []
    for t, style in _runs(text):
        attrs = (' font-style="italic"' if "i" in style else "") + (
            ' text-decoration="overline"' if "o" in style else ""
        )
        shift = {"sub": 0.25, "sup": -0.4}.get(style.replace("i", "").replace("o", ""), 0) * size
        if shift:
            attrs += f' baseline-shift="{-shift / size:.2f}em" font-size="{size * 0.7:.1f}"'
        parts.append(f"<tspan{attrs}>{escape(t, quote=False)}</tspan>")
    turn = f' transform="rotate(-90 {x:.1f} {y:.1f})"' if rotate else ""
    return (
        f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}" '
        f'dominant-baseline="{baseline}"{turn}>{"".join(parts)}</text>'
    )


# --- ticks ----------------------------------------------------------------------------------------------


def _linear_ticks(lo, hi, bins):
    """Round numbers from lo to hi: the smallest step of 1, 2, 2.5 or 5 times a power of ten that cuts the
    span, from a multiple of it at or below lo to one at or above hi, in at most `bins` intervals
    (matplotlib's MaxNLocator), and the labels they need."""
    span = hi - lo
    if span <= 0:
        return [lo], [_number(lo, 1)]
    magnitude = 10.0 ** math.floor(math.log10(span / max(bins, 1)))
    for factor in (1, 2, 2.5, 5, 10, 20, 25, 50):
        step = factor * magnitude
        if math.ceil(hi / step - 1e-9) - math.floor(lo / step + 1e-9) <= bins:
            break
    first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    values = [k * step for k in range(first, last + 1)]
    return values, [_number(v, step) for v in values]


def _number(v, step):
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) + (
        1 if round(step / 10 ** math.floor(math.log10(step) + 1e-9), 6) == 2.5 else 0
    )
    text = f"{v:.{decimals}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return text.replace("-", "\u2212")


def _log_ticks(lo, hi, base):
    """A tick at every power of the base from lo to hi, labelled base^k; for base 10, unlabelled minor ticks
    at 2..9 times each power, labelled instead when fewer than two powers fall on the axis."""
    first, last = math.floor(math.log(lo, base) + 1e-9), math.ceil(math.log(hi, base) - 1e-9)
    inside = lambda v: lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)  # noqa: E731
    majors = [base**k for k in range(first, last + 1) if inside(base**k)]
    labels = [f"${_int(base)}^{{{_sup(k)}}}$" for k in range(first, last + 1) if inside(base**k)]
    minors = []
    if base == 10:
        minors = [
            m * 10.0**k for k in range(first - 1, last + 1) for m in range(2, 10) if inside(m * 10.0**k)
        ]
    if len(majors) < 2 and minors:
        labelled = [(v, _minor_label(v)) for v in minors]
        return majors + [v for v, _ in labelled], labels + [t for _, t in labelled], []
    return majors, labels, minors


def _spaced(values, labels, minors, lo, base, per, axis):
    """Labelled ticks whose labels would touch lose their label (powers of the base keep theirs first)."""
    size = (lambda t: _width(t) + 4) if axis == "x" else (lambda t: FONT * 1.3)  # noqa: E731
    kept = []  # (start, end) of each kept label
    for v, t in sorted(zip(values, labels, strict=True), key=lambda vt: not _is_power(vt[0], base)):
        mid = math.log(v / lo, base) * per
        if all(mid + size(t) / 2 <= a or mid - size(t) / 2 >= b for a, b, _, _ in kept):
            kept.append((mid - size(t) / 2, mid + size(t) / 2, v, t))
    kept.sort()
    shown = {v for _, _, v, _ in kept}
    return [v for *_, v, _ in kept], [t for *_, t in kept], minors + [v for v in values if v not in shown]


def _is_power(v, base):
    k = math.log(v, base)
    return abs(k - round(k)) < 1e-9


def _int(v):
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _sup(k):
    return str(k).replace("-", "\u2212")


def _minor_label(v):
    k = math.floor(math.log10(v) + 1e-9)
    m = round(v / 10**k)
    return f"${m}\\times10^{{{_sup(k)}}}$"


# --- what an axes holds ---------------------------------------------------------------------------------


def _array(values, call):
    try:
        a = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise _limit(f"{call} of {type(values).__name__} values") from None
    return a


class _Line:
    def __init__(self, x, y, color, marker, dashes, label, width, size, alpha):
        self.x, self.y, self.color, self.marker, self.dashes = x, y, color, marker, dashes
        self.label, self.width, self.size, self.alpha = label, width, size, alpha


class _Scatter:
    def __init__(self, x, y, colors, sizes, edge, edge_width, alpha, label, mappable):
        self.x, self.y, self.colors, self.sizes, self.edge = x, y, colors, sizes, edge
        self.edge_width, self.alpha, self.label, self.mappable = edge_width, alpha, label, mappable


class Mappable:
    """What colorbar() draws: a colour map and the values it spans (bands of a contourf, or a scatter's c)."""

    def __init__(self, cmap, lo, hi, bands=None, alpha=1.0):
        self.cmap, self.lo, self.hi, self.bands, self.alpha = cmap, lo, hi, bands, alpha


class _Field:
    def __init__(self, x, y, z, call):
        x, y, z = _array(x, call), _array(y, call), _array(z, call)
        if z.ndim != 2:
            raise _limit(f"{call} of a {z.ndim}-D Z")
        if x.ndim == 2:
            if not (np.allclose(x, x[:1]) and np.allclose(y, y[:, :1])):
                raise _limit(f"{call} on a grid that is not a meshgrid")
            x, y = x[0], y[:, 0]
        if x.shape != (z.shape[1],) or y.shape != (z.shape[0],):
            raise ValueError(f"{call}: X and Y must match Z's shape {z.shape}, not {x.shape} and {y.shape}")
        if not (np.all(np.diff(x) > 0) and np.all(np.diff(y) > 0)):
            raise _limit(f"{call} on a grid whose X and Y do not increase")
        self.x, self.y, self.z = x, y, z


def _levels(levels, z):
    if isinstance(levels, int | np.integer):
        values, _ = _linear_ticks(float(np.nanmin(z)), float(np.nanmax(z)), int(levels))
        step = values[1] - values[0] if len(values) > 1 else 1.0
        while values[0] > np.nanmin(z) + 1e-12:
            values.insert(0, values[0] - step)
        while values[-1] < np.nanmax(z) - 1e-12:
            values.append(values[-1] + step)
        return np.array(values)
    return np.sort(_array(levels, "levels"))


class Axes(_Strict):
    _name = "ax"

    def __init__(self, fig):
        self.figure = fig
        self.lines, self.scatters, self.filled, self.contours = [], [], [], []
        self.xlabel = self.ylabel = self.title = ""
        self.scale = {"x": ("linear", 10), "y": ("linear", 10)}
        self.lim = {"x": (None, None), "y": (None, None)}
        self.ticks = {"x": None, "y": None}
        self.ticklabels = {"x": None, "y": None}
        self.legend_at = None
        self.show_grid = False
        self.colorbar = None
        self._cycle = 0

    def _next_color(self):
        color = COLORS[f"C{self._cycle % 10}"]
        self._cycle += 1
        return color

    # lines
    def plot(self, *args, **kwargs):
        return self._plot("ax.plot", args, kwargs)

    def loglog(self, *args, base=10, **kwargs):
        self.set_xscale("log", base=base)
        self.set_yscale("log", base=base)
        return self._plot("ax.loglog", args, kwargs)

    def semilogx(self, *args, base=10, **kwargs):
        self.set_xscale("log", base=base)
        return self._plot("ax.semilogx", args, kwargs)

    def semilogy(self, *args, base=10, **kwargs):
        self.set_yscale("log", base=base)
        return self._plot("ax.semilogy", args, kwargs)

    def _plot(self, call, args, kwargs):
        _only(
            call,
            kwargs,
            {
                "color",
                "c",
                "label",
                "marker",
                "linestyle",
                "ls",
                "linewidth",
                "lw",
                "markersize",
                "ms",
                "alpha",
            },
        )
        made, args = [], list(args)
        while args:
            if len(args) >= 2 and not isinstance(args[1], str):
                x, y, args = args[0], args[1], args[2:]
            else:
                x, y, args = None, args[0], args[1:]
            fmt = args.pop(0) if args and isinstance(args[0], str) else ""
            y = _array(y, call)
            x = np.arange(len(y), dtype=float) if x is None else _array(x, call)
            if y.ndim != 1 or x.shape != y.shape:
                raise ValueError(
                    f"{call}: x and y must be 1-D and of the same length, not {x.shape} and {y.shape}"
                )
            made.append(self._line(call, x, y, fmt, kwargs))
        return made

    def _line(self, call, x, y, fmt, kwargs):
        m = re.fullmatch(
            r"(?P<c>[bgrcmykw]|C\d)?(?P<m>[os^vDx+.])?(?P<l>--|-\.|-|:)?(?P<c2>[bgrcmykw])?", fmt
        )
        if not m:
            raise _limit(f"{call}(..., {fmt!r})")
        color = kwargs.get("color", kwargs.get("c", m.group("c") or m.group("c2")))
        marker = kwargs.get("marker", m.group("m"))
        if marker is not None and marker not in MARKERS and marker not in ("", "None"):
            raise _limit(f"{call}(marker={marker!r})")
        style = kwargs.get("linestyle", kwargs.get("ls", m.group("l") or ("" if m.group("m") else "-")))
        if style not in LINESTYLES:
            raise _limit(f"{call}(linestyle={style!r})")
        line = _Line(
            x,
            y,
            _color(color, call) if color is not None else self._next_color(),
            marker if marker not in ("", "None") else None,
            LINESTYLES[style],
            kwargs.get("label"),
            float(kwargs.get("linewidth", kwargs.get("lw", 1.5))),
            float(kwargs.get("markersize", kwargs.get("ms", 6))),
            float(kwargs.get("alpha", 1)),
        )
        self.lines.append(line)
        return line

    def scatter(
        self,
        x,
        y,
        s=None,
        c=None,
        *,
        marker="o",
        cmap=None,
        alpha=None,
        edgecolors="face",
        linewidths=None,
        label=None,
        color=None,
        **kwargs,
    ):
        _only("ax.scatter", kwargs, set())
        if marker != "o":
            raise _limit(f"ax.scatter(marker={marker!r})")
        x, y = _array(x, "ax.scatter"), _array(y, "ax.scatter")
        sizes = np.broadcast_to(_array(36 if s is None else s, "ax.scatter"), x.shape)
        mappable = None
        if c is not None and not isinstance(c, str):
            values = _array(c, "ax.scatter")
            if cmap is None:
                raise _limit("ax.scatter(c=values) without cmap= (the default viridis)")
            colormap = _cmap(cmap, "ax.scatter")
            lo, hi = float(values.min()), float(values.max())
            colors = [_hex(rgb) for rgb in colormap((values - lo) / ((hi - lo) or 1))]
            mappable = Mappable(colormap, lo, hi)
        else:
            one = _color(c if c is not None else color, "ax.scatter") if (c or color) else self._next_color()
            colors = [one] * len(x)
        edge = None if edgecolors in ("face", None, "none") else _color(edgecolors, "ax.scatter")
        dot = _Scatter(
            x,
            y,
            colors,
            sizes,
            edge,
            1.0 if linewidths is None else float(linewidths),
            1.0 if alpha is None else float(alpha),
            label,
            mappable,
        )
        self.scatters.append(dot)
        return mappable or dot

    # fields
    def contourf(self, X, Y, Z, levels=None, *, cmap=None, alpha=None, **kwargs):
        _only("ax.contourf", kwargs, set())
        field = _Field(X, Y, Z, "ax.contourf")
        if cmap is None:
            raise _limit("ax.contourf without cmap= (the default viridis)")
        bounds = _levels(7 if levels is None else levels, field.z)
        colormap = _cmap(cmap, "ax.contourf")
        middles = (bounds[:-1] + bounds[1:]) / 2
        t = (middles - middles[0]) / ((middles[-1] - middles[0]) or 1)
        field.bounds, field.colors = bounds, colormap(t)
        field.alpha = 1.0 if alpha is None else float(alpha)
        self.filled.append(field)
        return Mappable(colormap, float(bounds[0]), float(bounds[-1]), (bounds, field.colors), field.alpha)

    def contour(self, X, Y, Z, levels=None, *, colors=None, linewidths=None, **kwargs):
        _only("ax.contour", kwargs, set())
        field = _Field(X, Y, Z, "ax.contour")
        if colors is None:
            raise _limit("ax.contour without colors= (the default viridis)")
        lo, hi = np.nanmin(field.z), np.nanmax(field.z)
        field.levels = [v for v in _levels(7 if levels is None else levels, field.z) if lo <= v <= hi]
        field.color = _color(colors, "ax.contour")
        field.width = 1.5 if linewidths is None else float(linewidths)
        self.contours.append(field)
        return field

    # words and limits
    def set(self, **kwargs):
        for key, value in kwargs.items():
            setter = getattr(type(self), f"set_{key}", None)
            if setter is None:
                raise _limit(f"ax.set({key}=...)")
            if key in ("xlim", "ylim") and isinstance(value, tuple | list):
                setter(self, *value)
            else:
                setter(self, value)

    def set_xlabel(self, text):
        self.xlabel = str(text)

    def set_ylabel(self, text):
        self.ylabel = str(text)

    def set_title(self, text):
        self.title = str(text)

    def set_xlim(self, left=None, right=None):
        self.lim["x"] = (left, right)

    def set_ylim(self, bottom=None, top=None):
        self.lim["y"] = (bottom, top)

    def set_xscale(self, value, base=10):
        self._scale("x", value, base)

    def set_yscale(self, value, base=10):
        self._scale("y", value, base)

    def _scale(self, axis, value, base):
        if value not in ("linear", "log") or base <= 1:
            raise _limit(f"ax.set_{axis}scale({value!r}, base={base!r})")
        self.scale[axis] = (value, base)

    def set_xticks(self, ticks, labels=None):
        self.ticks["x"] = [float(t) for t in ticks]
        if labels is not None:
            self.set_xticklabels(labels)

    def set_yticks(self, ticks, labels=None):
        self.ticks["y"] = [float(t) for t in ticks]
        if labels is not None:
            self.set_yticklabels(labels)

    def set_xticklabels(self, labels):
        self.ticklabels["x"] = [str(t) for t in labels]

    def set_yticklabels(self, labels):
        self.ticklabels["y"] = [str(t) for t in labels]

    def legend(self, *args, loc="best", **kwargs):
        if args or kwargs:
            raise _limit("ax.legend(" + ", ".join(["..."] * len(args) + [f"{k}=..." for k in kwargs]) + ")")
        if loc not in LOCATIONS:
            raise _limit(f"ax.legend(loc={loc!r})")
        self.legend_at = loc

    def grid(self, visible=True, **kwargs):
        _only("ax.grid", kwargs, set())
        self.show_grid = bool(visible)


LOCATIONS = [
    "best",
    "upper right",
    "upper left",
    "lower left",
    "lower right",
    "right",
    "center left",
    "center right",
    "lower center",
    "upper center",
    "center",
]


class Figure(_Strict):
    _name = "fig"

    def __init__(self, figsize):
        self.size = (float(figsize[0]), float(figsize[1]))
        self.axes = []

    def colorbar(self, mappable, ax=None, label="", **kwargs):
        _only("fig.colorbar", kwargs, set())
        if not isinstance(mappable, Mappable):
            raise _limit(f"fig.colorbar of {type(mappable).__name__}")
        target = ax if ax is not None else self.axes[-1]
        target.colorbar = (mappable, str(label))
        return mappable


# --- pyplot ---------------------------------------------------------------------------------------------

_open: list[Figure] = []


def subplots(nrows=1, ncols=1, *, figsize=(6.4, 4.8), layout=None, squeeze=True, **kwargs):
    _only("plt.subplots", kwargs, set())
    if layout not in (None, "constrained", "tight"):
        raise _limit(f"plt.subplots(layout={layout!r})")
    fig = Figure(figsize)
    fig.grid = (int(nrows), int(ncols))
    grid = np.empty((nrows, ncols), dtype=object)
    for r in range(nrows):
        for c in range(ncols):
            grid[r, c] = Axes(fig)
            grid[r, c].cell = (r, c)
            fig.axes.append(grid[r, c])
    _open.append(fig)
    if squeeze and nrows == ncols == 1:
        return fig, grid[0, 0]
    return fig, (grid.reshape(-1) if squeeze and 1 in (nrows, ncols) else grid)


def close(fig=None):
    if fig is None or fig == "all":
        _open.clear()
    elif fig in _open:
        _open.remove(fig)


def show(*args, **kwargs):
    """Draw every open figure, in order, and close it (as Jupyter's inline backend does)."""
    _only("plt.show", kwargs, {"block"})
    figures = list(_open)
    _open.clear()
    for fig in figures:
        if display is not None:
            sys.stdout.flush()  # what the block printed before the figure shows before it
            display(_url(svg(fig)), texts(fig), _url(svg(fig, phone=True)))


def _url(drawing):
    return "data:image/svg+xml;base64," + base64.b64encode(drawing.encode()).decode()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _Missing(LIMIT.format(call=f"plt.{name}"))


def texts(fig):
    """The words on a figure, in reading order, for the image's alternative text."""
    words = []
    for ax in fig.axes:
        labels = [_plain(t) for t in (ax.title, ax.ylabel, ax.xlabel) if t]
        labels += [_plain(item.label) for item in ax.lines + ax.scatters if _shown(item.label)]
        if ax.colorbar and ax.colorbar[1]:
            labels.append(_plain(ax.colorbar[1]))
        words.append(", ".join(labels))
    return "; ".join(w for w in words if w)


def _shown(label):
    return label is not None and not str(label).startswith("_")


# --- drawing --------------------------------------------------------------------------------------------


class _Scale:
    """Data to points along one axis: linear, or logarithmic in any base."""

    def __init__(self, kind, base, lo, hi, start, end):
        self.kind, self.base = kind, base
        f = self.f
        self.lo, self.hi, self.a, self.span = lo, hi, start, (end - start) / ((f(hi) - f(lo)) or 1)

    def f(self, v):
        if self.kind == "log":
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(
                    np.asarray(v) > 0, np.log(np.maximum(v, 1e-300)) / math.log(self.base), np.nan
                )
        return np.asarray(v, dtype=float)

    def __call__(self, v):
        return self.a + (self.f(v) - self.f(self.lo)) * self.span


def _data_range(ax, axis):
    kind = ax.scale[axis][0]
    values = []
    for line in ax.lines:
        values.append(line.x if axis == "x" else line.y)
    for dot in ax.scatters:
        values.append(dot.x if axis == "x" else dot.y)
    for field in ax.filled + ax.contours:
        values.append(field.x if axis == "x" else field.y)
    v = np.concatenate([np.ravel(a) for a in values]) if values else np.array([0.0, 1.0])
    v = v[np.isfinite(v) & ((v > 0) if kind == "log" else True)]
    if v.size == 0:
        v = np.array([1.0, 10.0] if kind == "log" else [0.0, 1.0])
    return float(v.min()), float(v.max())


def _limits(ax, axis):
    kind, base = ax.scale[axis]
    lo, hi = _data_range(ax, axis)
    sticky = bool(ax.filled or ax.contours)  # a field fills its axes edge to edge, as in matplotlib
    f = (lambda v: math.log(v, base)) if kind == "log" else (lambda v: v)
    g = (lambda v: base**v) if kind == "log" else (lambda v: v)
    a, b = f(lo), f(hi)
    if a == b:
        a, b = (
            a - (1 if a == 0 or kind == "log" else abs(a) * 0.05),
            b + (1 if b == 0 or kind == "log" else abs(b) * 0.05),
        )
    elif not sticky:
        a, b = a - 0.05 * (b - a), b + 0.05 * (b - a)
    lo, hi = g(a), g(b)
    want = ax.lim[axis]
    lo = lo if want[0] is None else float(want[0])
    hi = hi if want[1] is None else float(want[1])
    return lo, hi


def _ticks(ax, axis, lo, hi, length):
    kind, base = ax.scale[axis]
    if ax.ticks[axis] is not None:
        values = [v for v in ax.ticks[axis]]
        labels = ax.ticklabels[axis] or [_number(v, _step_of(values)) for v in values]
        if len(labels) != len(values):
            raise ValueError(f"{len(labels)} tick labels for {len(values)} ticks on the {axis} axis")
        return values, labels, []
    if ax.ticklabels[axis] is not None:
        raise _limit(f"ax.set_{axis}ticklabels without ax.set_{axis}ticks")
    if kind == "log":
        return _spaced(*_log_ticks(lo, hi, base), lo, base, length / (math.log(hi / lo, base) or 1), axis)
    # matplotlib's room for ticks: a label three font sizes wide along x, two tall along y; 9 at most
    bins = max(1, min(9, int(length / (FONT * (3 if axis == "x" else 2)))))
    values, labels = _linear_ticks(lo, hi, bins)
    return values, labels, []


def _step_of(values):
    gaps = [abs(b - a) for a, b in zip(values, values[1:], strict=False) if b != a]
    return min(gaps) if gaps else 1.0


def svg(fig, phone=False):
    """The figure as an SVG document (points as units, 100 pixels to the inch, like Jupyter's figures).
    phone: the drawing a narrow screen shows instead (run.js), its axes in one column, each at most 4.2 by
    3.2 inches, so that its text, shrunk to the screen's width, can still be read."""
    rows, cols = fig.grid
    w, h = fig.size[0] / cols * 72, fig.size[1] / rows * 72  # one axes' cell, in points
    if phone:
        w, h, rows, cols = min(w, 4.2 * 72), min(h, 3.2 * 72), rows * cols, 1
    W, H = w * cols, h * rows
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W / 0.72:.0f}" '
        f'height="{H / 0.72:.0f}" viewBox="0 0 {W:.1f} {H:.1f}" font-family="{FONT_FAMILY}">',
        f'<rect width="{W:.1f}" height="{H:.1f}" fill="#ffffff"/>',
    ]
    for n, ax in enumerate(fig.axes):
        r, c = (n, 0) if phone else ax.cell
        out += _draw_axes(ax, (c * w, r * h, (c + 1) * w, (r + 1) * h), n)
    out.append("</svg>")
    return "\n".join(out)


def _draw_axes(ax, box, n):
    x0, y0, x1, y1 = box
    pad = 4.0
    # a first guess of the y tick labels' width, then the plot area between the margins
    ylo, yhi = _limits(ax, "y")
    yvalues, ylabels, _ = _ticks(ax, "y", ylo, yhi, y1 - y0)
    left = x0 + pad + (FONT * 1.4 if ax.ylabel else 0) + max([_width(t) for t in ylabels] + [0]) + TICK + 3.5
    right = x1 - pad - 8
    bar = None
    if ax.colorbar:
        mappable, label = ax.colorbar
        bar_labels = _linear_ticks(mappable.lo, mappable.hi, 6)[1]
        bar_room = 12 + max(_width(t) for t in bar_labels) + TICK + 3.5 + (FONT * 1.4 if label else 0)
        right -= bar_room + 8
        bar = (right + 10, right + 22)
    top = y0 + pad + 6 + (FONT * 1.2 * 1.5 if ax.title else 0)
    bottom = y1 - pad - FONT * 1.2 - TICK - 3.5 - (FONT * 1.5 if ax.xlabel else 0)
    xlo, xhi = _limits(ax, "x")
    sx = _Scale(*ax.scale["x"], xlo, xhi, left, right)
    sy = _Scale(*ax.scale["y"], ylo, yhi, bottom, top)
    xvalues, xlabels, xminor = _ticks(ax, "x", xlo, xhi, right - left)
    yvalues, ylabels, yminor = _ticks(ax, "y", ylo, yhi, bottom - top)
    out = [
        f'<g class="axes" data-axes="{n}">',
        f'<clipPath id="clip{n}"><rect x="{left:.1f}" y="{top:.1f}" width="{right - left:.1f}" '
        f'height="{bottom - top:.1f}"/></clipPath>',
    ]
    inside = lambda v, lo, hi: min(lo, hi) - 1e-9 * abs(hi - lo) <= v <= max(lo, hi) + 1e-9 * abs(hi - lo)  # noqa: E731
    if ax.show_grid:
        for v in xvalues:
            if inside(v, xlo, xhi):
                out.append(
                    f'<line x1="{sx(v):.1f}" y1="{top:.1f}" x2="{sx(v):.1f}" y2="{bottom:.1f}" '
                    'stroke="#b0b0b0" stroke-width="0.8"/>'
                )
        for v in yvalues:
            if inside(v, ylo, yhi):
                out.append(
                    f'<line x1="{left:.1f}" y1="{sy(v):.1f}" x2="{right:.1f}" y2="{sy(v):.1f}" '
                    'stroke="#b0b0b0" stroke-width="0.8"/>'
                )
    out.append(f'<g clip-path="url(#clip{n})">')
    for field in ax.filled:
        out.append(_raster(field, sx, sy, left, top, right, bottom))
    for field in ax.contours:
        out.append(_contour_path(field, sx, sy))
    for line in ax.lines:
        out += _draw_line(line, sx, sy)
    for dot in ax.scatters:
        out += _draw_scatter(dot, sx, sy)
    out.append("</g>")
    out.append(
        f'<rect class="frame" x="{left:.1f}" y="{top:.1f}" width="{right - left:.1f}" '
        f'height="{bottom - top:.1f}" fill="none" stroke="#000000" stroke-width="0.8"/>'
    )
    # ticks and their labels
    for v, label in zip(xvalues, xlabels, strict=False):
        if inside(v, xlo, xhi):
            x = sx(v)
            out.append(
                f'<line class="xtick" x1="{x:.1f}" y1="{bottom:.1f}" x2="{x:.1f}" y2="{bottom + TICK:.1f}" '
                'stroke="#000000" stroke-width="0.8"/>'
            )
            out.append(_text(x, bottom + TICK + 3.5, label, "xticklabel", baseline="hanging"))
    for v in xminor:
        x = sx(v)
        out.append(
            f'<line class="xminor" x1="{x:.1f}" y1="{bottom:.1f}" x2="{x:.1f}" y2="{bottom + 2:.1f}" '
            'stroke="#000000" stroke-width="0.6"/>'
        )
    for v, label in zip(yvalues, ylabels, strict=False):
        if inside(v, ylo, yhi):
            y = sy(v)
            out.append(
                f'<line class="ytick" x1="{left - TICK:.1f}" y1="{y:.1f}" x2="{left:.1f}" y2="{y:.1f}" '
                'stroke="#000000" stroke-width="0.8"/>'
            )
            out.append(_text(left - TICK - 3.5, y, label, "yticklabel", anchor="end"))
    for v in yminor:
        y = sy(v)
        out.append(
            f'<line class="yminor" x1="{left - 2:.1f}" y1="{y:.1f}" x2="{left:.1f}" y2="{y:.1f}" '
            'stroke="#000000" stroke-width="0.6"/>'
        )
    if ax.xlabel:
        out.append(_text((left + right) / 2, y1 - pad - FONT * 0.8, ax.xlabel, "xlabel"))
    if ax.ylabel:
        out.append(_text(x0 + pad + FONT * 0.6, (top + bottom) / 2, ax.ylabel, "ylabel", rotate=True))
    if ax.title:
        out.append(_text((left + right) / 2, y0 + pad + FONT * 0.9, ax.title, "title", size=FONT * 1.2))
    if ax.legend_at:
        out += _legend(ax, sx, sy, (left, top, right, bottom))
    if bar:
        out += _colorbar(*ax.colorbar, bar, top, bottom)
    out.append("</g>")
    return out


def _path(xs, ys):
    """One path through the points; a point that cannot be drawn (NaN, or <= 0 on a log axis) breaks it."""
    parts, pen = [], "M"
    for x, y in zip(xs, ys, strict=False):
        if not (math.isfinite(x) and math.isfinite(y)):
            pen = "M"
            continue
        parts.append(f"{pen}{x:.1f} {y:.1f}")
        pen = "L"
    return "".join(parts)


def _marker(kind, x, y, size, fill, edge, width):
    r = size / 2
    paint = f'fill="{fill}" stroke="{edge}" stroke-width="{width:g}"'
    if kind == "o" or kind == ".":
        r = r / 2 if kind == "." else r
        return f'<circle class="marker" cx="{x:.1f}" cy="{y:.1f}" r="{r:.2f}" {paint}/>'
    if kind == "s":
        corner = f'x="{x - r:.1f}" y="{y - r:.1f}"'
        return f'<rect class="marker" {corner} width="{size:.1f}" height="{size:.1f}" {paint}/>'
    shapes = {
        "^": [(0, -r), (r, r), (-r, r)],
        "v": [(0, r), (r, -r), (-r, -r)],
        "D": [(0, -r), (r * 0.7, 0), (0, r), (-r * 0.7, 0)],
    }
    if kind in shapes:
        points = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in shapes[kind])
        return f'<polygon class="marker" points="{points}" {paint}/>'
    d = {
        "x": f"M{x - r:.1f} {y - r:.1f}L{x + r:.1f} {y + r:.1f}"
        f"M{x - r:.1f} {y + r:.1f}L{x + r:.1f} {y - r:.1f}",
        "+": f"M{x - r:.1f} {y:.1f}L{x + r:.1f} {y:.1f}M{x:.1f} {y - r:.1f}L{x:.1f} {y + r:.1f}",
    }[kind]
    return f'<path class="marker" d="{d}" fill="none" stroke="{fill}" stroke-width="{width:g}"/>'


def _dash(dashes, width):
    if dashes is None:
        return ""
    return ' stroke-dasharray="' + ",".join(f"{d * width:.2f}" for d in dashes) + '"'


def _draw_line(line, sx, sy):
    xs, ys = sx(line.x), sy(line.y)
    out = [f'<g class="series" data-label="{escape(_plain(line.label or ""))}" opacity="{line.alpha:g}">']
    if line.dashes != "none":
        out.append(
            f'<path d="{_path(xs, ys)}" fill="none" stroke="{line.color}" stroke-width="{line.width:g}" '
            f'stroke-linejoin="round"{_dash(line.dashes, line.width)}/>'
        )
    if line.marker:
        out += [
            _marker(line.marker, x, y, line.size, line.color, line.color, 1.0)
            for x, y in zip(xs, ys, strict=False)
            if math.isfinite(x) and math.isfinite(y)
        ]
    out.append("</g>")
    return out


def _draw_scatter(dot, sx, sy):
    xs, ys = sx(dot.x), sy(dot.y)
    out = [
        f'<g class="series scatter" data-label="{escape(_plain(dot.label or ""))}" opacity="{dot.alpha:g}">'
    ]
    for x, y, size, color in zip(xs, ys, dot.sizes, dot.colors, strict=False):
        if math.isfinite(x) and math.isfinite(y):
            out.append(
                _marker(
                    "o", x, y, math.sqrt(size), color, dot.edge or color, dot.edge_width if dot.edge else 0
                )
            )
    out.append("</g>")
    return out


def _raster(field, sx, sy, left, top, right, bottom):
    """A filled contour as an image: every pixel the colour of the band its value falls in (the value read
    off the grid by bilinear interpolation, as contourf's bands do between grid points), two pixels a
    point."""
    w, h = max(1, int((right - left) * 2)), max(1, int((bottom - top) * 2))
    px = (np.arange(w) + 0.5) / 2 + left
    py = (np.arange(h) + 0.5) / 2 + top
    # pixel centres back to data (the scales are linear or log: invert the one used)
    xs, ys = _inverse(sx, px), _inverse(sy, py)
    z = _bilinear(field.x, field.y, field.z, xs, ys)
    band = np.searchsorted(field.bounds, z, side="right") - 1
    band[z == field.bounds[-1]] = len(field.bounds) - 2
    ok = (band >= 0) & (band < len(field.bounds) - 1) & np.isfinite(z)
    rgba = np.zeros((h, w, 4), dtype=np.uint8)
    rgba[..., :3] = np.round(field.colors[np.clip(band, 0, len(field.colors) - 1)]).astype(np.uint8)
    rgba[..., 3] = np.where(ok, round(255 * field.alpha), 0)
    return (
        f'<image class="field" x="{left:.1f}" y="{top:.1f}" width="{right - left:.1f}" '
        f'height="{bottom - top:.1f}" preserveAspectRatio="none" href="data:image/png;base64,{_png(rgba)}"/>'
    )


def _inverse(scale, points):
    t = scale.f(scale.lo) + (points - scale.a) / scale.span
    return scale.base**t if scale.kind == "log" else t


def _bilinear(gx, gy, z, xs, ys):
    def where(grid, values):
        i = np.clip(np.searchsorted(grid, values) - 1, 0, len(grid) - 2)
        t = (values - grid[i]) / (grid[i + 1] - grid[i])
        t[(values < grid[0]) | (values > grid[-1])] = np.nan
        return i, t

    i, tx = where(gx, xs)
    j, ty = where(gy, ys)
    J, I = np.meshgrid(j, i, indexing="ij")
    TY, TX = np.meshgrid(ty, tx, indexing="ij")
    return (z[J, I] * (1 - TX) + z[J, I + 1] * TX) * (1 - TY) + (
        z[J + 1, I] * (1 - TX) + z[J + 1, I + 1] * TX
    ) * TY


def _png(rgba):
    h, w, _ = rgba.shape
    raw = b"".join(b"\x00" + rgba[row].tobytes() for row in range(h))

    def chunk(kind, data):
        return (
            len(data).to_bytes(4, "big")
            + kind
            + data
            + (zlib.crc32(kind + data) & 0xFFFFFFFF).to_bytes(4, "big")
        )

    header = w.to_bytes(4, "big") + h.to_bytes(4, "big") + bytes([8, 6, 0, 0, 0])
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode()


def _contour_path(field, sx, sy):
    """Contour lines by marching squares: in each grid cell that a level crosses, a segment between the two
    points where it crosses the cell's edges (read off linearly, as matplotlib does)."""
    x, y, z = field.x, field.y, field.z
    parts = []
    for level in field.levels:
        above = z > level
        corners = [
            (slice(None, -1), slice(None, -1)),
            (slice(None, -1), slice(1, None)),
            (slice(1, None), slice(1, None)),
            (slice(1, None), slice(None, -1)),
        ]
        X, Y = np.meshgrid(x, y)
        points, crossed = [], []
        for k in range(4):  # edges: bottom, right, top, left (each from corner k to corner k+1)
            a, b = corners[k], corners[(k + 1) % 4]
            za, zb = z[a], z[b]
            with np.errstate(divide="ignore", invalid="ignore"):
                t = (level - za) / (zb - za)
                points.append(np.stack([X[a] + t * (X[b] - X[a]), Y[a] + t * (Y[b] - Y[a])], axis=-1))
            crossed.append(above[a] != above[b])
        crossed, points = np.array(crossed), np.array(points)
        count = crossed.sum(axis=0)
        first = np.argmax(crossed, axis=0)
        second = 3 - np.argmax(crossed[::-1], axis=0)
        for r, c in zip(*np.nonzero(count == 2), strict=False):
            p, q = points[first[r, c], r, c], points[second[r, c], r, c]
            parts.append(f"M{sx(p[0]):.1f} {sy(p[1]):.1f}L{sx(q[0]):.1f} {sy(q[1]):.1f}")
        for r, c in zip(*np.nonzero(count == 4), strict=False):
            for e, f in ((0, 3), (1, 2)):
                p, q = points[e, r, c], points[f, r, c]
                parts.append(f"M{sx(p[0]):.1f} {sy(p[1]):.1f}L{sx(q[0]):.1f} {sy(q[1]):.1f}")
    return (
        f'<path class="contour" d="{"".join(parts)}" fill="none" stroke="{field.color}" '
        f'stroke-width="{field.width:g}" stroke-linecap="round"/>'
    )


def _legend(ax, sx, sy, area):
    items = [item for item in ax.lines + ax.scatters if _shown(item.label)]
    if not items:
        return []
    left, top, right, bottom = area
    line_h = FONT * 1.4
    w = 10 + 20 + 8 + max(_width(item.label) for item in items) + 8
    h = 6 + line_h * len(items)
    pad = 6
    spots = {
        "upper right": (right - pad - w, top + pad),
        "upper left": (left + pad, top + pad),
        "lower left": (left + pad, bottom - pad - h),
        "lower right": (right - pad - w, bottom - pad - h),
        "right": (right - pad - w, (top + bottom - h) / 2),
        "center left": (left + pad, (top + bottom - h) / 2),
        "center right": (right - pad - w, (top + bottom - h) / 2),
        "lower center": ((left + right - w) / 2, bottom - pad - h),
        "upper center": ((left + right - w) / 2, top + pad),
        "center": ((left + right - w) / 2, (top + bottom - h) / 2),
    }
    if (
        ax.legend_at == "best"
    ):  # where it covers the fewest drawn points, the first such spot in matplotlib's order
        points = [(sx(item.x), sy(item.y)) for item in ax.lines + ax.scatters]
        xs = np.concatenate([p[0] for p in points]) if points else np.array([])
        ys = np.concatenate([p[1] for p in points]) if points else np.array([])
        lx, ly = min(
            spots.items(),
            key=lambda s: np.sum(
                (xs >= s[1][0]) & (xs <= s[1][0] + w) & (ys >= s[1][1]) & (ys <= s[1][1] + h)
            ),
        )[1]
    else:
        lx, ly = spots[ax.legend_at]
    out = [
        f'<g class="legend"><rect x="{lx:.1f}" y="{ly:.1f}" width="{w:.1f}" height="{h:.1f}" rx="2" '
        'fill="#ffffff" fill-opacity="0.8" stroke="#cccccc" stroke-width="0.8"/>'
    ]
    for k, item in enumerate(items):
        y = ly + 3 + line_h * (k + 0.5)
        x = lx + 10
        if isinstance(item, _Line):
            if item.dashes != "none":
                out.append(
                    f'<path d="M{x:.1f} {y:.1f}L{x + 20:.1f} {y:.1f}" stroke="{item.color}" '
                    f'stroke-width="{item.width:g}"{_dash(item.dashes, item.width)}/>'
                )
            if item.marker:
                out.append(_marker(item.marker, x + 10, y, item.size, item.color, item.color, 1.0))
        else:
            out.append(
                _marker(
                    "o",
                    x + 10,
                    y,
                    math.sqrt(float(np.mean(item.sizes))),
                    item.colors[0],
                    item.edge or item.colors[0],
                    item.edge_width if item.edge else 0,
                )
            )
        out.append(_text(x + 28, y, item.label, "legendlabel", anchor="start"))
    out.append("</g>")
    return out


def _colorbar(mappable, label, bar, top, bottom):
    a, b = bar
    scale = _Scale("linear", 10, mappable.lo, mappable.hi, bottom, top)
    out = [f'<g class="colorbar"><g opacity="{mappable.alpha:g}">']
    if mappable.bands is not None:
        bounds, colors = mappable.bands
        for lo, hi, rgb in zip(bounds[:-1], bounds[1:], colors, strict=False):
            out.append(
                f'<rect x="{a:.1f}" y="{scale(hi):.2f}" width="{b - a:.1f}" '
                f'height="{scale(lo) - scale(hi) + 0.3:.2f}" fill="{_hex(rgb)}"/>'
            )
    else:
        steps = np.linspace(mappable.lo, mappable.hi, 65)
        for lo, hi in zip(steps[:-1], steps[1:], strict=False):
            rgb = mappable.cmap(
                np.array([((lo + hi) / 2 - mappable.lo) / ((mappable.hi - mappable.lo) or 1)])
            )[0]
            out.append(
                f'<rect x="{a:.1f}" y="{scale(hi):.2f}" width="{b - a:.1f}" '
                f'height="{scale(lo) - scale(hi) + 0.3:.2f}" fill="{_hex(rgb)}"/>'
            )
    out.append("</g>")
    out.append(
        f'<rect x="{a:.1f}" y="{top:.1f}" width="{b - a:.1f}" height="{bottom - top:.1f}" fill="none" '
        'stroke="#000000" stroke-width="0.8"/>'
    )
    values, labels = _linear_ticks(mappable.lo, mappable.hi, max(1, min(9, int((bottom - top) / (FONT * 2)))))
    widest = 0.0
    for v, text in zip(values, labels, strict=False):
        y = scale(v)
        out.append(
            f'<line x1="{b:.1f}" y1="{y:.1f}" x2="{b + TICK:.1f}" y2="{y:.1f}" stroke="#000000" '
            'stroke-width="0.8"/>'
        )
        out.append(_text(b + TICK + 3.5, y, text, "cbticklabel", anchor="start"))
        widest = max(widest, _width(text))
    if label:
        out.append(
            _text(b + TICK + 3.5 + widest + FONT * 0.9, (top + bottom) / 2, label, "cblabel", rotate=True)
        )
    out.append("</g>")
    return out
