"""Choosing ε: how far finite differences land from backprop's gradient, against the step size, for
forward and central differences in float64 and float32 (page 08).

The network is a small tanh MLP; for each ε, culpa.check.finite_difference nudges every parameter and
culpa.check.relative_error compares the estimate with backprop's gradient (the worst parameter is shown).
What to notice: every curve is a U. To the right, the estimate's own error (truncation) grows with ε,
like ε for forward differences and like ε² for central ones; to the left, rounding error grows like 1/ε,
much sooner in float32. Central differences in float64 reach about 1e-8 near ε = 1e-5; float32 cannot
get below about 1e-3, so tight gradient checks need float64.
"""

import functools
import inspect

import numpy as np
from matplotlib.lines import Line2D

import culpa
from sitebuild import style

SIZES = [3, 5, 2]
EPSILONS = np.logspace(-12, 0, 49)
SEED = 0
DTYPES = ("float64", "float32")
METHODS = ("forward", "central")

LABELS = {
    "pt": {
        "title": "Gradient-check: o erro contra ε",
        "x": "tamanho de passo ε",
        "y": "erro relativo máximo",
        "forward": "progressivas",
        "central": "centradas",
        "best": "melhor ε ≈ {eps}\nerro ≈ {err}",
        "rounding": "arredondamento\n∝ 1/ε",
        "truncation": "truncamento",
        "default": "ε padrão do\nculpa.check",
    },
    "en": {
        "title": "Gradient check: the error against ε",
        "x": "step size ε",
        "y": "largest relative error",
        "forward": "one-sided",
        "central": "central",
        "best": "best ε ≈ {eps}\nerror ≈ {err}",
        "rounding": "rounding\n∝ 1/ε",
        "truncation": "truncation",
        "default": "culpa.check's\ndefault ε",
    },
}


def model_and_loss(dtype):
    rng = np.random.default_rng(SEED)
    X = rng.normal(size=(6, SIZES[0])).astype(dtype)
    y = rng.integers(0, SIZES[-1], 6)
    model = culpa.nn.MLP(SIZES, activation="tanh", rng=SEED, dtype=np.dtype(dtype).type)
    return model, lambda *_: culpa.cross_entropy(model(X), y)


def worst_error(dtype, eps, method):
    """The largest relative error, over all parameters, of the finite-difference gradient at step eps
    (NaN when eps is below what the dtype can add to some parameter: the step itself rounds away)."""
    model, loss = model_and_loss(dtype)
    params = model.parameters()
    loss().backward()
    try:
        numeric = culpa.check.finite_difference(loss, params, eps=eps, method=method)
    except ValueError:  # the step rounds away in this dtype: culpa refuses to divide by it
        return float("nan")
    pairs = zip(params, numeric, strict=True)
    return max(float(culpa.check.relative_error(p.grad, n).max()) for p, n in pairs)


@functools.cache  # the alt text and the build both need it: measured once per process
def data() -> dict:
    errors = {f"{method}/{dtype}": [worst_error(dtype, eps, method) for eps in EPSILONS]
              for dtype in DTYPES for method in METHODS}
    best = {key: float(EPSILONS[int(np.nanargmin(values))]) for key, values in errors.items()}
    default = inspect.signature(culpa.check.gradcheck).parameters["eps"].default
    return {"eps": EPSILONS, "errors": errors, "best_eps": best, "default_eps": default}


def _alt(lang):
    d = data()
    best, error = d["best_eps"]["central/float64"], np.nanmin(d["errors"]["central/float64"])
    floor32 = min(np.nanmin(d["errors"][f"{m}/float32"]) for m in METHODS)
    eps, err, f32 = (style.power(value, lang) for value in (best, error, floor32))
    if lang == "pt":
        return style.prose(f"""Gráfico log-log do erro relativo máximo entre diferenças finitas e o
            gradiente da retropropagação, contra o tamanho de passo ε de 10⁻¹² a 1, num MLP tanh pequeno:
            diferenças progressivas e centradas, em float64 (linhas cheias) e float32 (tracejadas), com o
            melhor ε de cada curva marcado. Repare no formato de U: à direita o erro de truncamento cresce
            com ε (como ε nas progressivas, como ε² nas centradas), à esquerda o arredondamento cresce como
            1/ε, muito antes em float32. As centradas em float64 chegam a {err} em ε ≈ {eps}; em float32 o
            erro não desce de {f32}.""")
    return style.prose(f"""Log-log plot of the largest relative error between finite differences and
        backprop's gradient against the step size ε from 10⁻¹² to 1, on a small tanh MLP: forward and central
        differences, in float64 (solid lines) and float32 (dashed), with each curve's best ε marked. Notice
        the U shape: to the right truncation error grows with ε (like ε for forward, like ε² for central
        differences), to the left rounding error grows like 1/ε, much sooner in float32. Central differences
        in float64 reach {err} at ε ≈ {eps}; in float32 the error stays above {f32}.""")


ALT = {lang: _alt(lang) for lang in style.LANGS}

COLORS = {"forward": style.FORWARD_DIFF, "central": style.CENTRAL_DIFF}
LINES = {"float64": "-", "float32": "--"}


def draw(lang: str, d: dict):
    words = LABELS[lang]
    eps = np.asarray(d["eps"])
    fig, ax = style.new_figure(4.9)
    for dtype in DTYPES:
        for method in METHODS:
            key = f"{method}/{dtype}"
            errors = np.asarray(d["errors"][key])
            ax.loglog(eps, errors, LINES[dtype], color=COLORS[method],
                      linewidth=2.2 if dtype == "float64" else 1.8)
            i = int(np.nanargmin(errors))
            ax.plot([eps[i]], [errors[i]], "o", color=COLORS[method], markersize=8, markeredgecolor="black",
                    zorder=4)
    best = d["best_eps"]["central/float64"]
    best_error = np.nanmin(d["errors"]["central/float64"])
    note = words["best"].format(eps=style.power(best, lang, mathtext=True),
                                err=style.power(best_error, lang, mathtext=True))
    phone = style.on_phone()  # on a phone the note goes bottom left, under the rounding curve
    ax.annotate(note, (best, best_error), xytext=(2e-12, 3e-9) if phone else (best * 30, best_error / 30),
                fontsize=11, va="top", ha="left",
                arrowprops=dict(arrowstyle="->", color=style.NEUTRAL))
    ax.axvline(d["default_eps"], color=style.NEUTRAL, linestyle=":", linewidth=1.3)
    if not phone:  # on a phone the dotted line is named in the legend, under the plot
        ax.text(d["default_eps"] * 1.4, 2e-12, words["default"], ha="left", va="bottom", fontsize=10,
                color=style.NEUTRAL)
    ax.text(eps[0] / 1.6 if phone else 2e-12, 3e-7, words["rounding"], ha="left", va="center", fontsize=11,
            color=style.NEUTRAL)
    ax.text(0.9, 1e-10 if phone else 3e-7, words["truncation"], ha="right", va="center", fontsize=11,
            color=style.NEUTRAL)
    slopes = (("forward", 1e-4, "∝ ε", (-6, 10), "right", "bottom"),
              ("central", 2e-3, "∝ ε²", (10, -6), "left", "top"))
    for method, at, slope, offset, ha, va in slopes:  # the truncation error's order, on its float64 curve
        i = int(np.argmin(np.abs(np.log(eps / at))))
        ax.annotate(slope, (eps[i], d["errors"][f"{method}/float64"][i]), xytext=offset,
                    textcoords="offset points", ha=ha, va=va, fontsize=12, color=COLORS[method],
                    fontweight="bold")
    ax.set_xlim(eps[0] / 2, eps[-1] * 2)
    ax.set_ylim(1e-12, 10)
    ax.set_xlabel(words["x"])
    ax.set_ylabel(words["y"])
    ax.set_title(words["title"])
    keys = [Line2D([], [], color=COLORS[m], label=words[m]) for m in METHODS]
    keys += [Line2D([], [], color="black", linestyle=LINES[t], label=t) for t in DTYPES]
    if phone:
        default = words["default"].replace("\n", " ")
        keys.append(Line2D([], [], color=style.NEUTRAL, linestyle=":", label=default))
    ax.legend(handles=keys, loc="lower left", ncols=2, fontsize=10.5, columnspacing=1.0, handlelength=2.2)
    style.localize_axes(ax, lang)
    return fig
