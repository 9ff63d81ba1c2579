"""The home page: a first taste of culpa, three knobs and their three slopes from one backward sweep.

Shown on docs/pt/index.md and docs/en/index.md; the tests run it and compare what it prints with the pages.
"""

# --8<-- [start:first]
import culpa

w = culpa.Tensor([0.5, -1.0, 2.0], requires_grad=True)  # three knobs
x = culpa.Tensor([1.0, 2.0, 3.0])  # one input
loss = ((w * x).sum() - 1.0) ** 2  # (1)!
loss.backward()  # one backward sweep

print("loss:", loss.item())
print("slopes:", w.grad)
# --8<-- [end:first]
