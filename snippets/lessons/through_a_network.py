"""Page 04, step by step through a network: backpropagation by hand in NumPy, then by culpa, compared.

A 4-5-4-3 MLP with sigmoid hidden layers and a softmax + cross-entropy output, in float64, on one example.
The sections are shown, in this order, on docs/pt/04-through-a-network.md and docs/en/04-through-a-network.md;
tests/test_lesson_through_a_network.py checks that the hand-written gradients and culpa's agree to 1e-12.
"""

# --8<-- [start:network]
import numpy as np

import culpa

np.set_printoptions(precision=3, suppress=True)

sizes = [4, 5, 4, 3]  # (1)!
depth = len(sizes) - 1
net = culpa.nn.MLP(sizes, activation="sigmoid", rng=0)  # (2)!

W = {l: layer.weight.data.copy() for l, layer in enumerate(net.layers, start=1)}  # (3)!
b = {l: layer.bias.data.copy() for l, layer in enumerate(net.layers, start=1)}

x = np.array([0.5, -1.2, 0.8, 2.0])
c = 2  # (4)!
y = np.eye(3)[c]

n_params = sum(W[l].size + b[l].size for l in W)
for l in W:
    print(f"W[{l}].shape = {W[l].shape}   b[{l}].shape = {b[l].shape}")

print("N =", n_params)
# --8<-- [end:network]

# --8<-- [start:forward]
def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def softmax(z):
    e = np.exp(z - z.max())  # (1)!
    return e / e.sum()


def forward(W, b, x):  # (2)!
    z, a = {}, {0: x}  # a^(0) = x
    for l in range(1, depth + 1):
        z[l] = W[l] @ a[l - 1] + b[l]  # (3)!
        a[l] = sigmoid(z[l]) if l < depth else softmax(z[l])  # (4)!
    return z, a


z, a = forward(W, b, x)
p = a[depth]
loss = -np.log(p[c])

print(", ".join(f"z{l}{z[l].shape} a{l}{a[l].shape}" for l in z))
print("p =", p)
print("L =", loss.round(3))
# --8<-- [end:forward]

# --8<-- [start:output_delta]
delta = {depth: p - y}  # (1)!

logits = culpa.Tensor(z[depth], requires_grad=True)  # (2)!
culpa.cross_entropy(logits, c).backward()

print("delta3 =", delta[depth])
print("logits.grad =", logits.grad)
# --8<-- [end:output_delta]

# --8<-- [start:backward]
for l in range(depth - 1, 0, -1):  # l = 2, 1
    delta[l] = (W[l + 1].T @ delta[l + 1]) * a[l] * (1 - a[l])  # (1)!

for l in sorted(delta, reverse=True):
    size = np.linalg.norm(delta[l])
    shown = np.array2string(delta[l], precision=4)
    print(f"delta{l} = {shown}  |delta{l}| = {size:.4f}")

paths = int(np.prod(sizes[2:]))  # (2)!
deep_paths_zeros = len(str(100**9)) - 1  # (3)!
print("paths =", paths)
print(f"deep_paths = 100^9 = 10^{deep_paths_zeros}")
# --8<-- [end:backward]

# --8<-- [start:slopes]
grad_W = {l: np.outer(delta[l], a[l - 1]) for l in delta}  # dL/dW = delta a^T
grad_b = {l: delta[l] for l in delta}  # (1)!

i, j = 1, 3  # (2)!
print(f"delta2[1] * a1[3] = {delta[2][i]:.7f} * {a[1][j]:.7f}")
print(f"dL/dW2[1,3]      = {grad_W[2][i, j]:.7f}")

eps = 1e-6  # (3)!
W_up = {**W, 2: W[2].copy()}
W_down = {**W, 2: W[2].copy()}
W_up[2][i, j] += eps
W_down[2][i, j] -= eps
loss_up = -np.log(forward(W_up, b, x)[1][depth][c])
loss_down = -np.log(forward(W_down, b, x)[1][depth][c])
nudged = (loss_up - loss_down) / (2 * eps)
print(f"nudged           = {nudged:.7f}")
# --8<-- [end:slopes]

# --8<-- [start:culpa]
out = net(culpa.Tensor(x))  # (1)!
loss_culpa = culpa.cross_entropy(out, c)
loss_culpa.backward()

print("isclose(loss_culpa, loss):", np.isclose(loss_culpa.item(), loss))
print("|culpa - numpy| < 1e-12:")
worst = 0.0
for l, layer in enumerate(net.layers, start=1):
    diff_W = np.abs(layer.weight.grad - grad_W[l]).max()
    diff_b = np.abs(layer.bias.grad - grad_b[l]).max()
    worst = max(worst, diff_W, diff_b)
    print(f"  l = {l}: dL/dW{layer.weight.grad.shape} {diff_W < 1e-12},"
          f" dL/db{layer.bias.grad.shape} {diff_b < 1e-12}")

print("max |culpa - numpy| < 1e-12:", worst < 1e-12)
# --8<-- [end:culpa]

# --8<-- [start:cost]
forward_madds = sum(W[l].size for l in W)  # (1)!
message_madds = sum(W[l].size for l in W if l > 1)  # (2)!
slope_madds = sum(W[l].size for l in W)  # (3)!
backward_madds = message_madds + slope_madds

print("forward_madds  =", forward_madds)
print("backward_madds =", backward_madds)
both = (forward_madds + backward_madds) / forward_madds
print("(forward_madds + backward_madds) / forward_madds =", round(both, 1))
print("N + 1 =", n_params + 1)
# --8<-- [end:cost]
