"""The home page: a first taste of culpa, three knobs and their three slopes from one backward sweep.

Shown on docs/pt/index.md and docs/en/index.md; the tests run it and compare what it prints with the pages.
"""

# --8<-- [start:first]
import culpa

w = culpa.Tensor([0.5, -1.0, 2.0], requires_grad=True)  # (1)!
x = culpa.Tensor([1.0, 2.0, 3.0])
loss = ((w * x).sum() - 1.0) ** 2  # (2)!
loss.backward()  # (3)!

print("L =", loss.item())
print("w.grad =", w.grad)
# --8<-- [end:first]
