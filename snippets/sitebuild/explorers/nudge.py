"""The nudge explorer (page 08, "Choosing ε"): move one knob, pick a step ε, and watch the two estimates.

The knob is the one page 01 nudges by hand: weight [1, 0] of the first layer of page 01's 2-4-2 tanh MLP
(the "model" and "nudge" sections of snippets/lessons/a_billion_knobs.py, run as the page runs them, with
its own loss_fn). For every knob position of a grid around the lesson's value, and every ε of a logarithmic
grid from 1e-12 to 1, this precomputes with culpa: the loss L, the forward difference
(L(θ+ε) − L(θ))/ε, the central difference (L(θ+ε) − L(θ−ε))/2ε, the exact slope from one backward pass,
and the error of each estimate. Everything is written for pt and en, and the two small plots (L against
the knob, the error against ε) are laid out here too, in the plots' own units: the script only reveals.
"""

from __future__ import annotations

import math

import numpy as np

from sitebuild import lessons
from sitebuild.explorers import formula, power, text

INPUTS = ["snippets/lessons/a_billion_knobs.py"]

OFFSETS = np.round(np.linspace(-1.5, 1.5, 13), 10)  # knob positions around the lesson's value
EPS_EXPONENTS = np.arange(-24, 1) / 2  # ε = 10^-12, 10^-11.5, ..., 1
DEFAULT_KNOB, DEFAULT_EPS = 6, int(np.flatnonzero(EPS_EXPONENTS == -5)[0])  # the lesson's value, ε = 1e-5
CURVE = np.linspace(-2.6, 2.6, 105)  # where L is drawn (wide enough for θ ± 1 at the grid's ends)
FLOOR = 1e-17  # an error that is exactly 0 is drawn here on the log axis
PLOT_L = {"width": 320, "height": 180, "pad": 14}
PLOT_E = {"width": 320, "height": 180, "pad": 14, "low": -17, "high": 1}


def _page():
    return lessons.run("a_billion_knobs.py", "model", "nudge")


def _measure(page, theta: float) -> tuple[float, float]:
    """L and the exact slope ∂L/∂θ (one backward pass) with the knob at theta; the knob is put back."""
    knob, loss_fn, run_model = page["knob"], page["loss_fn"], page["run_model"]
    old = knob.data[1, 0]
    knob.data[1, 0] = theta
    try:
        value = loss_fn()
        for p in page["params"]:
            p.zero_grad()
        run_model().backward()
        exact = float(knob.grad[1, 0])
    finally:
        knob.data[1, 0] = old
    return value, exact


def _loss_at(page, theta: float) -> float:
    knob, old = page["knob"], page["knob"].data[1, 0]
    knob.data[1, 0] = theta
    try:
        return page["loss_fn"]()
    finally:
        knob.data[1, 0] = old


def _estimates(page, theta: float, eps: float) -> tuple[float, float, float, float]:
    """Forward and central differences of the lesson's loss at theta, and L(θ+ε), L(θ−ε)."""
    base, up, down = _loss_at(page, theta), _loss_at(page, theta + eps), _loss_at(page, theta - eps)
    return (up - base) / eps, (up - down) / (2 * eps), up, down


def export() -> dict:
    page = _page()
    theta0 = float(page["knob"].data[1, 0])
    thetas = theta0 + OFFSETS
    curve_x = theta0 + CURVE
    curve_y = [_loss_at(page, t) for t in curve_x]
    low, high = min(curve_y), max(curve_y)
    span = high - low

    def xy_l(theta, value):  # the L plot: knob across, loss up
        w, h, pad = PLOT_L["width"], PLOT_L["height"], PLOT_L["pad"]
        x = pad + (theta - curve_x[0]) / (curve_x[-1] - curve_x[0]) * (w - 2 * pad)
        y = h - pad - (value - low) / span * (h - 2 * pad)
        return [round(float(x), 1), round(float(np.clip(y, -40, h + 40)), 1)]

    def xy_e(exponent, error):  # the error plot: log ε across, log error up
        w, h, pad, lo, hi = (PLOT_E[k] for k in ("width", "height", "pad", "low", "high"))
        x = pad + (exponent - EPS_EXPONENTS[0]) / (EPS_EXPONENTS[-1] - EPS_EXPONENTS[0]) * (w - 2 * pad)
        level = math.log10(max(error, FLOOR))
        y = h - pad - (min(max(level, lo), hi) - lo) / (hi - lo) * (h - 2 * pad)
        return [round(float(x), 1), round(float(y), 1)]

    knobs = []
    for theta in thetas:
        value, exact = _measure(page, float(theta))
        cells = []
        for exponent in EPS_EXPONENTS:
            eps = 10.0**exponent
            forward, central, up, down = _estimates(page, float(theta), eps)
            err_f, err_c = abs(forward - exact), abs(central - exact)
            cells.append({
                "forward": text(forward, ".10f"), "central": text(central, ".10f"),
                "error_forward": power(err_f), "error_central": power(err_c),
                "raw": [forward, central],  # for the tests' tolerance checks; never shown
                "secant": [xy_l(theta - eps, down), xy_l(theta + eps, up)],
                "at": [xy_e(exponent, err_f), xy_e(exponent, err_c)],
            })
        tangent = [xy_l(theta - 0.8, value - 0.8 * exact), xy_l(theta + 0.8, value + 0.8 * exact)]
        knobs.append({
            "theta": text(theta, ".3f"), "loss": text(value, ".6f"), "exact": text(exact, ".10f"),
            "raw_exact": exact, "point": xy_l(theta, value), "tangent": tangent, "cells": cells,
            "curves": {
                "forward": [c["at"][0] for c in cells],
                "central": [c["at"][1] for c in cells],
            },
        })
    w, h, pad = PLOT_E["width"], PLOT_E["height"], PLOT_E["pad"]
    return {
        "explorer": "nudge",
        "knob_name": "W⁽¹⁾[1, 0]",
        "epsilons": [power(10.0**e) for e in EPS_EXPONENTS],
        "eps_raw": [float(10.0**e) for e in EPS_EXPONENTS],
        "default_knob": DEFAULT_KNOB, "default_eps": DEFAULT_EPS,
        "knobs": knobs,
        "curve": [xy_l(t, v) for t, v in zip(curve_x, curve_y, strict=True)],
        "plot_l": PLOT_L, "plot_e": PLOT_E,
        "ticks_e": [{"at": xy_e(e, 10.0**-17)[0], "label": power(10.0**e)} for e in (-12, -8, -4, 0)],
        "levels_e": [{"at": xy_e(-12, 10.0**level)[1], "label": power(10.0**level)}
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


def check(data: dict) -> list[str]:
    """The exported grid against the lesson's loss and culpa's backward, recomputed at a few places (every
    knob position at the default ε, every ε at the default knob); one line per problem."""
    page = _page()
    problems = []
    theta0 = float(page["knob"].data[1, 0])

    def same(where, shown, expected):
        if shown != expected:
            problems.append(f"nudge, {where}: shows {shown}, culpa computes {expected}")

    places = {(k, data["default_eps"]) for k in range(len(OFFSETS))}
    places |= {(data["default_knob"], e) for e in range(len(EPS_EXPONENTS))}
    for k, e in sorted(places):
        theta, eps = theta0 + OFFSETS[k], 10.0 ** EPS_EXPONENTS[e]
        knob = data["knobs"][k]
        value, exact = _measure(page, float(theta))
        forward, central, _, _ = _estimates(page, float(theta), eps)
        where = f"knob step {k + 1}, ε step {e + 1}"
        same(where + " loss", knob["loss"], text(value, ".6f"))
        same(where + " exact slope", knob["exact"], text(exact, ".10f"))
        cell = knob["cells"][e]
        same(where + " forward difference", cell["forward"], text(forward, ".10f"))
        same(where + " central difference", cell["central"], text(central, ".10f"))
        same(where + " forward error", cell["error_forward"], power(abs(forward - exact)))
        same(where + " central error", cell["error_central"], power(abs(central - exact)))
    return problems
