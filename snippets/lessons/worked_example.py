"""Page 03, the worked example: softmax + cross-entropy on the logits (2.0, 1.0, 0.1), observed class 0.

The sections are shown, in this order, on docs/pt/03-worked-example.md and docs/en/03-worked-example.md;
the tests run them in one fresh interpreter and compare what they print with what the pages show.
"""

# --8<-- [start:forward]
import numpy as np

import culpa

np.set_printoptions(precision=3, suppress=True)  # 3 decimals, as the text

z = culpa.Tensor([2.0, 1.0, 0.1], requires_grad=True)  # the three logits
y = np.array([1.0, 0.0, 0.0])  # one-hot: the observed class is the first

exps = z.exp()
p = exps / exps.sum()  # softmax, one recorded op at a time
loss = -(p * y).sum().log()  # (1)!

rounded_sum = exps.data.round(3).sum()
print("exp(z) =", exps.data, "  sum of the rounded values =", rounded_sum)
print("exact sum =", exps.data.sum().round(4))
print("p =", p.data)
print("L =", loss.data.round(3))
# --8<-- [end:forward]

# --8<-- [start:backward]
loss.backward()  # from dL/dL = 1 back to the logits

print("dL/dz =", z.grad)
print("p - y =", p.data - y)
# --8<-- [end:backward]

# --8<-- [start:softmax_jacobian]
pv = p.data
jacobian = np.diag(pv) - np.outer(pv, pv)  # (1)!
dL_dp = -y / pv + 0.0  # L = -sum y log p; + 0.0 shows -0. as 0.
print("dp/dz =")
print(jacobian)
print("dL/dp =", dL_dp)
print("dL/dp @ dp/dz =", dL_dp @ jacobian)  # (2)!
# --8<-- [end:softmax_jacobian]

# --8<-- [start:walk]
s = exps.data.sum()
g_logp = -1.0  # L = -log p0
g_p0 = g_logp / pv[0]  # log: times 1/p0
g_p = g_p0 * y  # sum, then * y: the blame lands on p0 alone
g_e_top = g_p / s  # (1)!
g_s = -(g_p * exps.data).sum() / s**2  # (2)!
g_e = g_e_top + g_s  # (3)!
g_z = g_e * exps.data  # exp: times e^z

print(f"dL/dlog p0 = {g_logp:.4f}   dL/dp0 = {g_p0:.4f}")
print("dL/dp =", g_p + 0.0, "  culpa:", p.grad + 0.0)
print(f"dL/ds = {g_s:.4f}   (1/s = {1 / s:.4f})")
print("dL/de =", g_e, "  culpa:", exps.grad)
print("dL/dz =", g_z, "  culpa:", z.grad)
# --8<-- [end:walk]

# --8<-- [start:fused]
z_fused = culpa.Tensor([2.0, 1.0, 0.1], requires_grad=True)
fused = culpa.cross_entropy(z_fused, 0)  # softmax and cross-entropy in one op
fused.backward()  # its backward is p - y, written out once

print("L     =", round(fused.item(), 3))
print("dL/dz =", z_fused.grad)
print("same gradient as the op-by-op graph:", np.allclose(z_fused.grad, z.grad))

big = culpa.Tensor([1000.0, 999.0, 998.1])  # the same logits, plus 998
with np.errstate(over="ignore", invalid="ignore"):  # (1)!
    big_exps = big.exp()
    big_p = big_exps / big_exps.sum()

print("op by op, exp:", big_exps.data, " p:", big_p.data)
print("fused, L =", round(culpa.cross_entropy(big, 0).item(), 3))
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
h = culpa.Tensor(rng.normal(size=4), requires_grad=True)  # a hidden vector
W = culpa.Tensor(rng.normal(size=(3, 4)), requires_grad=True)  # 3 x 4 weights
target = np.array([2.0, 1.0, 0.1])
b = culpa.Tensor(target - W.data @ h.data, requires_grad=True)  # (1)!

logits = W @ h + b
layer_loss = culpa.cross_entropy(logits, 0)
layer_loss.backward()

delta = culpa.softmax(logits).data - y  # p - y, the blame on the logits
print("logits =", logits.data)
print("dL/db == p - y       :", np.allclose(b.grad, delta))
print("dL/dW == (p - y) h^T :", np.allclose(W.grad, np.outer(delta, h.data)))
print("dL/dh == W^T (p - y) :", np.allclose(h.grad, W.data.T @ delta))
print("dL/dh =", h.grad)

by_paths = sum(delta[i] * W.data[i] for i in range(3))  # (2)!
print("sum over the 3 logits:", by_paths)
# --8<-- [end:layer]
