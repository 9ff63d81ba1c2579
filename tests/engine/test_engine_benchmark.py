"""The benchmarks' contenders compute the same step; their helpers return usable data (nothing is timed).

`culpa.benchmark` is the reader's benchmark in the wheel (culpa against hand-written NumPy, finite differences
against backprop); tests/bench/engine_benchmark.py is the project's harness (torch, BLAS alone, targets).
"""

from pathlib import Path

import numpy as np
import pytest
from bench import engine_benchmark

import culpa
from culpa import benchmark


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sizes", [[5, 7, 6, 3], [300, 256, 3]])  # culpa updates 300x256 in slices
def test_the_hand_written_numpy_step_is_the_same_training_step(dtype, sizes):
    x, y = benchmark.problem(sizes, 8, dtype)
    model = culpa.nn.MLP(sizes, activation="tanh", rng=0, dtype=dtype)
    hand = benchmark.NumpyStep(model, x, y)
    ours = benchmark.CulpaStep(model, x, y)
    for _ in range(3):
        hand_loss, our_loss = hand(), ours()
        assert np.isclose(hand_loss, our_loss.item(), rtol=1e-5 if dtype == np.float32 else 1e-12)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for (W, b), layer in zip(hand.params, model.layers, strict=True):
        assert W.dtype == dtype and np.allclose(W, layer.weight.data, rtol=tol, atol=tol)
        assert np.allclose(b, layer.bias.data, rtol=tol, atol=tol)


def test_the_torch_step_is_the_same_training_step():
    pytest.importorskip("torch", reason="PyTorch is not installed: no torch contender to check")
    sizes = [4, 6, 3]
    x, y = benchmark.problem(sizes, 8, np.float64)
    model = culpa.nn.MLP(sizes, rng=0)
    theirs = engine_benchmark.TorchStep(model, x, y)
    ours = benchmark.CulpaStep(model, x, y)
    for _ in range(3):
        assert np.isclose(theirs().item(), ours().item(), rtol=1e-12)


def test_the_gemm_contenders_make_the_products_of_the_step_in_both_libraries():
    pytest.importorskip("torch", reason="PyTorch is not installed: no torch GEMMs to check")
    sizes = [5, 7, 6, 3]
    x, _ = benchmark.problem(sizes, 8, np.float64)
    model = culpa.nn.MLP(sizes, rng=0)
    ours = engine_benchmark.GemmStep(model, x, "numpy")()
    theirs = engine_benchmark.GemmStep(model, x, "torch")()
    # per layer h @ W.T (batch, out) and g.T @ h (out, in); g @ W (batch, in) for every layer but the first
    assert [a.shape for a in ours] == [(8, 7), (7, 5), (8, 6), (6, 7), (8, 7), (8, 3), (3, 6), (8, 6)]
    for a, b in zip(ours, theirs, strict=True):
        assert np.allclose(a, b.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("with_torch", [False, True])
def test_measure_step_reports_every_ratio(with_torch):
    if with_torch:
        pytest.importorskip("torch", reason="PyTorch is not installed: no torch columns to check")
    result = engine_benchmark.measure_step([3, 4, 2], 4, np.float64, rounds=2, budget=1e-4,
                                           with_torch=with_torch)
    expected = {"culpa", "numpy", "culpa/numpy", "backward/forward", "steps per block"}
    if with_torch:
        expected |= {"torch", "culpa/torch", "numpy/torch", "numpy GEMMs", "torch GEMMs", "GEMMs numpy/torch",
                     "GEMMs share of torch"}
    assert set(result) == expected
    assert all(result[key] > 0 for key in expected)


def test_the_blas_gap_taken_out():
    # torch's step 100 us, 60 of them GEMMs; NumPy's GEMMs take 1.2x as long (72 us); culpa's step 110 us.
    # With NumPy's GEMMs at torch's speed culpa would take 110 - 12 = 98 us: 0.98 of torch's step.
    r = {"culpa/torch": 1.10, "GEMMs numpy/torch": 1.2, "GEMMs share of torch": 0.6}
    assert engine_benchmark._with_torch_gemms(r) == pytest.approx(0.98)
    assert engine_benchmark._with_torch_gemms({**r, "GEMMs numpy/torch": 1.0}) == pytest.approx(1.10)


def test_the_readers_benchmark_reports_culpa_against_numpy():
    result = benchmark.measure_step([3, 4, 2], 4, np.float32, rounds=2, budget=1e-4)
    assert set(result) == {"culpa", "numpy", "culpa/numpy", "backward/forward"}
    assert all(value > 0 for value in result.values())


def test_the_readers_benchmark_has_no_targets_and_no_torch():
    source = Path(benchmark.__file__).read_text(encoding="utf-8")
    assert "torch" not in source.split('"""', 2)[2] and "MISSED" not in source and "TARGETS" not in source


def test_fd_vs_backprop_returns_data_for_a_figure():
    rows = benchmark.fd_vs_backprop((30, 100), batch=4, repeats=2)
    assert [row["params"] for row in rows] == [benchmark.parameter_count(row["sizes"]) for row in rows]
    assert abs(rows[0]["params"] - 30) <= 13 and abs(rows[1]["params"] - 100) <= 13
    for row in rows:
        assert row["forward_passes"] == 2 * row["params"]
        assert row["finite_difference_seconds"] > row["backprop_seconds"] > 0
        assert np.isclose(row["ratio"], row["finite_difference_seconds"] / row["backprop_seconds"])
        assert np.isclose(row["ratio_per_param"], row["ratio"] / row["params"])
    forward = benchmark.fd_vs_backprop((30,), batch=4, repeats=2, method="forward")[0]
    assert forward["forward_passes"] == forward["params"] + 1


def test_mlp_for_params_is_close_to_the_request():
    for count in (100, 1000, 10_000):
        sizes = benchmark.mlp_for_params(count)
        assert abs(benchmark.parameter_count(sizes) - count) / count < 0.1


def test_the_side_by_side_script_times_each_folders_own_culpa(tmp_path):
    """tests/bench/engine_ab.py imports culpa from each folder it is given, not twice the same one."""
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    call = "    def __call__(self):\n        self.optimizer.zero_grad()\n"
    for name in ("old", "new"):  # each copy's training step announces which folder it came from
        shutil.copytree(
            root / "snippets" / "culpa",
            tmp_path / name / "culpa",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        step = tmp_path / name / "culpa" / "benchmark.py"
        source = step.read_text(encoding="utf-8")
        assert call in source
        step.write_text(
            source.replace(call, call + f"        print('{name} step', flush=True)\n", 1), encoding="utf-8"
        )
    script = root / "tests" / "bench" / "engine_ab.py"
    run = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "old"), str(tmp_path / "new"), "tiny", "2", "0.0005"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    last = run.stdout.strip().splitlines()[-1]
    assert "old step" in run.stdout and "new step" in run.stdout, run.stdout[-500:]
    assert last.startswith("tiny, float32: old/numpy ") and "new/numpy" in last and "new/old" in last
