"""The engine's benchmark harness (not collected by pytest; run it by hand):

    .venv/bin/python tests/bench/engine_benchmark.py            # the full tables (a few minutes)
    .venv/bin/python tests/bench/engine_benchmark.py --quick    # fewer rounds, to see that it works
    .venv/bin/python tests/bench/engine_benchmark.py --sizes tiny medium   # only these sizes, no FD table
    .venv/bin/python tests/bench/engine_benchmark.py --clock wall   # elapsed time instead of CPU time

It re-executes itself in a pinned environment (see below). To measure another culpa on the same floor (an
older commit, say), put its package first on PYTHONPATH; the harness takes the floor and the culpa step from
`culpa.benchmark`, the reader's benchmark in the wheel, so copy today's snippets/culpa/benchmark.py into it.

Contenders, on the same network, data and initial weights, at the same thread count:

* culpa: `MLP`, `cross_entropy`, `backward`, `SGD`, as every page uses them (`culpa.benchmark.CulpaStep`);
* numpy: the same step written out by hand in NumPy as a person writes it (`culpa.benchmark.NumpyStep`:
  fancy-index the target, update in place), the floor an engine built on NumPy can approach;
* torch: PyTorch CPU eager (when installed), `nn.Sequential` of `nn.Linear` and `nn.Tanh`,
  `F.cross_entropy`, and the update as a plain `p.add_(p.grad, alpha=-lr)` loop (faster than
  `torch.optim.SGD` at small sizes, so torch is shown at its best).

With torch installed, two more contenders time only the matrix products of one step (forward h @ W.T,
backward g.T @ h and g @ W, the same shapes and layouts), once through NumPy and once through torch: the
column "GEMMs numpy/torch" is how much faster torch's BLAS library is on the same products, a gap that no
engine written on NumPy can close.

Every number is a median over rounds; in each round every contender runs a block of steps, in an order
that rotates from round to round, so that a slow spell of a shared machine hits them all alike; each block
starts with one untimed step, so that what is timed is a contender running on its own, as in training, and
not the switch from another one (whose arrays and allocations are still in the caches). Ratios are
taken within a round, then the median is reported. The clock is the CPU time of this thread (everything
runs in it), which on a shared machine does not count the time other processes hold the CPU;
`--clock wall` uses elapsed time instead.

The environment is pinned for every contender alike, before anything loads (hence the re-execution):
BLAS threads to 1 (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS; torch.set_num_threads(1)),
and glibc's allocator told to keep freed memory (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_). By
default glibc hands large blocks back to the kernel and takes them again, page fault by page fault,
depending on the order in which a program frees its arrays: measured here, that cost the hand-written
NumPy step 680 page faults (+40%) at 784-256-10 in float64, and culpa ~5,000 faults (+30%) per step
at 784-1024-1024-10 before it freed activations during backward. That is the allocator's heuristic,
not the engines: with it pinned, what is left is the work.
"""

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import culpa
from culpa.benchmark import (
    LR,
    PINNED_ENV,
    SIZES,
    CulpaStep,
    NumpyStep,
    fd_vs_backprop,
    interleaved,
    problem,
    ratio,
)

# the issues' targets (22 for tiny and medium): culpa/numpy at most; culpa/torch (a limit of 1.0 means faster
# than torch, strictly below it; 1.05 means at most); backward/forward at most
TARGETS = {
    "tiny": (1.5, 1.0, 2.0),
    "small": (1.25, 1.0, 2.0),
    "medium": (1.05, 1.0, 2.0),
    "large": (1.1, 1.05, 2.0),
}
# Everything runs in this one thread (one BLAS thread, one torch thread), so its CPU time is the cost of the
# work; unlike elapsed time it does not count the moments a shared machine gives the CPU to someone else.
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}


class TorchStep:
    name = "torch"

    def __init__(self, model, x, y):
        import torch

        layers = []
        for layer in model.layers:
            out_features, in_features = layer.weight.shape
            linear = torch.nn.Linear(in_features, out_features, dtype=_torch_dtype(x.dtype))
            with torch.no_grad():
                linear.weight.copy_(torch.from_numpy(layer.weight.data))
                linear.bias.copy_(torch.from_numpy(layer.bias.data))
            layers += [linear, torch.nn.Tanh()]
        self.torch, self.net = torch, torch.nn.Sequential(*layers[:-1])
        self.params = list(self.net.parameters())
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)

    def __call__(self):
        torch = self.torch
        for p in self.params:
            p.grad = None
        loss = torch.nn.functional.cross_entropy(self.net(self.x), self.y)
        loss.backward()
        with torch.no_grad():
            for p in self.params:
                p.add_(p.grad, alpha=-LR)
        return loss


class GemmStep:
    """Only the matrix products of one step, on fixed arrays: what the BLAS library alone costs.

    Per layer: the forward h @ W.T, and the backward g.T @ h (the weight's gradient) and g @ W (the input's,
    except for the first layer): the products culpa, the hand-written step and torch's nn.Linear all make.
    """

    def __init__(self, model, x, library="numpy"):
        rng = np.random.default_rng(1)
        self.name, self.products = f"{library} GEMMs", []
        for i, layer in enumerate(model.layers):
            W = layer.weight.data.copy()
            h = x if i == 0 else rng.standard_normal((x.shape[0], W.shape[1])).astype(x.dtype)
            g = rng.standard_normal((x.shape[0], W.shape[0])).astype(x.dtype)
            if library == "torch":
                import torch

                W, h, g = torch.from_numpy(W), torch.from_numpy(h), torch.from_numpy(g)
            self.products.append((h, W, g, i > 0))

    def __call__(self):
        results = []
        for h, W, g, input_needs_grad in self.products:
            results += [h @ W.T, g.T @ h, g @ W] if input_needs_grad else [h @ W.T, g.T @ h]
        return results


def _torch_dtype(dtype):
    import torch

    return {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64}[np.dtype(dtype)]


def _torch_available():
    try:
        import torch
    except ImportError:
        return False
    torch.set_num_threads(1)
    return True


def measure_step(sizes, batch, dtype, rounds=41, budget=0.01, with_torch=None, clock="cpu"):
    """Interleaved timing of one training step for every contender; returns a dict of medians (seconds)."""
    clock = CLOCKS[clock]
    with_torch = _torch_available() if with_torch is None else with_torch
    x, y = problem(sizes, batch, dtype)
    model = culpa.nn.MLP(sizes, activation="tanh", rng=0, dtype=dtype)
    steps = [NumpyStep(model, x, y), TorchStep(model, x, y)] if with_torch else [NumpyStep(model, x, y)]
    steps.insert(0, CulpaStep(model, x, y))  # built last: the others copied the same initial weights
    if with_torch:  # the BLAS libraries alone, on the same products
        steps += [GemmStep(model, x, "numpy"), GemmStep(model, x, "torch")]
    times, reps = interleaved(steps, rounds, budget, clock)
    culpa_step, split = steps[0], []
    for _ in range(rounds):
        forward = backward = 0.0
        for _ in range(reps):
            f, b = culpa_step.split(clock)
            forward, backward = forward + f, backward + b
        split.append(backward / forward)
    result = {name: statistics.median(t) for name, t in times.items()}
    for other in ("numpy", "torch"):
        if other in times:
            result[f"culpa/{other}"] = ratio(times, "culpa", other)
    if "torch" in times:  # the floor against torch: what no NumPy engine can beat (BLAS, fused updates)
        result["numpy/torch"] = ratio(times, "numpy", "torch")
        result["GEMMs numpy/torch"] = ratio(times, "numpy GEMMs", "torch GEMMs")
        result["GEMMs share of torch"] = ratio(times, "torch GEMMs", "torch")
    result["backward/forward"] = statistics.median(split)
    result["steps per block"] = reps
    return result


def _environment():
    blas = np.__config__.CONFIG.get("Build Dependencies", {}).get("blas", {})
    versions = f"numpy {np.__version__} ({blas.get('name', '?')} {blas.get('version', '')})".rstrip()
    if _torch_available():
        import torch

        versions += f", torch {torch.__version__}"
    threads = ", ".join(f"{v}={os.environ.get(v)}" for v in PINNED_ENV)
    return f"{versions}, Python {platform.python_version()}, {_cpu()}; {threads}, torch threads 1; {_load()}"


def _load():
    """The machine's load average: other processes share the cores (CPU time keeps most of them out)."""
    try:
        return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    except OSError:
        return "load average unknown"


def _cpu():
    try:
        with open("/proc/cpuinfo") as info:
            name = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        name = platform.processor() or "unknown CPU"
    return f"{name}, {os.cpu_count()} logical cores"


def _with_torch_gemms(r):
    """culpa/torch if NumPy's matrix products ran at torch's speed: the BLAS difference taken out."""
    return r["culpa/torch"] - (r["GEMMs numpy/torch"] - 1) * r["GEMMs share of torch"]


def _mark(value, limit, faster=False):
    """'ok' or 'MISSED' against an upper limit; faster=True: strictly below it (1.00 is a tie, not faster)."""
    met = value < limit if faster else value <= limit
    return f"{value:.2f} {'ok' if met else 'MISSED'} ({'<' if faster else '≤'} {limit:g})"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tests/bench/engine_benchmark.py",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few rounds: check that it runs")
    parser.add_argument("--clock", choices=CLOCKS, default="cpu",
                        help="cpu: this thread's CPU time (default; robust when shared); wall: elapsed time")
    parser.add_argument("--sizes", nargs="+", choices=[name for name, _, _ in SIZES], metavar="SIZE",
                        help="run only these network sizes (tiny, small, medium, large), and skip the "
                             "finite-difference table")
    args = parser.parse_args(argv)
    rounds, budget = (3, 0.002) if args.quick else (41, 0.01)
    with_torch = _torch_available()
    print("culpa benchmark: one MLP training step (forward, backward, SGD update), tanh hidden layers")
    print(f"culpa from {os.path.dirname(culpa.__file__)}")
    print(_environment())
    print(f"medians of {rounds} interleaved rounds, each a block of ~{budget * 1e3:g} ms per contender; "
          f"clock: {args.clock} ({'CPU time of this thread' if args.clock == 'cpu' else 'elapsed time'})\n")
    header = ("| size | layers, batch | dtype | culpa | numpy | torch | culpa/numpy | culpa/torch "
              "| numpy/torch | GEMMs numpy/torch | bwd/fwd |")
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for name, sizes, batch in SIZES:
        if args.sizes and name not in args.sizes:
            continue
        for dtype in (np.float32, np.float64):
            r = measure_step(sizes, batch, dtype, rounds=rounds, budget=budget, with_torch=with_torch,
                             clock=args.clock)
            to_numpy, to_torch, bwd_fwd = TARGETS[name]
            faster = to_torch == 1.0  # "faster than torch", not "as fast"
            torch_cells = (f"{r['torch'] * 1e6:,.0f} µs", _mark(r["culpa/torch"], to_torch, faster),
                           f"{r['numpy/torch']:.2f}", f"{r['GEMMs numpy/torch']:.2f}"
                           f" ({r['GEMMs share of torch']:.0%} of torch's step; culpa/torch with GEMMs as"
                           f" fast as torch's: {_with_torch_gemms(r):.2f})"
                           ) if with_torch else ("not installed", "-", "-", "-")
            print(f"| {name} | {'-'.join(map(str, sizes))}, {batch} | {np.dtype(dtype).name} "
                  f"| {r['culpa'] * 1e6:,.0f} µs | {r['numpy'] * 1e6:,.0f} µs | {torch_cells[0]} "
                  f"| {_mark(r['culpa/numpy'], to_numpy)} | {torch_cells[1]} | {torch_cells[2]} "
                  f"| {torch_cells[3]} | {_mark(r['backward/forward'], bwd_fwd)} |", flush=True)
    print(f"({_load()} at the end of the step table)")
    if args.sizes:
        return
    counts = (100, 300, 1000) if args.quick else (100, 300, 1000, 3000, 10000)
    print("\nfinite differences (central, 2 forward passes per parameter) vs one backprop gradient, float64, "
          "batch 32")
    print("| params | layers | backprop | finite differences | ratio | ratio / params |")
    print("|---|---|---|---|---|---|")
    for row in fd_vs_backprop(counts, repeats=5 if args.quick else 21, clock=CLOCKS[args.clock]):
        print(f"| {row['params']:,} | {'-'.join(map(str, row['sizes']))} "
              f"| {row['backprop_seconds'] * 1e6:,.0f} µs | {row['finite_difference_seconds'] * 1e3:,.1f} ms "
              f"| {row['ratio']:,.0f} "
              f"| {row['ratio_per_param']:.2f} |", flush=True)


def _rerun_in_pinned_environment():
    """BLAS and glibc read these variables when the process starts: re-run this module with them set."""
    if all(os.environ.get(name) == value for name, value in PINNED_ENV.items()):
        return
    env = dict(os.environ, **PINNED_ENV)
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]], env)


if __name__ == "__main__":
    _rerun_in_pinned_environment()
    main()
