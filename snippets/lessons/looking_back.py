"""Page 10, looking back: the chapter's core in about twenty lines of culpa.

The section is shown on docs/pt/10-looking-back.md and
docs/en/10-looking-back.md; the tests run it in a fresh interpreter and compare
what it prints with what the pages show. Lines stay within 80 characters: the
width of the page's code column.
"""

# --8<-- [start:recap]
import numpy as np

import culpa

rng = np.random.default_rng(0)
X, y = rng.normal(size=(8, 3)), rng.integers(0, 3, size=8)
model = culpa.nn.MLP([3, 4, 3], activation="tanh", rng=0)
params = model.parameters()
before = [p.data.copy() for p in params]

loss = culpa.cross_entropy(model(X), y)  # (1)!
nodes = reversed(culpa.topo_order(loss))
ops = [node.op for node in nodes if node.op != "leaf"]
loss.backward()  # (2)!
agreement = culpa.check.gradcheck(  # (3)!
    lambda *_: culpa.cross_entropy(model(X), y), params)

n_params = sum(p.data.size for p in params)
print(f"L = {loss.item():.3f}   ops = {ops}")
print("find_bad_gradients:", culpa.check.find_bad_gradients(model))
print("gradcheck error < 1e-6:", agreement < 1e-6)
print(f"N = {n_params}   2N = {2 * n_params}")
pairs = zip(params, before, strict=True)
print("any(p.data != b):", any((p.data != b).any() for p, b in pairs))  # (4)!
# --8<-- [end:recap]
