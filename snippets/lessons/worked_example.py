"""Page 03, the worked example: softmax + cross-entropy on the logits (2.0, 1.0, 0.1), observed class 0.

The sections are shown, in this order, on docs/pt/03-worked-example.md and docs/en/03-worked-example.md;
the tests run them in one fresh interpreter and compare what they print with what the pages show.
"""

# --8<-- [start:forward]
import numpy as np

import culpa

np.set_printoptions(precision=3, suppress=True)

z = culpa.Tensor([2.0, 1.0, 0.1], requires_grad=True)
y = np.array([1.0, 0.0, 0.0])  # (1)!

exps = z.exp()
p = exps / exps.sum()  # (2)!
loss = -(p * y).sum().log()  # (3)!

rounded_sum = exps.data.round(3).sum()
print("exp(z) =", exps.data, "  sum(round(exp(z), 3)) =", rounded_sum)
print("sum(exp(z)) =", exps.data.sum().round(4))
print("p =", p.data)
print("L =", loss.data.round(3))
# --8<-- [end:forward]

# --8<-- [start:backward]
loss.backward()  # (1)!

print("dL/dz =", z.grad)
print("p - y =", p.data - y)
# --8<-- [end:backward]

# --8<-- [start:softmax_jacobian]
pv = p.data
jacobian = np.diag(pv) - np.outer(pv, pv)  # (1)!
dL_dp = -y / pv + 0.0  # (2)!
print("dp/dz =")
print(jacobian)
print("dL/dp =", dL_dp)
print("dL/dp @ dp/dz =", dL_dp @ jacobian)  # (3)!
# --8<-- [end:softmax_jacobian]

# --8<-- [start:walk]
s = exps.data.sum()
g_logp = -1.0  # (1)!
g_p0 = g_logp / pv[0]  # (2)!
g_p = g_p0 * y  # (3)!
g_e_top = g_p / s  # (4)!
g_s = -(g_p * exps.data).sum() / s**2  # (5)!
g_e = g_e_top + g_s  # (6)!
g_z = g_e * exps.data  # (7)!

print(f"dL/dlog p0 = {g_logp:.4f}   dL/dp0 = {g_p0:.4f}")
print("dL/dp =", g_p + 0.0, "  p.grad =", p.grad + 0.0)
print(f"dL/ds = {g_s:.4f}   1/s = {1 / s:.4f}")
print("dL/de =", g_e, "  exps.grad =", exps.grad)
print("dL/dz =", g_z, "  z.grad =", z.grad)
# --8<-- [end:walk]

# --8<-- [start:fused]
z_fused = culpa.Tensor([2.0, 1.0, 0.1], requires_grad=True)
fused = culpa.cross_entropy(z_fused, 0)  # (1)!
fused.backward()

print("L     =", round(fused.item(), 3))
print("dL/dz =", z_fused.grad)
print("allclose(z_fused.grad, z.grad):", np.allclose(z_fused.grad, z.grad))

big = culpa.Tensor([1000.0, 999.0, 998.1])  # (2)!
with np.errstate(over="ignore", invalid="ignore"):  # (3)!
    big_exps = big.exp()
    big_p = big_exps / big_exps.sum()

print("big_exps =", big_exps.data, "  big_p =", big_p.data)
print("cross_entropy(big, 0) =", round(culpa.cross_entropy(big, 0).item(), 3))
# --8<-- [end:fused]

# --8<-- [start:step]
lr = 1.0
z_after = z.data - lr * z.grad  # (1)!
p_after = np.exp(z_after) / np.exp(z_after).sum()

print("z_after =", z_after)
print("p_after =", p_after)
print("L_after =", (-np.log(p_after[0])).round(3))
# --8<-- [end:step]

# --8<-- [start:layer]
rng = np.random.default_rng(0)
h = culpa.Tensor(rng.normal(size=4), requires_grad=True)  # (1)!
W = culpa.Tensor(rng.normal(size=(3, 4)), requires_grad=True)
target = np.array([2.0, 1.0, 0.1])
b = culpa.Tensor(target - W.data @ h.data, requires_grad=True)  # (2)!

logits = W @ h + b
layer_loss = culpa.cross_entropy(logits, 0)
layer_loss.backward()

delta = culpa.softmax(logits).data - y  # (3)!
print("logits =", logits.data)
print("dL/db == p - y       :", np.allclose(b.grad, delta))
print("dL/dW == (p - y) h^T :", np.allclose(W.grad, np.outer(delta, h.data)))
print("dL/dh == W^T (p - y) :", np.allclose(h.grad, W.data.T @ delta))
print("dL/dh =", h.grad)

by_paths = sum(delta[i] * W.data[i] for i in range(3))  # (4)!
print("sum_i delta[i] * W[i] =", by_paths)
# --8<-- [end:layer]
