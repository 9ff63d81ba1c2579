"""The nudge explorer (page 08, "Choosing ε"): move one knob, pick a step ε and a precision, and watch the
two estimates.

The knob is the one page 01 nudges by hand: weight [1, 0] of the first layer of page 01's 2-4-2 tanh MLP
(the "model" and "nudge" sections of snippets/lessons/a_billion_knobs.py, run as the page runs them, with
its own loss). For each precision (float64, the page's model as it is, and float32, a copy of the same model
with every parameter and input rounded to float32), every knob position of a grid around the lesson's value,
and every ε of a logarithmic grid from 1e-12 to 1, this precomputes with culpa: the loss L, the one-sided
(progressive) difference and the central difference, both by culpa.check.finite_difference (which divides by
the step the precision really took, and refuses a step that vanishes in it: those cells are empty), the exact
slope from one backward pass, and the error of each estimate against it. Everything is written for pt and
en, and the two small plots (L against the knob, the error against ε) are laid out here too, in the plots'
own units: the script only reveals. "sides" says where the error plot puts small and large ε.

Beside that smooth knob, a knob at a kink ("kink"): element [1] of page 08's `near_kink`, in its own loss
`relu_loss(near_kink)` (the "kink" section of snippets/lessons/honest_habits.py), on a grid around the
kink itself, θ = 0, where no ε helps; the same grids, plots and precisions, under data["kink"].

The reader's numbers: a value θ for the knob chosen (smooth or kink). `read(fields)` reads it, and
`export(theta, kind)` computes the same data for that knob alone, at that θ only (every ε, both precisions;
its curve around θ), as the page in the reader's browser does. The reader's knobs are kept from one
θ to the next, with every loss they computed: the curve's points sit on a lattice, so a new θ reuses most.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from sitebuild import lessons
from sitebuild.explorers import formula, power, read_number, short, spoken_power, text

INPUTS = ["snippets/lessons/a_billion_knobs.py", "snippets/lessons/honest_habits.py"]
KINDS = ("smooth", "kink")  # the knobs the reader can choose; the first is where the explorer starts
# the kink's grid: around the kink itself, close enough that the steps that cross it show
KINK_OFFSETS = np.round(np.linspace(-0.3, 0.3, 13), 10)
KINK_CURVE = (0.65, 105)  # where L is drawn around the kink: half-width in θ, points
TANGENT = {"smooth": 0.8, "kink": 0.2}  # half the tangent's length, in θ
LIMIT = 5.0  # the reader's θ, at most this far from 0

OFFSETS = np.round(np.linspace(-1.5, 1.5, 13), 10)  # knob positions around the lesson's value
EPS_EXPONENTS = np.arange(-24, 1) / 2  # ε = 10^-12, 10^-11.5, ..., 1
DEFAULT_EPS = int(np.flatnonzero(EPS_EXPONENTS == -5)[0])  # ε = 1e-5; each knob starts at its grid's middle
PRECISIONS = ("float64", "float32")  # the first is where the explorer starts
CURVE = (2.6, 105)  # where L is drawn: half-width in θ (wide enough for θ ± 1 at the grid's ends), points
KEPT_LOSSES = 20_000  # the most losses a reader's knob keeps (a 0-d tensor each, about 0.4 KB: 8 MB at most)
FLOOR = 1e-17  # an error that is exactly 0 is drawn here on the log axis
PLOT_L = {"width": 320, "height": 180, "pad": 14}
PLOT_E = {"width": 320, "height": 180, "pad": 14, "low": -17, "high": 1}
NONE = {"pt": "—", "en": "—"}  # a cell whose step vanished in the precision: nothing to show


def _page():
    return lessons.run("a_billion_knobs.py", "model", "nudge")


def _kink_page():
    """Page 08's kink section (after new_op, which it uses), run once per version of the lesson: each
    KinkKnob copies what it changes, and the reader's recomputes in the page skip its gradchecks."""
    version = (lessons.LESSONS / "honest_habits.py").stat().st_mtime_ns
    return _kink_page_of(version)


@functools.cache
def _kink_page_of(_version: int):
    return lessons.run("honest_habits.py", "new_op", "kink")


def read(fields: dict) -> tuple[dict, list]:
    """The reader's fields ({"theta": text, "kind": "smooth" or "kink"}) as export()'s arguments, or the
    problems (each names its field and what is wrong, for the page's words to say)."""
    problems = []
    theta, problem = read_number(fields.get("theta", ""), -LIMIT, LIMIT)
    if problem:
        problems.append({"field": "theta", **problem})
    kind = str(fields.get("kind", "")).strip()
    if kind not in KINDS:
        problems.append({"field": "kind", "problem": "kind", "text": kind})
    return ({} if problems else {"theta": theta, "kind": kind}), problems


class Knob:
    """Page 01's model in one precision, and the knob W⁽¹⁾[1, 0] in it: the loss, the exact slope and the
    two estimates with the knob at any θ (the knob is put back every time)."""

    index = (1, 0)

    def __init__(self, page, precision: str):
        import culpa

        self.dtype = np.dtype(precision)
        model = page["model"]
        if self.dtype == np.float64:
            self.model, self.X = model, page["X"]
        else:  # the same model, every parameter and input rounded to this precision
            self.model = culpa.nn.MLP(model.sizes, activation=model.activation, dtype=self.dtype.type)
            for mine, theirs in zip(self.model.parameters(), model.parameters(), strict=True):
                mine.data[...] = theirs.data
            self.X = np.asarray(page["X"], dtype=self.dtype)
        self.labels = page["labels"]
        self.weight = self.model.layers[0].weight
        self.parameters = self.model.parameters()

    def loss(self):
        import culpa

        return culpa.cross_entropy(self.model(self.X), self.labels)

    def _at(self, theta):
        old = self.weight.data[self.index]
        self.weight.data[self.index] = theta
        return old

    def measure(self, theta: float) -> tuple[float, float]:
        """L and the exact slope ∂L/∂θ (one backward pass) with the knob at theta."""
        old = self._at(theta)
        try:
            for p in self.parameters:
                p.zero_grad()
            loss = self.loss()
            loss.backward()
            return float(loss.item()), float(self.weight.grad[self.index])
        finally:
            self.weight.data[self.index] = old

    def value(self, theta: float) -> float:
        old = self._at(theta)
        try:
            return float(self._loss_here().item())
        finally:
            self.weight.data[self.index] = old

    def _loss_here(self):
        """The loss, without a graph, with the knob where it is now, each knob value computed once: an
        export asks for the same few again and again (f(θ) for every ε's forward difference, f(θ ± ε) for
        both differences and for the secant drawn through them), and the reader's knobs, kept between
        exports, the curve's points of the θ before. The knob's value in its precision is the key: the loss
        is a function of it alone (the knob is the only thing that moves in its model)."""
        import culpa

        memo = self.__dict__.setdefault("_losses", {})
        knob = float(self.weight.data[self.index])
        if knob not in memo:
            if len(memo) >= KEPT_LOSSES:  # a reader's long session: start afresh
                memo.clear()
            with culpa.no_grad():
                memo[knob] = self.loss()
        return memo[knob]

    def estimate(self, theta: float, eps: float, method: str) -> float | None:
        """culpa.check.finite_difference of the loss in θ alone; None where the step vanishes in this
        precision."""
        import culpa

        def loss_of(t):  # called by finite_difference, without a graph
            self.weight.data[self.index] = t.data[0]
            return self._loss_here()

        old = self.weight.data[self.index]
        start = culpa.Tensor(np.array([theta], dtype=self.dtype))
        try:
            (slope,) = culpa.check.finite_difference(loss_of, [start], eps=eps, method=method)
        except ValueError:
            return None
        finally:
            self.weight.data[self.index] = old
        return float(slope[0])


class KinkKnob(Knob):
    """Page 08's `relu_loss(near_kink)` in one precision, and the knob near_kink[1] in it (a copy of the
    lesson's tensor, rounded to the precision): the same measures as Knob."""

    index = (1,)

    def __init__(self, page, precision: str):  # noqa: D107 (not Knob's: no model here)
        import culpa

        self.dtype = np.dtype(precision)
        self.relu_loss = page["relu_loss"]
        self.weight = culpa.Tensor(np.asarray(page["near_kink"].data, dtype=self.dtype), requires_grad=True)
        self.parameters = [self.weight]

    def loss(self):
        return self.relu_loss(self.weight)


def _knob(kind: str, page, precision: str) -> Knob:
    return (Knob if kind == "smooth" else KinkKnob)(page, precision)


def _reader_knobs(kind: str) -> dict[str, Knob]:
    """The knobs of the reader's exports, one per precision, kept from one export to the next (for each
    version of the lesson): the L curve sits on a lattice (`_curve`), so the reader's next θ finds most of
    its losses computed, as each knob keeps every loss it computed (`Knob._loss_here`)."""
    lesson = "a_billion_knobs.py" if kind == "smooth" else "honest_habits.py"
    return _kept_knobs(kind, (lessons.LESSONS / lesson).stat().st_mtime_ns)


@functools.cache
def _kept_knobs(kind: str, _version: int) -> dict[str, Knob]:
    page = _page() if kind == "smooth" else _kink_page()
    return {precision: _knob(kind, page, precision) for precision in PRECISIONS}


def _curve(kind: str, center: float) -> np.ndarray:
    """Where L is drawn: evenly spaced θ around `center`, on the lattice of multiples of their spacing
    (centred on `center` to within half a spacing), so that curves around nearby θ share their points."""
    half, count = CURVE if kind == "smooth" else KINK_CURVE
    spacing = 2 * half / (count - 1)
    first = round((center - half) / spacing)
    return np.round((first + np.arange(count)) * spacing, 12)


def _lesson_theta(kind: str, page) -> float:
    """Where the book centres each knob's grid: the smooth knob's value in page 01's model, the kink."""
    return float(page["knob"].data[1, 0]) if kind == "smooth" else 0.0


def _xy_e(exponent, error):
    """Where an error sits on the error plot: log ε across (small ε on the left), log error up."""
    w, h, pad, lo, hi = (PLOT_E[k] for k in ("width", "height", "pad", "low", "high"))
    x = pad + (exponent - EPS_EXPONENTS[0]) / (EPS_EXPONENTS[-1] - EPS_EXPONENTS[0]) * (w - 2 * pad)
    level = math.log10(max(error, FLOOR))
    y = h - pad - (min(max(level, lo), hi) - lo) / (hi - lo) * (h - 2 * pad)
    return [round(float(x), 1), round(float(y), 1)]


def _view(kind: str, page, center: float, offsets, models: dict[str, Knob] | None = None) -> dict:
    """One knob's grids: for each precision, each θ = center + offset and each ε, what the explorer shows;
    the L plot (its curve around `center`). `models`: the knob to ask in each precision (new ones if
    None)."""
    models = models or {precision: _knob(kind, page, precision) for precision in PRECISIONS}
    curve_x = _curve(kind, center)
    exact64 = models["float64"]
    curve_y = [exact64.value(t) for t in curve_x]
    low, high = min(curve_y), max(curve_y)
    span = (high - low) or 1.0

    def xy_l(theta, value):  # the L plot: knob across, loss up
        w, h, pad = PLOT_L["width"], PLOT_L["height"], PLOT_L["pad"]
        x = pad + (theta - curve_x[0]) / (curve_x[-1] - curve_x[0]) * (w - 2 * pad)
        y = h - pad - (value - low) / span * (h - 2 * pad)
        return [round(float(x), 1), round(float(np.clip(y, -40, h + 40)), 1)]

    grids, reach = {}, TANGENT[kind]
    for precision in PRECISIONS:
        model = models[precision]
        knobs = []
        for theta in center + np.asarray(offsets):
            value, exact = model.measure(float(theta))
            cells = []
            for exponent in EPS_EXPONENTS:
                eps = float(10.0**exponent)  # a Python float, as a reader writes it
                forward = model.estimate(float(theta), eps, "forward")
                central = model.estimate(float(theta), eps, "central")
                if forward is None or central is None:
                    cells.append({"forward": NONE, "central": NONE, "error_forward": NONE,
                                  "error_central": NONE, "secant": None, "at": [None, None]})
                    continue
                err_f, err_c = abs(forward - exact), abs(central - exact)
                cells.append({
                    "forward": text(forward, ".10f"), "central": text(central, ".10f"),
                    "error_forward": power(err_f), "error_central": power(err_c),
                    "secant": [xy_l(theta - eps, model.value(float(theta) - eps)),
                               xy_l(theta + eps, model.value(float(theta) + eps))],
                    "at": [_xy_e(exponent, err_f), _xy_e(exponent, err_c)],
                })
            tangent = [xy_l(theta - reach, value - reach * exact), xy_l(theta + reach, value + reach * exact)]
            knobs.append({
                "theta": text(theta, ".3f"), "loss": text(value, ".6f"), "exact": text(exact, ".10f"),
                "raw_exact": exact, "point": xy_l(theta, value), "tangent": tangent, "cells": cells,
            })  # the error plot's two curves join the cells' points ("at"); raw_exact is for the tests
        grids[precision] = knobs
    return {
        "kind": kind,
        "knob_name": "W⁽¹⁾[1, 0]" if kind == "smooth" else "near_kink[1]",
        "theta": short(center),  # what the reader's field shows for this knob
        "default_knob": len(offsets) // 2,
        "knobs": grids["float64"],
        "knobs_float32": grids["float32"],
        "curve": [xy_l(t, v) for t, v in zip(curve_x, curve_y, strict=True)],
    }


def export(theta=None, kind=None) -> dict:
    """Everything the explorer shows: the book's grids of both knobs, or the reader's θ on one knob."""
    pages = {"smooth": _page, "kink": _kink_page}  # run only the lesson of the knob shown
    if theta is None:  # the book: both knobs, each on its grid around the lesson's value
        views = {}
        for k in KINDS:
            page = pages[k]()
            views[k] = _view(k, page, _lesson_theta(k, page), OFFSETS if k == "smooth" else KINK_OFFSETS)
    else:  # the reader's θ, on the knob they chose, alone
        views = {kind: _view(kind, None, float(theta), [0.0], _reader_knobs(kind))}
    first, *others = list(views.values())
    w, h, pad = PLOT_E["width"], PLOT_E["height"], PLOT_E["pad"]
    return {
        "explorer": "nudge",
        # the knob shown first, at the top level; the book's other knob under its kind ("kink")
        **first,
        **{view["kind"]: view for view in others},
        "kinds": list(views),
        "epsilons": [power(10.0**e) for e in EPS_EXPONENTS],
        # each ε read aloud (the ε slider's aria-valuetext, in the words of strings' [explorer-nudge]): the
        # parts of the number "epsilons" shows, so that what a screen reader hears is what the page shows
        "epsilons_spoken": [spoken_power(10.0**e) for e in EPS_EXPONENTS],
        "eps_raw": [float(10.0**e) for e in EPS_EXPONENTS],
        "default_eps": DEFAULT_EPS,
        "precisions": list(PRECISIONS),
        "sides": {"small ε": "left", "large ε": "right"},
        "plot_l": PLOT_L, "plot_e": PLOT_E,
        "eps_x": [_xy_e(e, 1.0)[0] for e in EPS_EXPONENTS],  # where each ε sits across the error plot
        "ticks_e": [{"at": _xy_e(e, 10.0**-17)[0], "label": power(10.0**e)} for e in (-12, -8, -4, 0)],
        "levels_e": [{"at": _xy_e(-12, 10.0**level)[1], "label": power(10.0**level)}
                     for level in (-16, -12, -8, -4, 0)],
        "frame_e": [pad, pad, w - pad, h - pad],
        # what each row of the readout computes, typeset beside its name
        "row_math": {
            "loss": formula(r"L(\theta)", "L(θ)"),
            "exact": formula(r"\frac{\partial L}{\partial \theta}", "∂L/∂θ"),
            "forward": formula(r"\frac{L(\theta + \varepsilon) - L(\theta)}{\varepsilon}",
                               "(L(θ + ε) − L(θ)) / ε"),
            "central": formula(r"\frac{L(\theta + \varepsilon) - L(\theta - \varepsilon)}{2\varepsilon}",
                               "(L(θ + ε) − L(θ − ε)) / 2ε"),
        },
    }


def grid(data: dict, precision: str, kind: str = "smooth") -> list:
    """The knobs of one precision of one knob kind in the exported data."""
    view = data if data.get("kind", KINDS[0]) == kind else data[kind]
    return view["knobs"] if precision == PRECISIONS[0] else view[f"knobs_{precision}"]


def check(data: dict) -> list[str]:
    """The exported grids against the lessons' losses and culpa, recomputed at a few places in each
    precision and for each knob (every knob position at the default ε, every ε at the default knob); one
    line per problem."""
    pages = {"smooth": _page(), "kink": _kink_page()}
    problems = []

    def same(where, shown, expected):
        if shown != expected:
            problems.append(f"nudge, {where}: shows {shown}, culpa computes {expected}")

    for e, exponent in enumerate(EPS_EXPONENTS):  # the ε read aloud is the ε shown
        same(f"ε step {e + 1}", data["epsilons"][e], power(10.0**exponent))
        same(f"ε step {e + 1} read aloud", data["epsilons_spoken"][e], spoken_power(10.0**exponent))
    if data["precisions"] != list(PRECISIONS):
        problems.append(f"nudge: precisions {data['precisions']}, the exporter computes {list(PRECISIONS)}")
    for kind in KINDS:
        page = pages[kind]
        offsets = OFFSETS if kind == "smooth" else KINK_OFFSETS
        center = _lesson_theta(kind, page)
        default = len(offsets) // 2
        places = {(k, data["default_eps"]) for k in range(len(offsets))}
        places |= {(default, e) for e in range(len(EPS_EXPONENTS))}
        for precision in PRECISIONS:
            model = _knob(kind, page, precision)
            prefix = ("" if kind == KINDS[0] else f"{kind}, ") + ("" if precision == PRECISIONS[0]
                                                                   else f"{precision}, ")
            for k, e in sorted(places):
                theta, eps = center + offsets[k], float(10.0 ** EPS_EXPONENTS[e])
                knob = grid(data, precision, kind)[k]
                value, exact = model.measure(float(theta))
                forward = model.estimate(float(theta), eps, "forward")
                central = model.estimate(float(theta), eps, "central")
                where = f"{prefix}knob step {k + 1}, ε step {e + 1}"
                same(where + " loss", knob["loss"], text(value, ".6f"))
                same(where + " exact slope", knob["exact"], text(exact, ".10f"))
                cell = knob["cells"][e]
                if forward is None or central is None:
                    same(where + " forward difference", cell["forward"], NONE)
                    same(where + " central difference", cell["central"], NONE)
                    continue
                same(where + " forward difference", cell["forward"], text(forward, ".10f"))
                same(where + " central difference", cell["central"], text(central, ".10f"))
                same(where + " forward error", cell["error_forward"], power(abs(forward - exact)))
                same(where + " central error", cell["error_central"], power(abs(central - exact)))
    return problems
