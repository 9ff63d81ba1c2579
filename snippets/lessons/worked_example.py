"""Page 03, the worked example: softmax + cross-entropy on the logits (2.0, 1.0, 0.1), observed class 0.

The sections are shown, in this order, on docs/pt/03-worked-example.md and docs/en/03-worked-example.md;
the tests run them in one fresh interpreter and compare what they print with what the pages show.
"""

# --8<-- [start:forward]
import numpy as np

import culpa

np.set_printoptions(precision=3, suppress=True)  # show 3 decimals, as the text does

z = culpa.Tensor([2.0, 1.0, 0.1], requires_grad=True)  # the three logits
y = np.array([1.0, 0.0, 0.0])  # one-hot: the observed class is the first

exps = z.exp()
p = exps / exps.sum()  # softmax, one recorded op at a time
loss = -(p * y).sum().log()  # (1)!

print("exp(z) =", exps.data, "  sum of the rounded values =", exps.data.round(3).sum().round(3))
print("exact sum =", exps.data.sum().round(4))
print("p =", p.data)
print("L =", loss.data.round(3))
# --8<-- [end:forward]

# --8<-- [start:backward]
loss.backward()  # from dL/dL = 1 back to the logits

print("dL/dz =", z.grad)
print("p - y =", p.data - y)
# --8<-- [end:backward]

# --8<-- [start:fused]
z_fused = culpa.Tensor([2.0, 1.0, 0.1], requires_grad=True)
fused = culpa.cross_entropy(z_fused, 0)  # softmax and cross-entropy in one op
fused.backward()  # its backward is p - y, written out once

print("L     =", round(fused.item(), 3))
print("dL/dz =", z_fused.grad)
print("same gradient as the op-by-op graph:", np.allclose(z_fused.grad, z.grad))
# --8<-- [end:fused]

# --8<-- [start:step]
lr = 1.0
z_after = z.data - lr * z.grad  # one gradient-descent step on the logits
p_after = np.exp(z_after) / np.exp(z_after).sum()

print("logits after the step:", z_after)
print("p after the step     :", p_after)
print("loss after the step  :", (-np.log(p_after[0])).round(3))
# --8<-- [end:step]

# --8<-- [start:layer]
rng = np.random.default_rng(0)
h = culpa.Tensor(rng.normal(size=4), requires_grad=True)  # a hidden vector from the layer below
W = culpa.Tensor(rng.normal(size=(3, 4)), requires_grad=True)  # 3 classes x 4 hidden units
b = culpa.Tensor([2.0, 1.0, 0.1] - W.data @ h.data, requires_grad=True)  # so that W h + b = (2.0, 1.0, 0.1)

logits = W @ h + b
layer_loss = culpa.cross_entropy(logits, 0)
layer_loss.backward()

delta = culpa.softmax(logits).data - y  # p - y, the blame on the logits
print("logits =", logits.data)
print("dL/db == p - y       :", np.allclose(b.grad, delta))
print("dL/dW == (p - y) h^T :", np.allclose(W.grad, np.outer(delta, h.data)))
print("dL/dh == W^T (p - y) :", np.allclose(h.grad, W.data.T @ delta))
print("dL/dh =", h.grad)
# --8<-- [end:layer]
