"""Page 09, training for real: a culpa MLP learns two moons with plain SGD.

The sections are shown, in this order, on docs/pt/09-training.md and
docs/en/09-training.md; the tests run them in one fresh interpreter and compare
what they print with what the pages show. The data, seed and hyperparameters
are those of the training figure (sitebuild/figures/training.py), so that the
figure shows this very run. Lines stay within 80 characters: the width of the
page's code column.
"""

# --8<-- [start:data]
import numpy as np

import culpa


def two_moons(n, noise, seed):  # (1)!
    rng = np.random.default_rng(seed)
    half = n // 2
    upper = rng.uniform(0, np.pi, half)
    lower = rng.uniform(0, np.pi, n - half)
    points = np.concatenate([
        np.stack([np.cos(upper), np.sin(upper)], axis=1),  # (2)!
        np.stack([1 - np.cos(lower), 0.5 - np.sin(lower)], axis=1),
    ])
    points += rng.normal(0, noise, points.shape)  # (3)!
    labels = np.repeat([0, 1], [half, n - half])
    return points, labels


X, y = two_moons(200, noise=0.15, seed=0)

print("X.shape =", X.shape, "  y.shape =", y.shape)
print("np.bincount(y):", np.bincount(y))
print("X.min(axis=0) =", X.min(axis=0).round(1),
      "  X.max(axis=0) =", X.max(axis=0).round(1))
# --8<-- [end:data]

# --8<-- [start:model]
model = culpa.nn.MLP([2, 16, 16, 2], activation="tanh", rng=0)  # (1)!
n_params = sum(p.data.size for p in model.parameters())

first_loss = culpa.cross_entropy(model(X), y)  # (2)!
first_loss.backward()

print(model, "  N =", n_params)
print(f"L = {first_loss.item():.3f}   ln 2 = {np.log(2):.3f}")
print("find_bad_gradients:", culpa.check.find_bad_gradients(model))
# --8<-- [end:model]


# --8<-- [start:loop]
def accuracy(model, X, y):
    with culpa.no_grad():  # (1)!
        return (model(X).data.argmax(axis=1) == y).mean()


def train(model, lr, epochs, batch_size=20, seed=0):
    optimizer = culpa.nn.SGD(model.parameters(), lr=lr)
    shuffle = np.random.default_rng(seed)
    history = []
    for _ in range(epochs):
        order = shuffle.permutation(len(X))  # (2)!
        total = 0.0
        for start in range(0, len(X), batch_size):
            batch = order[start:start + batch_size]
            optimizer.zero_grad()  # (3)!
            loss = culpa.cross_entropy(model(X[batch]), y[batch])  # (4)!
            loss.backward()  # (5)!
            optimizer.step()  # (6)!
            total += loss.item() * len(batch)
        history.append(total / len(X))  # (7)!
    return history


model = culpa.nn.MLP([2, 16, 16, 2], activation="tanh", rng=0)  # (8)!
history = train(model, lr=0.1, epochs=200)

print("epoch   history[epoch - 1]")
for epoch in (1, 10, 30, 50, 100, 200):
    print(f"{epoch:5d}   {history[epoch - 1]:.3f}")

print("accuracy(model, X, y) =", accuracy(model, X, y))
# --8<-- [end:loop]

# --8<-- [start:boundary]
xs = np.linspace(-1.5, 2.5, 41)  # (1)!
ys = np.linspace(1.5, -1.1, 14)
grid = np.array([(a, b) for b in ys for a in xs])
with culpa.no_grad():
    region = model(grid).data.argmax(axis=1).reshape(len(ys), len(xs))

for row in region:  # (2)!
    print("".join(".#"[c] for c in row))
# --8<-- [end:boundary]

# --8<-- [start:optimizer]
print("lr      epoch 1   lowest   correct")
first, lowest, correct = {}, {}, {}
for lr in (0.01, 0.1, 3.0):
    fresh = culpa.nn.MLP([2, 16, 16, 2], activation="tanh", rng=0)  # (1)!
    losses = train(fresh, lr=lr, epochs=200)
    first[lr], lowest[lr] = losses[0], min(losses)  # (2)!
    correct[lr] = accuracy(fresh, X, y)
    print(f"{lr:<5} {first[lr]:9.3f} {lowest[lr]:8.3f} {correct[lr]:9.3f}")
# --8<-- [end:optimizer]
