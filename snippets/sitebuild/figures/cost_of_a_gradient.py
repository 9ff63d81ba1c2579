"""The cost of a gradient: the time one full gradient takes against the parameter count, by one-sided
(forward) and central finite differences and by one backward pass, measured with culpa and extrapolated
to 27 billion parameters (page 01).

Measured by culpa.benchmark.fd_vs_backprop (MLPs of about 100 to 10,000 parameters, batch 32, float64), in a
fresh single-threaded process each time the figure is regenerated; the machine is named in the page's
caption (`@MACHINE@`, sitebuild/steps/figures.py), where a long CPU name wraps. The dashed lines extend the
measurements with the cost model the page explains: finite differences run 2N (central) or N + 1 (one-sided)
forward passes, each costing a + bN seconds as fitted on the measured passes; backprop costs c + dN, fitted
on its own measurements. What to notice: backprop's time climbs too, but from far lower and only in
proportion to the parameter count (over the measured range its fixed cost per operation still weighs, so it
grows more slowly than N), while finite differences climb a little faster than the parameter count where
culpa's fixed cost per operation still weighs, and with its square once the arithmetic dominates (the dashed
extrapolation); at 27 billion parameters the gap is many orders of magnitude, and even a generous 1 ms per
forward pass leaves central differences at about 20 months per gradient.
"""

import statistics

import numpy as np

from culpa import benchmark
from sitebuild import style

TIMING = True
COUNTS = (100, 300, 1000, 3000, 10000)
ROUNDS_SMALL = 3  # sizes up to 3,000 parameters are measured this many times (median), 10,000 once
TARGET = 27e9
SEED_PASS_SECONDS = 1e-3  # page 01's generous guess: one forward pass of the large model, 1 ms
YEAR = 365.25 * 24 * 3600
MONTH = YEAR / 12

LABELS = {
    "pt": {
        "title": "Quanto custa um gradiente",
        "x": "número de parâmetros N",
        "y": "tempo de um gradiente completo (s)",
        "central": "diferenças centradas (2N forward passes)",
        "forward": "diferenças progressivas (N + 1)",
        "backprop": "backprop (1 forward + 1 backward)",
        "measured": "medido",
        "target": "27 bilhões",
        "at_target": "≈ {time}",
        "seed": "a 1 ms por\nforward pass:\n{months} meses",
        "units": {"s": "1 s", "h": "1 hora", "d": "1 dia", "y": "1 ano", "ky": "1.000 anos"},
        "years": "{n} anos",
        "minutes": "{n} min",
        "note": "tracejado: extrapolação",
    },
    "en": {
        "title": "What one gradient costs",
        "x": "number of parameters N",
        "y": "time for one full gradient (s)",
        "central": "central differences (2N forward passes)",
        "forward": "one-sided differences (N + 1)",
        "backprop": "backprop (1 forward + 1 backward)",
        "measured": "measured",
        "target": "27 billion",
        "at_target": "≈ {time}",
        "seed": "at 1 ms per\nforward pass:\n{months} months",
        "units": {"s": "1 s", "h": "1 hour", "d": "1 day", "y": "1 year", "ky": "1,000 years"},
        "years": "{n} years",
        "minutes": "{n} min",
        "note": "dashed: extrapolation",
    },
}
_N = {lang: {"low": style.number(COUNTS[0], ",d", lang), "high": style.number(COUNTS[-1], ",d", lang),
             "months": style.number(2 * TARGET * SEED_PASS_SECONDS / MONTH, ".1f", lang)}
      for lang in style.LANGS}
ALT = {
    "pt": style.prose("""Gráfico log-log do tempo medido para calcular um gradiente completo contra o número
        de parâmetros, de cerca de {low} a {high}, com o culpa: as diferenças finitas progressivas e centradas
        sobem um pouco mais rápido que o número de parâmetros; o backward pass começa muito mais baixo e
        também sobe, mais devagar; linhas tracejadas estendem as medidas até 27 bilhões de
        parâmetros: as das diferenças finitas ficam mais íngremes, até subir com o quadrado do número de
        parâmetros, e a do backward sobe em proporção a ele, até a casa dos minutos, muitas ordens de
        grandeza abaixo;
        uma estrela marca as diferenças centradas a 1 ms por forward pass, {months} meses. Repare que as
        diferenças finitas não escalam mal: não escalam.""").format(**_N["pt"]),
    "en": style.prose("""Log-log plot of the measured time to compute one full gradient against the number of
        parameters, from about {low} to {high}, with culpa: one-sided and central finite differences climb a
        little faster than the parameter count; the backward pass starts far lower and climbs
        too, more slowly; dashed lines extend the measurements to 27 billion parameters: the finite-difference
        ones grow steeper, until they climb with the square of the parameter count, and the backward one
        climbs in proportion to it, up to minutes, many orders of magnitude below; a star marks central
        differences at 1 ms per forward pass, {months} months. Notice that finite differences do not scale
        badly: they do not scale at all.""").format(**_N["en"]),
}


def _measure(method: str) -> list[dict]:
    """fd_vs_backprop for every size; the small sizes in several rounds, keeping the median of each."""
    rounds = [benchmark.fd_vs_backprop(COUNTS, method=method)]
    small = [c for c in COUNTS if c <= 3000]
    rounds += [benchmark.fd_vs_backprop(small, method=method) for _ in range(ROUNDS_SMALL - 1)]
    rows = []
    for i in range(len(COUNTS)):
        runs = [r[i] for r in rounds if i < len(r)]
        row = dict(runs[0])
        for key in ("backprop_seconds", "finite_difference_seconds", "ratio"):
            row[key] = statistics.median(run[key] for run in runs)
        row["rounds"] = len(runs)
        rows.append(row)
    return rows


def _fit_line(n, seconds):
    """a + b n through the points, least squares on relative error, a and b not negative."""
    n, seconds = np.asarray(n, float), np.asarray(seconds, float)
    design = np.stack([np.ones_like(n), n], axis=1) / seconds[:, None]
    a, b = np.linalg.lstsq(design, np.ones_like(n), rcond=None)[0]
    if a < 0 or b <= 0:  # noise swamped the trend: keep the last point's time per parameter
        a, b = 0.0, seconds[-1] / n[-1]
    return float(a), float(b)


def data() -> dict:
    import gc

    gc.disable()  # culpa's graphs hold no cycles: the collector would only add noise to the timings
    try:
        central, forward = _measure("central"), _measure("forward")
    finally:
        gc.enable()
    params = [row["params"] for row in central]
    per_pass = [row["finite_difference_seconds"] / row["forward_passes"] for row in central]
    backprop = [statistics.median([c["backprop_seconds"], f["backprop_seconds"]])
                for c, f in zip(central, forward, strict=True)]
    pass_fit, backprop_fit = _fit_line(params, per_pass), _fit_line(params, backprop)
    cpu, cores = style.machine()
    return {
        "params": params,
        "layers": [row["sizes"] for row in central],
        "central_seconds": [row["finite_difference_seconds"] for row in central],
        "forward_seconds": [row["finite_difference_seconds"] for row in forward],
        "backprop_seconds": backprop,
        "ratio_central": [c / b for c, b in zip([r["finite_difference_seconds"] for r in central], backprop,
                                                strict=True)],
        "pass_fit": pass_fit,  # seconds per forward pass: a + b N
        "backprop_fit": backprop_fit,  # seconds per backprop gradient: c + d N
        "at_target": {
            "central": 2 * TARGET * (pass_fit[0] + pass_fit[1] * TARGET),
            "forward": (TARGET + 1) * (pass_fit[0] + pass_fit[1] * TARGET),
            "backprop": backprop_fit[0] + backprop_fit[1] * TARGET,
            "central_at_1ms": 2 * TARGET * SEED_PASS_SECONDS,
        },
        "machine": {"cpu": cpu, "cores": cores},
    }


def model_lines(d, n):
    """The extrapolated time of each method at parameter counts n (the dashed lines)."""
    a, b = d["pass_fit"]
    c, e = d["backprop_fit"]
    return {"central": 2 * n * (a + b * n), "forward": (n + 1) * (a + b * n), "backprop": c + e * n}


def _readable(seconds, lang):
    words = LABELS[lang]
    if seconds >= YEAR:
        years = seconds / YEAR
        digits = int(np.floor(np.log10(years))) - 1  # two significant digits: the measurement is noisy
        return words["years"].format(n=style.number(round(years, -max(digits, 0)), ",.0f", lang))
    return words["minutes"].format(n=style.number(seconds / 60, ".0f", lang))


COLORS = {"central": style.CENTRAL_DIFF, "forward": style.FORWARD_DIFF, "backprop": style.BACKPROP}
MARKERS = {"central": "o", "forward": "s", "backprop": "D"}


def draw(lang: str, d: dict):
    words = LABELS[lang]
    fig, ax = style.new_figure(5.4, width=7.2)
    params = np.asarray(d["params"], float)
    span = np.logspace(1.5, np.log10(TARGET) + 0.3, 200)
    lines = model_lines(d, span)
    for key in ("central", "forward", "backprop"):
        ax.loglog(span, lines[key], "--", color=COLORS[key], linewidth=1.4, alpha=0.9)
        ax.loglog(params, d[f"{key}_seconds"], MARKERS[key], color=COLORS[key], markersize=7,
                  label=words[key], markeredgecolor="black", markeredgewidth=0.5)
    units = ((1, "s"), (3600, "h"), (86400, "d"), (YEAR, "y"), (1000 * YEAR, "ky"))
    for seconds, _ in units:
        ax.axhline(seconds, color=style.LIGHT, linewidth=0.8, zorder=0)
    right = ax.secondary_yaxis("right")
    right.set_yticks([seconds for seconds, _ in units], [words["units"][unit] for _, unit in units])
    right.tick_params(labelsize=10.5, colors=style.NEUTRAL, length=0)
    right.set_yticks([], minor=True)
    ax.axvline(TARGET, color=style.NEUTRAL, linestyle=":", linewidth=1.2)
    ax.text(TARGET / 1.3, 2e-5, words["target"], rotation=90, ha="right", va="bottom", fontsize=10.5,
            color=style.NEUTRAL)
    for key in ("central", "backprop"):
        value = d["at_target"][key]
        ax.plot([TARGET], [value], "o", color=COLORS[key], markersize=9, markeredgecolor="black")
        # central's label above its point, backprop's below: the star's note sits between the two, and
        # backprop's time (measured on the build machine) moves its point up or down
        ax.annotate(words["at_target"].format(time=_readable(value, lang)), (TARGET, value),
                    xytext=(-10, 8 if key == "central" else -10), textcoords="offset points", ha="right",
                    va="bottom" if key == "central" else "top", fontsize=11, color=COLORS[key],
                    fontweight="bold")
    seed = d["at_target"]["central_at_1ms"]
    ax.plot([TARGET], [seed], "*", color=style.CENTRAL_DIFF, markersize=16, markeredgecolor="black")
    months = style.number(seed / MONTH, ".1f", lang)
    phone = style.on_phone()
    # the star's note above it, where nothing measured goes: backprop's point, under the star, moves up or
    # down with the build machine's speed
    ax.annotate(words["seed"].format(months=months), (TARGET, seed), xytext=(-14, 6),
                textcoords="offset points", ha="right", va="bottom", fontsize=10.5, color=style.CENTRAL_DIFF)
    ax.set_xlim(30, TARGET * 4)
    # room above central's label whatever the build machine measured: its time moves the point up or down,
    # and the label (about 1.5 decades tall at this scale) must stay under the title
    top = max(15.0, np.ceil(np.log10(d["at_target"]["central"]) + 1.6))
    ax.set_ylim(1e-5, 10**top)
    ax.set_xlabel(words["x"])
    ax.set_ylabel(words["y"])
    ax.set_title(words["title"], pad=12 if phone else None)
    # the legend and its note (on a phone the legend goes under the plot) below the top-left corner, which
    # stays free for central's label however high the build machine's time puts it
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, 0.82), fontsize=10.5, frameon=True, facecolor="white",
              edgecolor="white", framealpha=1)
    ax.text(0.02, 0.62, words["note"], transform=ax.transAxes, ha="left", va="top",
            fontsize=9, color=style.NEUTRAL, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.5})
    style.localize_axes(ax, lang)
    return fig
