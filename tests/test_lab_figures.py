"""The labs' figures on a phone: each is drawn twice by the build, desktop and phone, as the chapter's are.

The lab's kernel draws every figure a cell shows once more for a phone (snippets/sitebuild/lab_phone.py),
and the page serves it to narrow screens through a <picture> (snippets/sitebuild/steps/notebooks.py):
- every figure of every lab page, both languages, is a <picture> whose source, for PHONE_MEDIA, is a phone
  drawing next to the page, sized, the <img> keeping its desktop drawing and the lab's alt text;
- on a 390 px phone its smallest text (axes, ticks, legend) shows at 9 CSS px or more, computed from the
  drawing's pixels, its pixels per inch, its text's size and the width it shows at (support/lab_figures.py;
  tests/browser/test_lab_figures_in_browser.py measures it in Chromium); a phone drawing equal to the desktop
  one fails, and text a cell draws too small is raised on the phone;
- the phone drawings leave no trace in the notebook a reader downloads;
- the phone drawing is made from the figure the cell drew, without changing it: panels side by side are
  stacked in reading order, legends go above their panel, the figure is the chapter's phone width.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import jupytext
import matplotlib
import pytest

from sitebuild import lab_phone, style
from sitebuild.steps import notebooks
from sitebuild.steps.figures import PHONE_MEDIA
from support.lab_figures import MIN_TEXT_PX, PHONE_SCREEN, lab_figures, text_px_on_a_phone
from support.pages import DOCS, LANGS

LABS = sorted(p.stem for p in (DOCS / LANGS[0] / "labs").glob("*.md"))
LAB_IDS = [f"{lang}/{name}" for lang in LANGS for name in LABS]


def page_dir(site, lab_id):
    lang, name = lab_id.split("/")
    return site / ("" if lang == LANGS[0] else lang) / "labs" / name


def alts(lab_id):
    """The alt text of each figure the lab draws, in order (its code cell's `alt` metadata)."""
    lang, name = lab_id.split("/")
    cells = jupytext.read(DOCS / lang / "labs" / f"{name}.md").cells
    return [
        " ".join(c.metadata["alt"].split()) for c in cells if c.cell_type == "code" and "alt" in c.metadata
    ]


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_every_lab_figure_has_a_phone_drawing_in_a_picture(built_site, lab_id):
    folder = page_dir(built_site, lab_id)
    figures = lab_figures((folder / "index.html").read_text(encoding="utf-8"))
    assert [" ".join(f.alt.split()) for f in figures] == alts(lab_id), (
        f"{lab_id}: the figures {[f.desktop for f in figures]} do not carry the lab's alt texts, in order"
    )
    for figure in figures:
        assert figure.phone and figure.media == PHONE_MEDIA, (
            f"{lab_id}: {figure.desktop} has no phone source for {PHONE_MEDIA} "
            f"(found {figure.phone}, {figure.media})"
        )
        assert figure.phone != figure.desktop and (folder / figure.phone).is_file(), (
            f"{lab_id}: the phone source of {figure.desktop} is {figure.phone}, not a drawing of its own"
        )
        assert figure.density == "2x" and figure.size, f"{lab_id}: {figure.phone} is not served sized, as 2x"


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_on_a_390_px_phone_lab_figure_text_is_at_least_9_px(built_site, lab_id):
    folder = page_dir(built_site, lab_id)
    figures = lab_figures((folder / "index.html").read_text(encoding="utf-8"))
    assert figures, f"{lab_id}: no figure found"
    small = {}
    for figure in figures:
        assert figure.phone, f"{lab_id}: {figure.desktop} has no phone drawing"
        px = text_px_on_a_phone((folder / figure.phone).read_bytes())
        if px < MIN_TEXT_PX:
            small[figure.phone] = round(px, 1)
    assert not small, f"{lab_id}: text under {MIN_TEXT_PX} CSS px on a {PHONE_SCREEN} px phone (px): {small}"


def two_panel_figure():
    """A figure as a lab's cell draws one: two panels side by side, 10 x 4 in, each with a legend."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    left.loglog([8, 64, 512], [0.01, 0.1, 1.0], "o-", label="2N x forward")
    left.loglog([8, 64, 512], [0.001, 0.0012, 0.0015], "s-", label="forward + backward")
    left.set(xlabel="$N$", ylabel="s")
    left.legend()
    right.plot([1, 2, 3], [3, 1, 2], label="ratio")
    right.set(xlabel="$N$", ylabel="ratio")
    right.legend()
    return fig


@pytest.fixture
def pyplot():
    before = matplotlib.get_backend()
    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")
    matplotlib.use(before)


def test_a_phone_drawing_equal_to_the_desktop_one_breaks_the_rule(built_site, pyplot, monkeypatch):
    """The rule above fails on a phone drawing that is the desktop figure as it is: drawn by lab_phone with
    its re-layout taken out, and the desktop PNG the page serves (which says nothing of its text's size)."""
    fig = two_panel_figure()
    assert text_px_on_a_phone(base64.b64decode(lab_phone.phone_png_base64(fig))) >= MIN_TEXT_PX
    monkeypatch.setattr(lab_phone, "phone_figure", lambda figure: figure)
    unchanged = base64.b64decode(lab_phone.phone_png_base64(fig))
    assert text_px_on_a_phone(unchanged) < MIN_TEXT_PX, "a 10-inch drawing on a phone passed the 9 px rule"
    folder = page_dir(built_site, LAB_IDS[0])
    desktop = lab_figures((folder / "index.html").read_text(encoding="utf-8"))[0].desktop
    assert text_px_on_a_phone((folder / desktop).read_bytes()) < MIN_TEXT_PX


def test_the_phone_drawing_stacks_the_panels_of_the_cells_figure_and_leaves_it_as_it_was(pyplot):
    fig = two_panel_figure()
    size, positions = tuple(fig.get_size_inches()), [ax.get_position().bounds for ax in fig.axes]
    phone = lab_phone.phone_figure(fig)
    phone.canvas.draw()
    assert tuple(fig.get_size_inches()) == size and [ax.get_position().bounds for ax in fig.axes] == positions
    assert pyplot.get_fignums() == [fig.number], (
        "the phone copy was left open in pyplot (the page would show it)"
    )
    assert phone.get_size_inches()[0] == lab_phone.PHONE_WIDTH == style.PHONE_WIDTH
    top, bottom = phone.axes
    assert (top.get_ylabel(), bottom.get_ylabel()) == ("s", "ratio"), "the left panel must come first, on top"
    assert top.get_position().y0 > bottom.get_position().y1, "the panels are not stacked"
    for ax in phone.axes:  # each legend above its panel, where it covers no line
        legend, frame = ax.get_legend().get_window_extent(), ax.get_window_extent()
        assert legend.y0 >= frame.y1 - 1, f"the legend of {ax.get_ylabel()!r} is not above its panel"


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_the_download_holds_no_phone_drawing(built_site, lab_id):
    notebook = (page_dir(built_site, lab_id) / f"{lab_id.split('/')[1]}.ipynb").read_text(encoding="utf-8")
    outputs = [o for c in json.loads(notebook)["cells"] for o in c.get("outputs", [])]
    assert not [o for o in outputs if lab_phone.MIME in o.get("data", {})], (
        f"{lab_id}: its download holds them"
    )


def test_the_phone_drawing_raises_text_smaller_than_it_reads(pyplot):
    """A cell that draws small text (6 pt ticks, a 5 pt note) still gets a phone drawing that reads."""
    fig = two_panel_figure()
    fig.axes[0].tick_params(labelsize=6)
    fig.axes[1].text(1.5, 2, "a note", fontsize=5)
    assert lab_phone.smallest_text(fig) < lab_phone.MIN_TEXT
    assert lab_phone.smallest_text(lab_phone.phone_figure(fig)) >= lab_phone.MIN_TEXT


def test_changing_the_phone_drawing_executes_the_labs_again(tmp_path, monkeypatch):
    """The labs' cache key follows lab_phone.py: its drawings are cached with the executed notebook."""
    lab = DOCS / LANGS[0] / "labs" / f"{LABS[0]}.md"
    base = notebooks.cache_key(lab)
    changed = tmp_path / "lab_phone.py"
    changed.write_text(
        Path(lab_phone.__file__).read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8"
    )
    monkeypatch.setattr(lab_phone, "__file__", str(changed))
    assert notebooks.cache_key(lab) != base, (
        "changing how a phone's figures are drawn does not change the key"
    )
