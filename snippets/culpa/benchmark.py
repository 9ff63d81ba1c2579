"""How fast is culpa? A reader's benchmark, in one command:

    python -m culpa.benchmark            # a few minutes
    python -m culpa.benchmark --quick    # fewer rounds, to see that it works

1. One training step of an MLP (forward, backward, SGD update) in culpa, side by side with the same step
   written out by hand in NumPy, as a person writes it (`NumpyStep`): the floor an engine built on NumPy can
   approach. `bwd/fwd` divides culpa's backward time by its forward time.
2. One gradient by finite differences (two forward passes per parameter) against one backward pass
   (`fd_vs_backprop`): the ratio grows with the number of parameters.

Both run here and now, on your machine, interleaved (a slow spell hits both alike), and report medians of the
CPU time of this thread. For culpa against PyTorch, with the project's targets, see the project's harness
(tests/bench/engine_benchmark.py in the repository).
"""

import argparse
import statistics
import time

import numpy as np

import culpa

# (name, layer sizes, batch)
SIZES = [
    ("tiny", [2, 16, 16, 2], 32),
    ("small", [64, 128, 10], 64),
    ("medium", [784, 256, 10], 128),
    ("large", [784, 1024, 1024, 10], 256),
]
LR = 1e-3

# The environment every timing of culpa is taken in (the project's harness, tests/bench/engine_benchmark.py;
# the site's timing figures and its labs' kernel, sitebuild/project.py): one BLAS thread, so that timings
# are stable on a shared machine, and glibc's allocator keeping freed memory: blocks up to 32 MB come from
# the heap, which is not handed back to the kernel between steps. By default glibc returns large blocks and
# takes them again page fault by page fault (measured: +40% on the hand-written NumPy step at 784-256-10,
# +30% on culpa at 784-1024-1024-10, a 3.6x slower forward pass in a figure). Set before anything loads.
PINNED_ENV = {
    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    "MALLOC_MMAP_THRESHOLD_": str(32 * 2**20), "MALLOC_TRIM_THRESHOLD_": str(2**30),
}


def problem(sizes, batch, dtype, seed=0):
    """A batch of inputs and class labels for an MLP of `sizes`."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((batch, sizes[0])).astype(dtype), rng.integers(0, sizes[-1], batch)


class CulpaStep:
    name = "culpa"

    def __init__(self, model, x, y):
        self.model, self.x, self.y = model, culpa.Tensor(x), y
        self.optimizer = culpa.nn.SGD(model.parameters(), lr=LR)

    def __call__(self):
        self.optimizer.zero_grad()
        loss = culpa.cross_entropy(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        return loss

    def split(self, clock):
        """(forward seconds, backward seconds) of one step: the forward includes the loss."""
        self.optimizer.zero_grad()
        t0 = clock()
        loss = culpa.cross_entropy(self.model(self.x), self.y)
        t1 = clock()
        loss.backward()
        t2 = clock()
        self.optimizer.step()
        return t1 - t0, t2 - t1


class NumpyStep:
    """The same network, forward and backward written out by hand, as a person writes them: the floor."""

    name = "numpy"

    def __init__(self, model, x, y):
        self.params = [(layer.weight.data.copy(), layer.bias.data.copy()) for layer in model.layers]
        self.x, self.y, self.rows = x, y, np.arange(len(y))

    def __call__(self):
        hs = [self.x]  # the input of every layer
        for W, b in self.params[:-1]:
            hs.append(np.tanh(hs[-1] @ W.T + b))
        W, b = self.params[-1]
        z = hs[-1] @ W.T + b
        z -= z.max(axis=1, keepdims=True)  # softmax without overflow
        e = np.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        loss = -np.log(p[self.rows, self.y]).mean()
        g = p  # dL/dz = (softmax - onehot) / n
        g[self.rows, self.y] -= 1
        g /= len(self.y)
        for i in reversed(range(len(self.params))):
            W, b = self.params[i]
            h = hs[i]
            grad_W, grad_b = g.T @ h, g.sum(axis=0)
            if i:  # the input needs no gradient
                g = (g @ W) * (1 - h * h)
            W -= LR * grad_W
            b -= LR * grad_b
        return loss


def block(step, reps, clock=time.thread_time):
    """Seconds per step over `reps` steps."""
    t0 = clock()
    for _ in range(reps):
        step()
    return (clock() - t0) / reps


def reps_for(step, budget):
    """How many steps make a block of about `budget` seconds (at least 1)."""
    step()
    return max(1, int(budget / max(block(step, 3), 1e-7)))


def interleaved(steps, rounds, budget, clock=time.thread_time):
    """{name: [seconds per step, one per round]}: every round runs each step for a block, in an order that
    rotates from round to round; each block starts with one untimed step (caches, allocator)."""
    reps = max(reps_for(step, budget) for step in steps)
    times = {step.name: [] for step in steps}
    for r in range(rounds):
        for step in steps[r % len(steps):] + steps[: r % len(steps)]:
            step()
            times[step.name].append(block(step, reps, clock))
    return times, reps


def ratio(times, a, b):
    """The median over rounds of a's time over b's, each round's pair measured side by side."""
    return statistics.median(x / y for x, y in zip(times[a], times[b], strict=True))


def measure_step(sizes, batch, dtype, rounds=21, budget=0.01):
    """culpa and hand-written NumPy on one training step: medians (seconds), culpa/numpy and bwd/fwd."""
    x, y = problem(sizes, batch, dtype)
    model = culpa.nn.MLP(sizes, activation="tanh", rng=0, dtype=dtype)
    ours = CulpaStep(model, x, y)
    steps = [ours, NumpyStep(model, x, y)]
    times, reps = interleaved(steps, rounds, budget)
    split = [ours.split(time.thread_time) for _ in range(rounds * reps)]
    result = {name: statistics.median(t) for name, t in times.items()}
    result["culpa/numpy"] = ratio(times, "culpa", "numpy")
    result["backward/forward"] = statistics.median(b / f for f, b in split)
    return result


def mlp_for_params(count, inputs=8, classes=4):
    """Layer sizes [inputs, h, classes] whose parameter count is closest to `count`."""
    hidden = max(1, round((count - classes) / (inputs + 1 + classes)))
    return [inputs, hidden, classes]


def parameter_count(sizes):
    return sum(i * o + o for i, o in zip(sizes[:-1], sizes[1:], strict=True))


def fd_vs_backprop(param_counts=(100, 300, 1000, 3000, 10000), batch=32, method="central", repeats=21,
                   dtype=np.float64, seed=0, clock=time.thread_time):
    """Time one gradient by finite differences and by backprop, for MLPs of about `param_counts` parameters.

    Finite differences ("central": two forward passes per parameter, "forward": one, plus one) run
    `culpa.check.finite_difference` on every parameter; backprop is one forward pass with recording plus
    one backward pass (median of `repeats`). Returns one dict per size: sizes, params, forward_passes,
    backprop_seconds, finite_difference_seconds, ratio (finite differences / backprop), and
    ratio_per_param (the ratio divided by params: about constant when the ratio grows linearly).
    """
    results = []
    for count in param_counts:
        sizes = mlp_for_params(count)
        model = culpa.nn.MLP(sizes, activation="tanh", rng=seed, dtype=dtype)
        x, y = problem(sizes, batch, dtype, seed)
        params, X = model.parameters(), culpa.Tensor(x)

        def loss(*_, model=model, X=X, y=y):
            return culpa.cross_entropy(model(X), y)

        backprop = []
        for _ in range(repeats):
            model.zero_grad()
            t0 = clock()
            loss().backward()
            backprop.append(clock() - t0)
        t0 = clock()
        culpa.check.finite_difference(loss, params, eps=1e-6, method=method)
        fd_seconds = clock() - t0
        n = parameter_count(sizes)
        ratio_ = fd_seconds / statistics.median(backprop)
        results.append({
            "sizes": sizes, "params": n, "forward_passes": 2 * n if method == "central" else n + 1,
            "backprop_seconds": statistics.median(backprop), "finite_difference_seconds": fd_seconds,
            "ratio": ratio_, "ratio_per_param": ratio_ / n,
        })
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m culpa.benchmark", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few rounds: check that it runs")
    args = parser.parse_args(argv)
    rounds, budget = (3, 0.002) if args.quick else (21, 0.01)
    print("one MLP training step (tanh hidden layers, SGD), float32; medians of this thread's CPU time\n")
    print("| size | layers, batch | culpa | hand-written NumPy | culpa/numpy | bwd/fwd |")
    print("|---|---|---|---|---|---|")
    for name, sizes, batch in SIZES:
        r = measure_step(sizes, batch, np.float32, rounds=rounds, budget=budget)
        print(f"| {name} | {'-'.join(map(str, sizes))}, {batch} | {r['culpa'] * 1e6:_.0f} µs "
              f"| {r['numpy'] * 1e6:_.0f} µs | {r['culpa/numpy']:.2f} | {r['backward/forward']:.2f} |",
              flush=True)
    counts = (100, 300, 1000) if args.quick else (100, 300, 1000, 3000, 10000)
    print("\none gradient, float64: finite differences (2 forward passes per parameter) vs one backward\n")
    print("| params | backprop | finite differences | ratio |")
    print("|---|---|---|---|")
    for row in fd_vs_backprop(counts, repeats=5 if args.quick else 21):
        print(f"| {row['params']:_} | {row['backprop_seconds'] * 1e6:_.0f} µs "
              f"| {row['finite_difference_seconds'] * 1e3:_.1f} ms | {row['ratio']:_.0f} |", flush=True)


if __name__ == "__main__":
    main()
