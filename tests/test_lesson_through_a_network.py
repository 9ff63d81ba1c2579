"""Page 04: the backpropagation written by hand in NumPy and culpa's agree to 1e-12 in float64.

The lesson (snippets/lessons/through_a_network.py) runs once as a script, in an empty folder with its prints
silenced; then every gradient it computed by the formulas (delta a^T for each W, delta for each b) is compared
with what culpa's backward left in the network's parameters. A second test plants small mistakes in the hand
formulas and checks that the comparison notices each one, so that agreement cannot come from comparing a
thing with itself.
"""

from __future__ import annotations

import contextlib
import io
import runpy
from pathlib import Path

import numpy as np
import pytest

LESSON = Path(__file__).resolve().parents[1] / "snippets" / "lessons" / "through_a_network.py"
TOLERANCE = 1e-12


def run_lesson(source: str, folder: Path, monkeypatch) -> dict:
    script = folder / "through_a_network.py"
    script.write_text(source, encoding="utf-8")
    work = folder / "reader"
    work.mkdir()
    monkeypatch.chdir(work)
    with contextlib.redirect_stdout(io.StringIO()):
        return runpy.run_path(str(script), run_name="__main__")


def differences(ns: dict) -> dict[str, float]:
    """Largest absolute difference, per parameter, between culpa's gradient and the hand-written one."""
    found = {}
    for l, layer in enumerate(ns["net"].layers, start=1):
        for name, param, by_hand in (("W", layer.weight, ns["grad_W"]), ("b", layer.bias, ns["grad_b"])):
            assert param.grad is not None, f"culpa left no gradient on {name}{l}"
            assert param.grad.shape == by_hand[l].shape, f"{name}{l}: shapes differ"
            found[f"{name}{l}"] = float(np.abs(param.grad - by_hand[l]).max())
    return found


def test_hand_written_backprop_agrees_with_culpa_to_1e_12(tmp_path, monkeypatch):
    ns = run_lesson(LESSON.read_text(encoding="utf-8"), tmp_path, monkeypatch)
    layers = ns["net"].layers
    assert len(layers) == ns["depth"] == 3
    assert set(ns["grad_W"]) == set(ns["grad_b"]) == {1, 2, 3}, "a gradient per layer, for W and b"
    for layer in layers:
        assert layer.weight.dtype == layer.bias.dtype == np.float64
        assert layer.weight.grad.dtype == np.float64
    assert np.isclose(ns["loss_culpa"].item(), ns["loss"], rtol=0, atol=TOLERANCE)
    diffs = differences(ns)
    assert len(diffs) == 6
    assert max(diffs.values()) < TOLERANCE, f"hand-written and culpa gradients differ: {diffs}"
    # the output layer's delta is page 03's p - y, and culpa's fused cross-entropy agrees
    assert np.abs(ns["delta"][3] - (ns["p"] - ns["y"])).max() == 0
    assert np.abs(ns["logits"].grad - ns["delta"][3]).max() < TOLERANCE


MISTAKES = {
    "sigmoid' forgotten": ("* a[l] * (1 - a[l])", ""),
    "sigmoid' as a(1 + a)": ("a[l] * (1 - a[l])", "a[l] * (1 + a[l])"),
    "message from the layer above off by 0.01%": ("W[l + 1].T @ delta[l + 1]",
                                                  "W[l + 1].T @ delta[l + 1] * 1.0001"),
    "output delta off by 1e-9": ("delta = {depth: p - y}", "delta = {depth: p - y + 1e-9}"),
    "input of the slope off by 1e-9": ("np.outer(delta[l], a[l - 1])",
                                                   "np.outer(delta[l], a[l - 1] + 1e-9)"),
}


@pytest.mark.parametrize("mistake", MISTAKES, ids=list(MISTAKES))
def test_the_comparison_catches_a_wrong_hand_formula(mistake, tmp_path, monkeypatch):
    original, planted = MISTAKES[mistake]
    source = LESSON.read_text(encoding="utf-8")
    assert source.count(original) == 1, f"the lesson no longer contains {original!r}: update this test"
    ns = run_lesson(source.replace(original, planted), tmp_path, monkeypatch)
    assert max(differences(ns).values()) > TOLERANCE, f"the planted mistake ({mistake}) went unnoticed"
