"""The short path: the numbers its one-screen ideas quote, each computed as its chapter page computes it.

Shown on docs/pt/short-path.md and docs/en/short-path.md; the tests run it and check every number the
prose of that page states.
"""

# --8<-- [start:numbers]
import numpy as np

import culpa

np.set_printoptions(precision=3, suppress=True)

n = 27_000_000_000  # (1)!
passes = 2 * n
months = passes * 1e-3 / (365.25 / 12 * 24 * 3600)

z = culpa.Tensor([2.0, 1.0, 0.1], requires_grad=True)  # (2)!
loss = culpa.cross_entropy(z, 0)
loss.backward()
p = culpa.softmax(z).data

x = culpa.Tensor(2.0, requires_grad=True)  # (3)!
(3 * x * x**2).backward()

print(f"2N = {passes:_}   {months = :.1f}")
print("p =", p, "  L =", round(loss.item(), 3))
print("dL/dz = p - y =", z.grad)
print("x.grad =", x.grad)
# --8<-- [end:numbers]
