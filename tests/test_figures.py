"""The site's figures (snippets/sitebuild/figures/, drawn by the build through sitebuild/steps/figures.py).

Every figure is drawn for both languages as a valid SVG, with words and numbers in the page's language;
deterministic figures come out byte-identical from two fresh generations; a figure script that raises
fails `mkdocs build` with a message naming it; publishing writes a file only when it changes; every image
a built page references exists; and each figure's claim holds on the very data it plots.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from matplotlib.text import Text

from sitebuild import lessons, style
from sitebuild import make_figures as make
from sitebuild.steps import figures as figures_step
from support.site import build_site, copy_project

SCRIPTS = {make.figure_name(script): script for script in make.figure_scripts()}
# Figures whose data are measurements (TIMING = True, read from the source): their bytes may vary.
TIMING = re.compile(r"^TIMING\s*=\s*True", re.M)
MEASURED = {name for name, script in SCRIPTS.items() if TIMING.search(script.read_text())}
# The names the pages embed as figures/<name>.svg: renaming one breaks a page.
CONTRACT = {
    "cost-of-a-gradient", "worked-example-graph", "worked-example-bars", "blame-through-mlp", "branching",
    "memory-bill", "checkpointing", "choosing-epsilon", "training", "chain-rule-graph",
    "forward-and-reverse-mode", "two-paths",
}
LANGS = style.LANGS
IMG_SRC = re.compile(r"<img\b[^>]*?\bsrc=[\"']([^\"']+)[\"']", re.I)


def is_svg(content: bytes) -> bool:
    try:
        root = ET.fromstring(content)
    except ET.ParseError:
        return False
    return root.tag.rsplit("}", 1)[-1] == "svg" and len(root) > 0


def is_png(content: bytes) -> bool:
    return content.startswith(b"\x89PNG\r\n\x1a\n") and len(content) > 100


@pytest.fixture(scope="session")
def made(tmp_path_factory):
    """Every figure, made once per session (from the build cache when it is current, as a build would)."""
    return make.generate(out=tmp_path_factory.mktemp("figures"))


@pytest.fixture(scope="session")
def modules():
    return {name: make.load_script(script) for name, script in SCRIPTS.items()}


def drawn_texts(module, data, lang) -> list[str]:
    """Every piece of text the drawn figure shows (tick labels exist once it is saved; the tick labels
    of an axes drawn without axis, like a diagram's, are not shown)."""
    fig = module.draw(lang, data)
    fig.savefig(io.BytesIO(), format="svg")
    hidden = {id(text) for ax in fig.axes if not ax.axison for axis in (ax.xaxis, ax.yaxis)
              for text in axis.findobj(Text)}
    return [t.get_text() for t in fig.findobj(Text)
            if t.get_visible() and id(t) not in hidden and t.get_text().strip()]


def test_every_figure_the_pages_rely_on_has_a_script():
    assert set(SCRIPTS) >= CONTRACT, f"missing figure scripts: {sorted(CONTRACT - set(SCRIPTS))}"


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_figure_is_drawn_as_svg_in_both_languages(made, name):
    result = made[name]
    for lang in LANGS:
        content = result.svg[lang]
        assert is_svg(content), f"{name} ({lang}) is not a valid SVG"
        assert 5_000 < len(content) < 1_000_000, f"{name} ({lang}): {len(content):,} bytes"
        assert result.alt[lang].strip(), f"{name}: no {lang} alt text"
    assert result.svg["pt"] != result.svg["en"], f"{name}: the pt and en figures are the same"
    assert result.alt["pt"] != result.alt["en"]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_figure_speaks_the_language_of_its_page(made, modules, name):
    """pt and en show different words, the same label keys, and numbers written the language's way."""
    module, data = modules[name], made[name].data
    assert set(module.LABELS["pt"]) == set(module.LABELS["en"]), f"{name}: LABELS keys differ"
    translated = [k for k, v in module.LABELS["en"].items() if v != module.LABELS["pt"][k]]
    assert len(translated) >= len(module.LABELS["en"]) / 2, f"{name}: most labels are not translated"
    texts = {lang: drawn_texts(module, data, lang) for lang in LANGS}
    assert texts["pt"] != texts["en"], f"{name}: pt and en figures show the same text"
    english_only = {v for k, v in module.LABELS["en"].items()
                    if isinstance(v, str) and v != module.LABELS["pt"][k] and "{" not in v}
    leaked = english_only & set(texts["pt"])
    assert not leaked, f"{name}: English labels in the pt figure: {leaked}"
    grouping = {"pt": re.compile(r"^\d{1,3}(\.\d{3})*(,\d+)?$"),  # 17.408 and 0,659
                "en": re.compile(r"^\d{1,3}(,\d{3})*(\.\d+)?$")}  # 17,408 and 0.659
    for lang in LANGS:
        for text in texts[lang]:
            for token in re.findall(r"\d[\d.,]*\d", text.replace("{,}", ",")):
                if "." in token or "," in token:
                    assert grouping[lang].match(token), f"{name} ({lang}): {token!r} in {text!r}"


@pytest.mark.slow
def test_deterministic_figures_are_byte_identical_when_generated_twice(built_site: Path, rebuilds):
    """The session's build drew each figure once (or served it from a cache entry with the same key, which
    a build drew); another process drew them all again for a copy of the project whose culpa changed by a
    comment (support/rebuilds.py, `culpa_edited`; test_site_build.py checks that every figure was redrawn):
    every byte must be the same."""
    names = sorted(set(SCRIPTS) - MEASURED)
    again_site = rebuilds.culpa_edited.site

    def folder(site: Path, lang: str) -> Path:  # pt's figures are served at figures/, en's at en/figures/
        return site / "figures" if lang == LANGS[0] else site / lang / "figures"

    drawn = [(lang, f"{name}{variant}.svg") for lang in LANGS for name in names for variant in ("", ".phone")]
    missing = [f"{lang}/{file}" for lang, file in drawn if not (folder(again_site, lang) / file).is_file()]
    assert not missing, f"the rebuilt copy has no {missing}"
    changed = [f"{lang}/{file}" for lang, file in drawn
               if (folder(again_site, lang) / file).read_bytes()
               != (folder(built_site, lang) / file).read_bytes()]
    assert not changed, f"not byte-identical on a second generation: {changed}"


def test_publishing_again_writes_nothing(tmp_path):
    """Publishing a figure again writes nothing (a watcher of the folder, such as `mkdocs serve`'s, would
    otherwise see a change that is none)."""
    names = ["worked-example-bars", "branching"]
    make.generate(names, out=tmp_path)
    published = sorted(tmp_path.rglob("*.svg"))
    before = {p: p.stat().st_mtime_ns for p in published}
    make.generate(names, out=tmp_path)
    assert {p: p.stat().st_mtime_ns for p in published} == before


@pytest.mark.slow
def test_a_raising_figure_script_fails_the_build_and_is_named(made, tmp_path):
    copy = copy_project(tmp_path / "repo")  # `made` filled the figure cache the copy starts from
    broken = copy / "snippets" / "sitebuild" / "figures" / "broken_on_purpose.py"
    broken.write_text(
        '"""A figure that raises, for the test."""\n'
        'LABELS = {"pt": {}, "en": {}}\nALT = {"pt": "x", "en": "x"}\n\n\n'
        "def data():\n    return {}\n\n\n"
        'def draw(lang, data):\n    raise RuntimeError("this figure is broken on purpose")\n'
    )
    proc = build_site(tmp_path / "site", project=copy)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, "the build passed although a figure script raised"
    assert "snippets/sitebuild/figures/broken_on_purpose.py" in output, output[-3000:]
    assert "this figure is broken on purpose" in output


def referenced_images(site: Path):
    """(page, src, resolved path) for every <img> of every built page."""
    for page in sorted(site.rglob("*.html")):
        for src in IMG_SRC.findall(page.read_text(encoding="utf-8")):
            if src.startswith(("data:", "http:", "https:", "//")):
                continue
            path = src.split("#")[0].split("?")[0]
            target = site / path.lstrip("/") if path.startswith("/") else page.parent / path
            yield page.relative_to(site), src, target.resolve()


def test_every_referenced_image_exists_after_build(built_site: Path):
    problems = []
    for page, src, target in referenced_images(built_site):
        content = target.read_bytes() if target.is_file() else b""
        if not (is_svg(content) or is_png(content)):
            problems.append(f"{page}: {src} is missing, empty or not a valid SVG/PNG")
    assert not problems, "\n".join(problems)


def test_every_figure_is_on_a_page_in_both_languages(built_site: Path):  # noqa: F811
    shown = {(target.parent.parent.name == "en", target.stem)
             for _, _, target in referenced_images(built_site) if target.parent.name == "figures"}
    missing = [f"{name} ({'en' if en else 'pt'})" for name in sorted(SCRIPTS) for en in (False, True)
               if (en, name) not in shown]
    assert not missing, f"figures that no built page shows: {missing}"


# ---- each figure's claim, checked on the data it plots ----

def test_cost_of_a_gradient_finite_differences_fall_further_behind_as_parameters_grow(made):
    d = made["cost-of-a-gradient"].data
    ratios = d["ratio_central"]
    assert all(a < b for a, b in zip(ratios, ratios[1:], strict=False)), f"ratio not growing: {ratios}"
    assert ratios[-1] > 20 * ratios[0]
    for key in ("central_seconds", "forward_seconds"):
        assert all(fd > bp for fd, bp in zip(d[key], d["backprop_seconds"], strict=True))
    at = d["at_target"]
    assert at["central"] > 1e6 * at["backprop"]
    assert at["central_at_1ms"] == pytest.approx(2 * 27e9 * 1e-3)


def test_checkpointing_lowers_the_peak_and_costs_recomputation(made):
    d = made["checkpointing"].data
    sweep = d["sweep"]
    peaks = zip(sweep["depth"], sweep["plain_mb"], sweep["checkpointed_mb"], strict=True)
    for depth, plain, checked in peaks:
        assert checked < plain, f"depth {depth}: checkpointed peak {checked:.1f} MB not below {plain:.1f} MB"
    assert sweep["checkpointed_mb"][-1] < 0.5 * sweep["plain_mb"][-1]
    plain, checked = d["timeline"]["plain"], d["timeline"]["checkpointed"]
    assert checked["peak_mb"] < plain["peak_mb"]
    assert checked["block_runs"] > plain["block_runs"], "checkpointing should recompute layers"
    at = sweep["depth"].index(d["timeline_depth"])
    for name, line in (("plain", plain), ("checkpointed", checked)):  # one timing basis for both plots
        assert line["ms"][-1] == pytest.approx(sweep[f"{name}_ms"][at]), f"{name} timeline length"
    longer = sweep["checkpointed_ms"][at] > sweep["plain_ms"][at]
    assert (checked["ms"][-1] > plain["ms"][-1]) == longer, "the timelines and the sweep disagree on time"
    slower = [c / p for c, p in zip(sweep["checkpointed_ms"], sweep["plain_ms"], strict=True)]
    assert np.median(slower) > 1.0, f"checkpointing should cost time: {slower}"


def test_choosing_epsilon_best_central_step_in_float64_is_moderate(made):
    d = made["choosing-epsilon"].data
    best_step = d["eps"][int(np.nanargmin(d["errors"]["central/float64"]))]  # the bottom of the plotted U
    assert best_step == d["best_eps"]["central/float64"], "the marked best ε is not the curve's minimum"
    assert 1e-7 <= best_step <= 1e-3, f"best central ε in float64: {best_step:g}"
    for key, errors in d["errors"].items():  # U-shaped: both ends far worse than the bottom
        errors = np.asarray(errors, dtype=float)
        finite = errors[np.isfinite(errors)]
        assert finite[0] > 100 * finite.min() and finite[-1] > 100 * finite.min(), key
    best = {key: np.nanmin(errors) for key, errors in d["errors"].items()}
    assert best["central/float64"] < best["forward/float64"] < best["central/float32"]


def test_worked_example_bars_show_p_minus_y(made):
    d = made["worked-example-bars"].data
    np.testing.assert_allclose(d["grad"], np.asarray(d["p"]) - np.asarray(d["y"]))
    np.testing.assert_allclose(d["p"], [0.659, 0.242, 0.099], atol=5e-4)
    assert d["grad"][0] < 0 < min(d["grad"][1:])


def test_worked_example_graph_is_walked_backwards_from_the_loss(made):
    d = made["worked-example-graph"].data
    nodes = {node["id"]: node for node in d["nodes"]}
    order = d["backward_order"]
    assert nodes[order[0]]["op"] == "neg" and nodes[order[0]]["grad"] == 1.0  # starts at dL/dL = 1
    assert nodes[order[-1]]["op"] == "leaf"
    for position, node_id in enumerate(order):  # a node is visited only after every node it feeds
        for child in nodes.values():
            if node_id in child["parents"] and child["requires_grad"]:
                assert order.index(child["id"]) < position
    z = nodes[order[-1]]
    np.testing.assert_allclose(z["grad"], np.asarray(d["p"]) - np.asarray(d["y"]), atol=1e-12)


def test_blame_through_mlp_slope_is_blame_times_input(made):
    d = made["blame-through-mlp"].data
    for delta, a, grad in zip(d["deltas"], d["activations"], d["weight_grads"], strict=True):
        np.testing.assert_allclose(grad, np.outer(delta, a), atol=1e-15)
    np.testing.assert_allclose(d["deltas"][-1], np.asarray(d["p"]) - np.asarray(d["y"]), atol=1e-15)
    sizes = [np.linalg.norm(delta) for delta in d["deltas"]]
    assert sizes[0] < sizes[1] < sizes[2], f"δ should shrink on its way back: {sizes}"


def test_branching_sums_both_paths_and_accumulates_until_zeroed(made):
    d = made["branching"].data
    assert d["shares"]["u"] + d["shares"]["v"] == pytest.approx(d["grad"])
    assert (d["shares"]["u"], d["shares"]["v"], d["grad"]) == pytest.approx((12.0, 24.0, 36.0))  # page 05
    assert min(d["shares"].values()) > 0
    g = d["grad"]
    assert d["buffers"]["zeroed"] == pytest.approx([g] * len(d["buffers"]["zeroed"]))
    assert d["buffers"]["kept"] == pytest.approx([g * (i + 1) for i in range(len(d["buffers"]["kept"]))])


def test_chain_rule_graph_gradients_are_culpas_and_the_product_of_the_lenses(made):
    d = made["chain-rule-graph"].data
    page = lessons.run("chain_rule.py", "record", "by_hand")  # the page's own tensors, after its backward
    nodes = d["nodes"]
    assert [node["name"] for node in nodes] == ["x", "a", "b", "L"]
    drawn = [node["grad"] for node in nodes]
    assert drawn == pytest.approx([page[name].grad.item() for name in ("x", "a", "b")] + [1.0], abs=1e-15)
    assert [node["value"] for node in nodes] == pytest.approx([page[n].item() for n in "xabL"], abs=1e-15)
    a, b = page["a"].item(), page["b"].item()
    assert d["lenses"] == pytest.approx([1 - a**2, b, 2 * b], rel=1e-12)  # tanh, exp, pow: as the page says
    assert np.prod(d["lenses"]) == pytest.approx(nodes[0]["grad"], rel=1e-12)  # x's gradient: their product
    assert d["backward_order"] == [3, 2, 1, 0]


def test_forward_mode_needs_a_sweep_per_input_and_reverse_mode_one(made):
    d = made["forward-and-reverse-mode"].data
    page = lessons.run("chain_rule.py", "record", "dual")
    inputs = [node["id"] for node in d["nodes"] if node["op"] == "leaf"]
    assert len(inputs) == len(page["point"]) == d["forward_sweeps"] == len(d["tangents"]) == 3
    assert d["reverse_sweeps"] == 1
    for i, tangents in enumerate(d["tangents"]):  # sweep i seeds input i and ends with ∂f/∂x_i at f
        assert [tangents[j] for j in inputs] == [1.0 if k == i else 0.0 for k in range(3)]
        assert tangents[-1] == pytest.approx(page["by_forward_mode"][i], abs=1e-15)
    reverse = [d["nodes"][j]["grad"] for j in inputs]  # the one backward sweep gives all three at once
    assert reverse == pytest.approx(page["by_reverse_mode"], abs=1e-15)
    assert [t[-1] for t in d["tangents"]] == pytest.approx(reverse, abs=1e-14)
    assert d["nodes"][-1]["grad"] == 1.0


def test_two_paths_shares_add_up_to_culpas_gradient(made):
    d = made["two-paths"].data
    page = lessons.run("chain_rule.py", "record", "two_paths")
    shares, grads = d["shares"], d["grads"]
    assert shares["u"] + shares["v"] == pytest.approx(float(page["x"].grad))  # the sum over paths is x.grad
    assert (shares["u"], shares["v"], grads["x"]) == pytest.approx((12.0, 24.0, 36.0))  # as page 02 says
    for node in ("u", "v"):  # each share: downstream gradient times the path's local derivative
        assert shares[node] == pytest.approx(grads[node] * d["local"][node])
    x = d["values"]["x"]
    assert (d["local"]["u"], d["local"]["v"]) == pytest.approx((3.0, 2 * x))  # d(3x)/dx, d(x²)/dx
    assert grads["x"] == pytest.approx(9 * x**2)  # L = 3x³ on paper


def test_memory_bill_activations_overtake_parameters(made):
    d = made["memory-bill"].data
    tokens, activations = np.asarray(d["tokens"]), np.asarray(d["activation_gb"])
    assert activations[0] < d["parameter_gb"] < activations[-1]
    crossing = tokens[np.argmax(activations > d["parameter_gb"])]
    assert tokens[0] < d["crossover_tokens"] <= crossing
    assert d["layers"] == 64 and d["intermediate"] == 17_408


def test_training_loss_falls_and_the_boundary_separates_the_moons(made):
    d = made["training"].data
    history = d["history"]
    assert history[-1] < history[0] / 3
    assert d["accuracy"] >= 0.95
    margin = np.asarray(d["margin"])
    assert (margin > 0).any() and (margin < 0).any()


# ---- a timing figure names its machine in the caption, never in the drawing ----

LONG_CPU = "Imaginary Semiconductor Hyperscale Processor Model 9000 X3D+"  # 60 characters


@pytest.mark.slow
def test_a_timing_figure_draws_the_same_whatever_the_cpu_is_called(made, modules):
    """The CPU's name goes into the page's caption, where it wraps; the drawing must not depend on it, so
    that a machine with a longer name (LONG_CPU) draws exactly the same figure."""
    assert len(LONG_CPU) == 60
    for name in sorted(MEASURED):
        data = made[name].data
        renamed = {**data, "machine": {"cpu": LONG_CPU, "cores": 64}}
        for lang in LANGS:
            texts = drawn_texts(modules[name], data, lang)
            assert texts == drawn_texts(modules[name], renamed, lang), (
                f"{name} ({lang}): the drawing changes with the CPU's name"
            )
            cpu = style.machine()[0]
            assert not any(cpu in text for text in texts), f"{name} ({lang}) draws the CPU's name {cpu!r}"


def test_the_caption_names_the_machine_in_the_pages_language():
    assert figures_step.machine_text("pt", (LONG_CPU, 2)) == f"{LONG_CPU}, 2 núcleos, 1 thread"
    assert figures_step.machine_text("en", (LONG_CPU, 2)) == f"{LONG_CPU}, 2 cores, 1 thread"


@pytest.mark.parametrize("lang", LANGS)
def test_timing_captions_in_the_built_site_name_this_machine(built_site: Path, lang):
    cpu, cores = style.machine()
    prefix = "" if lang == "pt" else "en/"
    for page in ("01-a-billion-knobs", "07-memory"):
        html = (built_site / prefix / page / "index.html").read_text(encoding="utf-8")
        captions = re.findall(r"<figcaption>(.*?)</figcaption>", html, re.S)
        assert "@MACHINE@" not in html, f"{prefix}{page}: @MACHINE@ left unfilled"
        assert any(cpu in c and str(cores) in c for c in captions), (
            f"{prefix}{page}: no caption names the machine ({cpu}, {cores})"
        )


def _overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of visible texts of `fig` whose boxes, as drawn, overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    return [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1:]
            if box_a.overlaps(box_b) and box_a.width and box_b.width]


@pytest.mark.parametrize("scale", [0.1, 1.0, 10.0, 100.0])
def test_the_cost_figure_keeps_its_labels_apart_on_a_slower_or_faster_machine(made, modules, scale):
    """Its points are the build machine's measurements: a machine 100 times slower moves them two decades up,
    and no label may then run into the title or another label (a busy machine's build once did)."""
    data = made["cost-of-a-gradient"].data
    measured = ("central", "forward", "backprop")  # central_at_1ms is a fixed 1 ms per pass
    at = {key: value * scale if key in measured else value for key, value in data["at_target"].items()}
    for lang in LANGS:
        found = _overlaps(modules["cost-of-a-gradient"].draw(lang, {**data, "at_target": at}))
        assert not found, f"cost-of-a-gradient ({lang}), times ×{scale}: texts on top of each other: {found}"
