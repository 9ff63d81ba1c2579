"""The page's stand-in for matplotlib (docs/assets/run/matplotlib/), in CPython: what a known plot draws.

The stand-in is what the labs' figure cells draw with in the browser (assets/run/worker.js installs it as
`matplotlib` there). Loaded here under a name of its own, so that it never shadows the real matplotlib that
the build uses. The SVG is read as XML: its series, their points, its ticks and their labels, its legend.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from sitebuild import strings
from support.pages import ROOT

RUN = ROOT / "docs" / "assets" / "run"
NS = {"s": "http://www.w3.org/2000/svg"}


@pytest.fixture
def plt(monkeypatch):
    # the module `pyplot` found by name in the stand-in's folder, registered under no name the build uses
    # (no bytecode written: nothing generated goes into docs/)
    spec = importlib.machinery.PathFinder.find_spec("pyplot", [str(RUN / "matplotlib")])
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    spec.loader.exec_module(module)
    module.LIMIT = strings.of("en")["run"]["plotSubset"]
    return module


def words(node) -> str:
    """A text's words as SVG shows them (its runs of spaces collapse to one)."""
    return " ".join("".join(node.itertext()).split())


def drawn(plt, fig) -> ET.Element:
    return ET.fromstring(plt.svg(fig))


def test_a_log_log_plot_has_its_series_its_points_decade_ticks_and_its_legend(plt):
    n = np.array([10, 100, 1_000, 10_000])
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    left.loglog(n, 2 * n * 1e-4, "o-", label=r"$2N \times$ forward")
    left.loglog(n, 3e-4 * np.ones(4), "s-", label="forward + backward")
    left.set(xlabel="$N$", ylabel="s")
    left.legend()
    right.loglog(n, n, ":", color="gray", label="$N$")
    svg = drawn(plt, fig)
    axes = svg.findall("s:g[@class='axes']", NS)
    assert len(axes) == 2
    series = axes[0].findall(".//s:g[@class='series']", NS)
    assert [s.get("data-label") for s in series] == ["2N × forward", "forward + backward"]
    assert [len(s.findall("s:circle", NS)) for s in series] == [4, 0]
    assert [len(s.findall("s:rect", NS)) for s in series] == [0, 4]
    # a tick at every decade of the data, labelled 10^k, at equal distances (a log scale), minor ticks between
    xticks = [float(t.get("x1")) for t in axes[0].findall("s:line[@class='xtick']", NS)]
    assert [words(t) for t in axes[0].findall("s:text[@class='xticklabel']", NS)] == [
        "101",
        "102",
        "103",
        "104",
    ]
    assert np.allclose(np.diff(xticks), xticks[1] - xticks[0], atol=0.2)
    assert len(axes[0].findall("s:line[@class='xminor']", NS)) >= 8 * 3
    # the y data 3e-4 .. 2: decades 10^-3 .. 10^0 (with a true minus)
    assert [words(t) for t in axes[0].findall("s:text[@class='yticklabel']", NS)] == [
        "10−3",
        "10−2",
        "10−1",
        "100",
    ]
    # y = N on log-log axes: a straight line of slope 1, measured in decades of each axis
    path = axes[1].find(".//s:g[@class='series']/s:path", NS).get("d")
    points = np.array([[float(v) for v in p.split()] for p in path[1:].split("L")])
    x_decade = np.diff([float(t.get("x1")) for t in axes[1].findall("s:line[@class='xtick']", NS)])[0]
    y_decade = -np.diff([float(t.get("y1")) for t in axes[1].findall("s:line[@class='ytick']", NS)])[0]
    slopes = (-np.diff(points[:, 1]) / y_decade) / (np.diff(points[:, 0]) / x_decade)
    assert np.allclose(slopes, 1, atol=0.01), slopes
    assert axes[1].find(".//s:path[@stroke-dasharray]", NS) is not None  # ":" is dotted
    legend = [words(t) for t in axes[0].findall(".//s:text[@class='legendlabel']", NS)]
    assert legend == ["2N × forward", "forward + backward"]
    assert [words(t) for t in axes[0].findall("s:text[@class='xlabel']", NS)] == ["N"]
    assert axes[0].find("s:text[@class='xlabel']/s:tspan", NS).get("font-style") == "italic"
    assert plt.texts(fig) == "s, N, 2N × forward, forward + backward; N"


def test_colours_follow_matplotlibs_cycle_and_names(plt):
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2])
    ax.plot([1, 2], [2, 1])
    ax.plot([1, 2], [0, 1], color="C2")
    ax.plot([1, 2], [0, 1], "k--")
    strokes = [p.get("stroke") for p in drawn(plt, fig).findall(".//s:g[@class='series']/s:path", NS)]
    assert strokes == ["#1f77b4", "#ff7f0e", "#2ca02c", "#000000"]


def test_linear_ticks_are_round_numbers_and_a_zero_limit_holds(plt):
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.plot([4, 8, 16, 32], [4.6, 8.6, 16.6, 32.6], "o-")
    ax.set(ylim=(0, None), xlabel="$n$", ylabel="MiB")
    svg = drawn(plt, fig)
    assert [words(t) for t in svg.findall(".//s:text[@class='yticklabel']", NS)] == [
        "0",
        "5",
        "10",
        "15",
        "20",
        "25",
        "30",
    ]
    frame = svg.find(".//s:rect[@class='frame']", NS)
    zero = svg.findall(".//s:line[@class='ytick']", NS)[0]
    assert float(zero.get("y1")) == pytest.approx(float(frame.get("y")) + float(frame.get("height")), abs=0.1)


def test_a_base_2_axis_with_the_cells_own_ticks(plt):
    fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
    choices = [1, 2, 4, 6, 8, 16, 32]
    ax.semilogx(choices, [32, 20, 13, 11, 9.6, 11, 18], "o-", base=2)
    ax.set(xlabel="segments", ylabel="MiB", ylim=(0, None), xticks=choices, xticklabels=choices)
    svg = drawn(plt, fig)
    assert [words(t) for t in svg.findall(".//s:text[@class='xticklabel']", NS)] == [str(c) for c in choices]
    x = [float(t.get("x1")) for t in svg.findall(".//s:line[@class='xtick']", NS)]
    assert x[2] - x[1] == pytest.approx(x[1] - x[0], abs=0.2)  # 1, 2, 4: equal steps on a base-2 axis
    assert len(svg.findall(".//s:circle", NS)) == 7


def test_a_filled_contour_its_boundary_the_points_and_a_colour_bar(plt):
    g1, g2 = np.meshgrid(np.linspace(-1, 1, 41), np.linspace(-1, 1, 31))
    p1 = 1 / (1 + np.exp(-4 * g1))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), layout="constrained")
    left.semilogy([1.0, 0.5, 0.1], label="softplus")
    left.legend()
    shading = right.contourf(g1, g2, p1, levels=20, cmap="RdBu_r", alpha=0.75)
    right.contour(g1, g2, p1, levels=[0.5], colors="black")
    right.scatter([-0.5, 0.5], [0, 0], c=[0, 1], cmap="RdBu_r", edgecolors="black", linewidths=0.5, s=18)
    right.set(xlabel="$x_1$", ylabel="$x_2$")
    fig.colorbar(shading, ax=right, label="$p_1$")
    svg = drawn(plt, fig)
    right_axes = svg.findall("s:g[@class='axes']", NS)[1]
    assert right_axes.find(".//s:image[@class='field']", NS).get("href").startswith("data:image/png;base64,")
    # the 0.5 contour of p1 is the line x = 0: every segment of it at the axes' middle
    frame = right_axes.find("s:rect[@class='frame']", NS)
    middle = float(frame.get("x")) + float(frame.get("width")) / 2
    d = right_axes.find(".//s:path[@class='contour']", NS).get("d")
    xs = [float(p.split()[0]) for p in d.replace("M", "L").split("L") if p]
    assert len(xs) >= 2 * 30 and max(abs(x - middle) for x in xs) < 0.2
    dots = right_axes.findall(".//s:g[@class='series scatter']/s:circle", NS)
    assert [c.get("fill") for c in dots] == ["#053061", "#67001f"]  # RdBu_r's two ends
    assert [c.get("stroke") for c in dots] == ["#000000"] * 2
    bar = right_axes.find("s:g[@class='colorbar']", NS)
    assert len(bar.findall("s:g/s:rect", NS)) == 20  # one band per level interval
    assert words(bar.find("s:text[@class='cblabel']", NS)) == "p1"
    assert [words(t) for t in right_axes.findall("s:text[@class='xlabel']", NS)] == ["x1"]


@pytest.mark.parametrize(
    "call, named",
    [
        (lambda plt, ax: ax.bar([1, 2], [3, 4]), "ax.bar"),
        (lambda plt, ax: ax.plot([1, 2], [3, 4], zorder=3), "ax.plot(zorder=...)"),
        (lambda plt, ax: plt.savefig("figure.png"), "plt.savefig"),
        (lambda plt, ax: ax.set(aspect="equal"), "ax.set(aspect=...)"),
        (lambda plt, ax: ax.contourf([[0, 1]], [[0, 0]], [[0, 1]], cmap="viridis"), "cmap='viridis'"),
        (lambda plt, ax: ax.set_xlabel(r"$\frac{1}{2}$") or plt.svg(ax.figure), r"TeX \frac"),
    ],
)
def test_a_call_it_does_not_draw_says_so_and_names_it(plt, call, named):
    fig, ax = plt.subplots()
    with pytest.raises(NotImplementedError) as raised:
        call(plt, ax)
    message = str(raised.value)
    assert named in message and "small stand-in for matplotlib" in message, message


def test_show_hands_each_figure_to_the_page_and_closes_it(plt):
    shown = []
    plt.display = lambda url, texts, phone: shown.append((url, texts, phone))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot([1, 2, 3], label="<b>bold</b>")
    left.legend()
    right.plot([3, 2, 1])
    plt.show()
    plt.show()
    assert len(shown) == 1 and all(shown[0][k].startswith("data:image/svg+xml;base64,") for k in (0, 2))
    import base64

    svg, phone = (base64.b64decode(shown[0][k].split(",", 1)[1]).decode() for k in (0, 2))
    assert "<b>" not in svg and "&lt;b&gt;bold&lt;/b&gt;" in svg  # what the reader writes stays text
    assert shown[0][1] == "<b>bold</b>"
    # a narrow screen's drawing: the two axes stacked, 4.2 inches wide (100 pixels to the inch)
    size = lambda text: [float(v) for v in re.search(r'width="([\d.]+)" height="([\d.]+)"', text).groups()]  # noqa: E731
    assert size(svg) == [1000, 400] and size(phone) == [420, 640]


def test_the_package_names_what_it_lacks_and_never_shadows_the_build(tmp_path):
    """As the page imports it (a package `matplotlib` found by name, which the page's worker writes into
    site-packages): the package too names an attribute it does not have."""
    code = (
        "import matplotlib, matplotlib.pyplot as plt\n"
        "assert matplotlib.__version__.endswith('stand-in')\n"
        "try:\n    matplotlib.use('Agg')\nexcept NotImplementedError as e:\n    print(e)\n"
        "print(hasattr(plt, 'imshow'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(RUN), "PYTHONDONTWRITEBYTECODE": "1"},  # nothing generated goes into docs/
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    assert out.splitlines() == ["matplotlib.use", "False"]
