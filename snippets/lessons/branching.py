"""Page 05, branching and accumulation: a value used twice gets the sum of both contributions.

The sections are shown, in this order, on docs/pt/05-branching.md and docs/en/05-branching.md; the tests run
them in one fresh interpreter and compare what they print with what the pages show.
"""

# --8<-- [start:two_paths]
import numpy as np

import culpa

x = culpa.Tensor(2.0, requires_grad=True)
u = 3 * x
v = x**2  # (1)!
L = u * v  # L = 3x * x^2 = 3x^3
L.backward()

via_u = u.grad * 3
via_v = v.grad * 2 * x.data
print("L =", L.item())
print(f"dL/du * du/dx = {via_u}   dL/dv * dv/dx = {via_v}")
print(f"sum = {via_u + via_v}   x.grad = {x.grad}")
# --8<-- [end:two_paths]

# --8<-- [start:check]
def f(x):
    return (3 * x) * x**2


h = 1e-5
estimate = (f(2.0 + h) - f(2.0 - h)) / (2 * h)
print("(f(x + h) - f(x - h)) / 2h =", round(estimate, 6))
print("9x^2 =", 9 * 2.0**2)
# --8<-- [end:check]

# --8<-- [start:two_calls]
again = (3 * x) * x**2  # (1)!
again.backward()  # (2)!
print("x.grad =", x.grad)

x.zero_grad()  # (3)!
(3 * x * x**2).backward()
print("x.grad =", x.grad)
# --8<-- [end:two_calls]

# --8<-- [start:data]
rng = np.random.default_rng(0)
X = rng.normal(size=(32, 2))
t = X @ np.array([2.0, -1.0]) + 0.5  # (1)!


def mse(model, X, t):
    pred = model(culpa.Tensor(X)).reshape(-1)
    return ((pred - culpa.Tensor(t)) ** 2).mean()
# --8<-- [end:data]

# --8<-- [start:forgot]
def flat_grads(params):  # (1)!
    return np.concatenate([np.zeros(p.data.size) if p.grad is None
                           else p.grad.ravel() for p in params])


def train(zero_grad, steps=40, lr=0.1):
    model = culpa.nn.Linear(2, 1, rng=1)
    params = model.parameters()
    opt = culpa.nn.SGD(params, lr=lr)
    losses, growth = [], []
    for _ in range(steps):
        if zero_grad:
            opt.zero_grad()  # (2)!
        before = flat_grads(params)
        loss = mse(model, X, t)
        loss.backward()
        used = flat_grads(params)  # (3)!
        fresh = used - before
        losses.append(loss.item())
        growth.append(np.linalg.norm(used) / np.linalg.norm(fresh))  # (4)!
        opt.step()
    return losses, growth


good, _ = train(zero_grad=True)
bad, growth = train(zero_grad=False)
print("step      good       bad   growth = |used| / |fresh|")
for step in [0, 1, 2, 3, 4, 8, 12, 16, 20, 24, 28, 32, 36, 39]:
    print(f"{step:4d}   {good[step]:7.4f}   {bad[step]:7.4f}", end="   ")
    print(f"{growth[step]:6.1f}")
# --8<-- [end:forgot]

# --8<-- [start:micro_batches]
model = culpa.nn.Linear(2, 1, rng=1)
mse(model, X, t).backward()  # (1)!
full = [p.grad.copy() for p in model.parameters()]

model.zero_grad()  # (2)!
for rows in np.split(np.arange(32), 4):  # (3)!
    (mse(model, X[rows], t[rows]) * (len(rows) / len(X))).backward()  # (4)!

pairs = zip(model.parameters(), full, strict=True)
same = all(np.allclose(p.grad, g) for p, g in pairs)
print("allclose(p.grad, full):", same)
# --8<-- [end:micro_batches]
