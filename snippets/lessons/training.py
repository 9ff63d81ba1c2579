"""Page 09, training for real: a culpa MLP learns two moons with plain SGD.

The sections are shown, in this order, on docs/pt/09-training.md and
docs/en/09-training.md; the tests run them in one fresh interpreter and compare
what they print with what the pages show. The data, seed and hyperparameters
are those of the training figure (snippets/figures/training.py), so that the
figure shows this very run. Lines stay within 80 characters: the width of the
page's code column.
"""

# --8<-- [start:data]
import numpy as np

import culpa


def two_moons(n, noise, seed):
    """n points on two interleaved half circles: the upper moon is class 0,
    the lower moon class 1."""
    rng = np.random.default_rng(seed)
    half = n // 2
    upper = rng.uniform(0, np.pi, half)  # angles along each moon
    lower = rng.uniform(0, np.pi, n - half)
    points = np.concatenate([
        np.stack([np.cos(upper), np.sin(upper)], axis=1),  # (1)!
        np.stack([1 - np.cos(lower), 0.5 - np.sin(lower)], axis=1),
    ])
    points += rng.normal(0, noise, points.shape)  # so the moons are fuzzy
    labels = np.repeat([0, 1], [half, n - half])
    return points, labels


X, y = two_moons(200, noise=0.15, seed=0)

print("X:", X.shape, " y:", y.shape)
print("examples per class:", np.bincount(y))
print("x from", X[:, 0].min().round(1), "to", X[:, 0].max().round(1),
      "  y from", X[:, 1].min().round(1), "to", X[:, 1].max().round(1))
# --8<-- [end:data]

# --8<-- [start:model]
# 2 inputs, two hidden layers of 16, 2 logits
model = culpa.nn.MLP([2, 16, 16, 2], activation="tanh", rng=0)
n_params = sum(p.data.size for p in model.parameters())

first_loss = culpa.cross_entropy(model(X), y)  # all 200 points, untrained
first_loss.backward()

print(model, "with", n_params, "parameters")
print(f"first loss: {first_loss.item():.3f}   ln 2 = {np.log(2):.3f}")
print("parameters with a missing, non-finite or zero gradient:",
      culpa.check.find_bad_gradients(model))
# --8<-- [end:model]


# --8<-- [start:loop]
def accuracy(model, X, y):
    with culpa.no_grad():  # evaluating only: record nothing
        return (model(X).data.argmax(axis=1) == y).mean()


def train(model, lr, epochs, batch_size=20, seed=0):
    optimizer = culpa.nn.SGD(model.parameters(), lr=lr)
    shuffle = np.random.default_rng(seed)
    history = []
    for _ in range(epochs):
        order = shuffle.permutation(len(X))  # a new order every epoch
        total = 0.0
        for start in range(0, len(X), batch_size):
            batch = order[start:start + batch_size]
            optimizer.zero_grad()  # (1)!
            loss = culpa.cross_entropy(model(X[batch]), y[batch])  # (2)!
            loss.backward()  # (3)!
            optimizer.step()  # (4)!
            total += loss.item() * len(batch)
        history.append(total / len(X))  # the epoch's mean loss
    return history


model = culpa.nn.MLP([2, 16, 16, 2], activation="tanh", rng=0)  # same start
history = train(model, lr=0.1, epochs=200)

for epoch in (1, 10, 50, 100, 200):
    print(f"epoch {epoch:3d}   loss {history[epoch - 1]:.3f}")

print("accuracy on the 200 points:", accuracy(model, X, y))
# --8<-- [end:loop]

# --8<-- [start:boundary]
xs = np.linspace(-1.5, 2.5, 41)  # across the plane, 0.1 apart...
ys = np.linspace(1.5, -1.1, 14)  # ...and down, 0.2 apart, top row first
grid = np.array([(a, b) for b in ys for a in xs])
with culpa.no_grad():
    region = model(grid).data.argmax(axis=1).reshape(len(ys), len(xs))

for row in region:  # . for class 0 (upper moon), # for class 1 (lower moon)
    print("".join(".#"[c] for c in row))
# --8<-- [end:boundary]

# --8<-- [start:optimizer]
final, correct = {}, {}
for lr in (0.01, 0.1, 3.0):
    # the same start and the same batches: only the learning rate changes
    fresh = culpa.nn.MLP([2, 16, 16, 2], activation="tanh", rng=0)
    final[lr] = train(fresh, lr=lr, epochs=200)[-1]
    correct[lr] = accuracy(fresh, X, y)
    print(f"lr = {lr:<5}  loss after 200 epochs {final[lr]:7.3f}   "
          f"accuracy {correct[lr]:.3f}")
# --8<-- [end:optimizer]
