"""The short path: the numbers its one-screen ideas quote, each computed as its chapter page computes it.

Shown on docs/pt/short-path.md and docs/en/short-path.md; the tests run it and check every number the
prose of that page states.
"""

# --8<-- [start:numbers]
import numpy as np

import culpa

np.set_printoptions(precision=3, suppress=True)

# finite differences for 27 billion knobs, at 1 ms per forward pass
n = 27_000_000_000
passes = 2 * n  # two forward passes per knob
months = passes * 1e-3 / (365.25 / 12 * 24 * 3600)

# the worked example: logits (2.0, 1.0, 0.1), the first class observed
z = culpa.Tensor([2.0, 1.0, 0.1], requires_grad=True)
loss = culpa.cross_entropy(z, 0)
loss.backward()
p = culpa.softmax(z).data

# one value, two paths: L = 3x * x^2 at x = 2
x = culpa.Tensor(2.0, requires_grad=True)
(3 * x * x**2).backward()

print(f"{passes:_} forward passes: {months:.1f} months per step")
print("p =", p, "  L =", round(loss.item(), 3))
print("dL/dz = p - y =", z.grad)
print("x.grad =", x.grad)
# --8<-- [end:numbers]
