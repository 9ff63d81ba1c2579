"""Two versions of culpa side by side in one process, with the hand-written NumPy floor (run it by hand):

    .venv/bin/python tests/bench/engine_ab.py OLD_DIR NEW_DIR [SIZE] [ROUNDS] [BUDGET] [DTYPE]

OLD_DIR and NEW_DIR each hold a `culpa/` package (e.g. `git archive main snippets/culpa | tar -x -C /tmp/old`
gives /tmp/old/snippets). It prints each one's step time over the floor's and NEW over OLD, medians of
per-round ratios of interleaved rounds (`culpa.benchmark.interleaved`), in the pinned environment. Unlike two
runs of engine_benchmark.py, one after the other, a slow spell of a shared machine hits both versions alike,
so a change of a few percent shows; run it with the same folder twice to see the noise (about ±2% at tiny
size here).
"""

import importlib
import importlib.machinery
import importlib.util
import os
import statistics
import sys

import numpy as np


def load(folder):
    """The culpa package (and its benchmark module) found in `folder`, imported afresh."""
    for name in [m for m in sys.modules if m == "culpa" or m.startswith("culpa.")]:
        del sys.modules[name]
    spec = importlib.machinery.PathFinder.find_spec("culpa", [folder])  # the package by name, in that folder
    if spec is None:
        raise SystemExit(f"no culpa package in {folder}: give the folder that holds culpa/")
    package = importlib.util.module_from_spec(spec)
    sys.modules["culpa"] = package  # its own imports (culpa.tensor, ...) resolve inside its folder
    spec.loader.exec_module(package)
    importlib.import_module("culpa.benchmark")
    return package


def main(old_dir, new_dir, size="tiny", rounds="41", budget="0.01", dtype="float32"):
    old, new = load(old_dir), load(new_dir)
    _, sizes, batch = next(s for s in new.benchmark.SIZES if s[0] == size)
    dtype = np.dtype(dtype).type
    x, y = new.benchmark.problem(sizes, batch, dtype)
    steps = []
    for name, package in (("old", old), ("new", new)):
        model = package.nn.MLP(sizes, activation="tanh", rng=0, dtype=dtype)
        step = package.benchmark.CulpaStep(model, x, y)
        step.name = name
        steps.append(step)
    steps.append(new.benchmark.NumpyStep(model, x, y))
    times, reps = new.benchmark.interleaved(steps, int(rounds), float(budget))
    ratio = new.benchmark.ratio
    medians = {name: f"{statistics.median(t) * 1e6:.0f} µs" for name, t in times.items()}
    ratios = {pair: ratio(times, *pair.split("/")) for pair in ("old/numpy", "new/numpy", "new/old")}
    print(
        f"{size}, {dtype.__name__}: " + ", ".join(f"{pair} {value:.3f}" for pair, value in ratios.items()),
        f"(old {medians['old']}, new {medians['new']}, numpy {medians['numpy']}; {rounds} rounds of {reps} "
        f"steps; load average {os.getloadavg()[0]:.1f})",
    )


if __name__ == "__main__":
    pinned = load(sys.argv[2]).benchmark.PINNED_ENV  # BLAS and glibc read these when the process starts
    if any(os.environ.get(k) != v for k, v in pinned.items()):
        os.execve(
            sys.executable,
            [sys.executable, os.path.abspath(__file__), *sys.argv[1:]],
            dict(os.environ, **pinned),
        )
    main(*sys.argv[1:])
