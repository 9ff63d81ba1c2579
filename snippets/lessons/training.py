"""Page 09, training for real: a culpa MLP learns the two-moons data set with plain SGD.

The sections are shown, in this order, on docs/pt/09-training.md and docs/en/09-training.md;
the tests run them in one fresh interpreter and compare what they print with what the pages show.
"""

# --8<-- [start:data]
import numpy as np

import culpa


def two_moons(n, noise, rng):
    """n points on two interleaved half circles, label 0 (upper moon) or 1 (lower moon), plus noise."""
    angle = rng.uniform(0, np.pi, n)
    upper = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    lower = np.stack([1 - np.cos(angle), 0.5 - np.sin(angle)], axis=1)
    labels = rng.integers(0, 2, n)
    points = np.where(labels[:, None] == 0, upper, lower) + rng.normal(0, noise, (n, 2))
    return points, labels


X, y = two_moons(200, noise=0.15, rng=np.random.default_rng(0))
X = (X - X.mean(axis=0)) / X.std(axis=0)  # (1)!

print("X:", X.shape, " y:", y.shape)
print("examples per class:", np.bincount(y))
# --8<-- [end:data]

# --8<-- [start:model]
model = culpa.nn.MLP([2, 16, 16, 2], activation="tanh", rng=1)  # 2 inputs, two hidden layers, 2 logits
n_params = sum(p.data.size for p in model.parameters())

first_loss = culpa.cross_entropy(model(X), y)  # the whole data set, before any training
first_loss.backward()

print(model, "with", n_params, "parameters")
print("first loss:", round(first_loss.item(), 3), "  ln 2 =", round(np.log(2), 3))
print("every parameter has a finite, non-zero gradient:",
      all(p.grad is not None and np.isfinite(p.grad).all() and (p.grad != 0).any()
          for p in model.parameters()))
# --8<-- [end:model]


# --8<-- [start:loop]
def accuracy(model, X, y):
    with culpa.no_grad():  # evaluating only: record nothing
        return (model(X).data.argmax(axis=1) == y).mean()


def train(model, lr, epochs, batch_size=40, seed=2):
    optimizer = culpa.nn.SGD(model.parameters(), lr=lr)
    shuffle = np.random.default_rng(seed)
    history = []
    for _ in range(epochs):
        order = shuffle.permutation(len(X))  # a new order of the examples every epoch
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


model = culpa.nn.MLP([2, 16, 16, 2], activation="tanh", rng=1)  # the same start as above
history = train(model, lr=0.3, epochs=200)

for epoch in (1, 10, 50, 100, 200):
    print(f"epoch {epoch:3d}   loss {history[epoch - 1]:.3f}")
print("accuracy on the 200 points:", accuracy(model, X, y))
# --8<-- [end:loop]

# --8<-- [start:boundary]
xs = np.linspace(-2.2, 2.2, 45)  # a grid over the standardized plane
ys = np.linspace(1.8, -1.8, 15)  # top row first, as the screen prints it
grid = np.array([(a, b) for b in ys for a in xs])
with culpa.no_grad():
    region = model(grid).data.argmax(axis=1).reshape(len(ys), len(xs))

for row in region:
    print("".join(".#"[c] for c in row))  # . = class 0 (upper moon), # = class 1 (lower moon)
# --8<-- [end:boundary]

# --8<-- [start:optimizer]
final = {}
for lr in (0.01, 0.3, 10.0):
    fresh = culpa.nn.MLP([2, 16, 16, 2], activation="tanh", rng=1)  # same start, same batches
    final[lr] = train(fresh, lr=lr, epochs=200)[-1]
    print(f"lr = {lr:<5}  loss after 200 epochs {final[lr]:7.3f}   accuracy {accuracy(fresh, X, y):.3f}")
# --8<-- [end:optimizer]
