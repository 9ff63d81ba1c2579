"""Page 01, a billion knobs: what a gradient costs when you measure it by nudging one knob at a time.

The sections are shown, in this order, on docs/pt/01-a-billion-knobs.md and docs/en/01-a-billion-knobs.md;
the tests run them in one fresh interpreter and compare what they print with what the pages show.
Every cost on the page is a count of forward passes, never a timing, so the output is the same everywhere.
"""

# --8<-- [start:model]
import numpy as np

import culpa

np.set_printoptions(precision=4, suppress=True)

rng = np.random.default_rng(0)
X = rng.normal(size=(8, 2))
labels = (X[:, 0] * X[:, 1] > 0).astype(int)  # (1)!
model = culpa.nn.MLP([2, 4, 2], rng=0)  # (2)!
params = model.parameters()
n_params = sum(p.data.size for p in params)

forward_passes = 0


def run_model():  # (3)!
    global forward_passes
    forward_passes += 1
    return culpa.cross_entropy(model(X), labels)


def loss_fn():
    with culpa.no_grad():  # (4)!
        return run_model().item()


start_loss = loss_fn()
print("N =", n_params)
print("L =", round(start_loss, 4))
# --8<-- [end:model]

# --8<-- [start:nudge]
eps = 1e-4
knob = model.layers[0].weight  # (1)!

before = loss_fn()
knob.data[1, 0] += eps  # (2)!
after = loss_fn()  # (3)!
knob.data[1, 0] -= eps  # (4)!
slope = (after - before) / eps  # (5)!

print(f"L(θ + ε) - L(θ) = {after - before:+.2e}")
print(f"slope = {slope:+.6f}")
# --8<-- [end:nudge]

# --8<-- [start:estimate]
def estimate_slopes(loss_fn, params, eps, two_sided):
    base = None if two_sided else loss_fn()  # (1)!
    slopes = []
    for p in params:
        s = np.zeros_like(p.data)
        for i in np.ndindex(p.shape):
            old = p.data[i]
            p.data[i] = old + eps
            up = loss_fn()
            if two_sided:  # (2)!
                p.data[i] = old - eps
                s[i] = (up - loss_fn()) / (2 * eps)
            else:
                s[i] = (up - base) / eps
            p.data[i] = old
        slopes.append(s)
    return slopes


forward_passes = 0
one_sided = estimate_slopes(loss_fn, params, eps, two_sided=False)
one_sided_passes = forward_passes

forward_passes = 0
two_sided = estimate_slopes(loss_fn, params, eps, two_sided=True)
two_sided_passes = forward_passes

ready_made = culpa.check.finite_difference(  # (3)!
    lambda *_: run_model(), params)
pairs = zip(ready_made, two_sided, strict=True)
same = all(np.allclose(a, b) for a, b in pairs)

print(f"N = {n_params}   N + 1 = {one_sided_passes}   2N = {two_sided_passes}")
print(f"one_sided[0][1, 0] = {one_sided[0][1, 0]:+.6f}")
print(f"two_sided[0][1, 0] = {two_sided[0][1, 0]:+.6f}")
print("culpa.check.finite_difference == two_sided:", same)
# --8<-- [end:estimate]

# --8<-- [start:error]
loss = run_model()  # (1)!
loss.backward()
exact = [p.grad.copy() for p in params]


def worst_error(estimate):
    pairs = zip(estimate, exact, strict=True)
    return max(np.abs(e - g).max() for e, g in pairs)


errors = {}
print("   eps    one_sided   two_sided")
for step in [1e-1, 1e-2, 1e-3, 1e-4]:
    errors[step] = [worst_error(estimate_slopes(loss_fn, params, step, sided))
                    for sided in (False, True)]
    print(f"{step:6.0e}   {errors[step][0]:.1e}     {errors[step][1]:.1e}")

one_sided_gain = (errors[1e-1][0] / errors[1e-4][0]) ** (1 / 3)  # (2)!
two_sided_gain = (errors[1e-1][1] / errors[1e-4][1]) ** (1 / 3)
# --8<-- [end:error]

# --8<-- [start:cost]
MS = 1e-3  # (1)!
MONTH = 365.25 / 12 * 24 * 3600


def passes_per_gradient(n, two_sided=True):
    return 2 * n if two_sided else n + 1


def readable(seconds):
    for unit, size in [("d", 86_400), ("h", 3_600), ("min", 60)]:
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


small_n, qwen_n = 10_000, 27_000_000_000  # (2)!

print(f"{'N':>16}  {'2N':>16}  2N × 1 ms")
for n in [small_n, 1_000_000, 1_000_000_000, qwen_n]:
    passes = passes_per_gradient(n)
    print(f"{n:>16_}  {passes:>16_}  {readable(passes * MS)}")

small, qwen = passes_per_gradient(small_n), passes_per_gradient(qwen_n)
qwen_months = qwen * MS / MONTH
print(f"{qwen_months = :.1f}")
# --8<-- [end:cost]

# --8<-- [start:backprop]
for p in params:
    p.zero_grad()

forward_passes = 0

loss = run_model()  # (1)!
loss.backward()  # (2)!

print("forward_passes =", forward_passes)
print("N =", n_params, "  sum(p.grad.size) =", sum(p.grad.size for p in params))
print(f"knob.grad[1, 0] = {knob.grad[1, 0]:+.6f}")
agree = all(np.allclose(p.grad, s, rtol=0, atol=1e-7)
            for p, s in zip(params, two_sided, strict=True))
print("allclose(grad, two_sided):", agree)
# --8<-- [end:backprop]
