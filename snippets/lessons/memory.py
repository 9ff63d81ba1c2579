"""Page 07, the memory bill: what a recorded graph keeps alive, the estimate
for a 64-layer model, and gradient checkpointing in culpa, measured.

The sections are shown, in this order, on docs/pt/07-memory.md and
docs/en/07-memory.md; the tests run them in one fresh interpreter and compare
what they print with what the pages show. Memory is measured by counting bytes
(exact) and with tracemalloc, rounded so that the output is deterministic.
Lines stay within 80 characters: the width of the page's code column.
"""

# --8<-- [start:kept]
import tracemalloc
import weakref
from collections import Counter

import numpy as np

import culpa

MB = 1e6


def graph_bytes(root):  # (1)!
    held = Counter()
    for node in culpa.topo_order(root):
        if node.op != "leaf":
            held[node.op] += node.data.nbytes
    return held


rng = np.random.default_rng(0)
model = culpa.nn.MLP([250] * 9 + [10], activation="tanh", rng=0)  # (2)!
X, labels = rng.normal(size=(1000, 250)), rng.integers(0, 10, size=1000)
param_bytes = sum(p.data.nbytes for p in model.parameters())

tracemalloc.start()  # (3)!
start = tracemalloc.get_traced_memory()[0]
loss = culpa.cross_entropy(model(X), labels)
after_forward = tracemalloc.get_traced_memory()[0] - start
held = graph_bytes(loss)

for op, nbytes in held.items():
    print(f"{op:>13}: {nbytes / MB:5.1f} MB")

print(f"sum(held) = {sum(held.values()) / MB:.1f} MB   "
      f"after_forward = {after_forward / MB:.0f} MB")
print(f"param_bytes = {param_bytes / MB:.1f} MB")

loss.backward()  # (4)!
after_backward = tracemalloc.get_traced_memory()[0] - start
grad_bytes = sum(p.grad.nbytes for p in model.parameters())
print(f"after_backward = {after_backward / MB:.0f} MB   "
      f"grad_bytes = {grad_bytes / MB:.0f} MB")
tracemalloc.stop()
# --8<-- [end:kept]

# --8<-- [start:timeline]
alive = []  # (1)!


def held_mb():
    return sum(ref().nbytes for ref in alive if ref() is not None) / MB


def bar():
    return f"{held_mb():3.0f} MB  " + "#" * round(held_mb() / 2)


def probe(x, layer):  # (2)!
    def backward(g):
        print(f"backward {layer}  {bar()}")
        return (g,)
    return culpa.op_result(x.data, "probe", (x,), backward)


model.zero_grad()
a = culpa.Tensor(X)
for number, layer in enumerate(model.layers[:-1], start=1):
    z = layer(a)  # z = W a + b
    a = z.tanh()  # a = tanh(z)
    alive += [weakref.ref(z.data), weakref.ref(a.data)]
    print(f"forward  {number}  {bar()}")
    a = probe(a, number)

loss = culpa.cross_entropy(model.layers[-1](a), labels)
del z, a  # (3)!
loss.backward()
print(f"held_mb() = {held_mb():.0f}")
# --8<-- [end:timeline]

# --8<-- [start:batch]
one = culpa.cross_entropy(model(X[:1]), labels[:1])  # (1)!
per_example = sum(graph_bytes(one).values())
print(f"per_example = {per_example / 1e3:.1f} kB   "
      f"param_bytes = {param_bytes / MB:.1f} MB")
print("batch   batch * per_example")
for batch in (100, 250, 1000, 4000):
    print(f"{batch:5d}   {batch * per_example / MB:8.1f} MB")

print(f"param_bytes / per_example = {param_bytes / per_example:.0f}")
# --8<-- [end:batch]

# --8<-- [start:estimate]
layers = 64
intermediate = 17_408
parameters = 27e9  # (1)!
hidden = 5_120  # (2)!
bytes_per_value = 2  # (3)!
values_per_token = layers * (hidden + 3 * intermediate)  # (4)!

GB = 1e9
activation_per_token = values_per_token * bytes_per_value
parameter_memory = parameters * bytes_per_value
crossover = parameter_memory / activation_per_token

print(f"values_per_token = {values_per_token:_}   "
      f"activation_per_token = {activation_per_token / MB:.2f} MB")
print(f"parameter_memory = {parameter_memory / GB:.0f} GB")
print("   tokens   tokens * activation_per_token")
token_counts = (1_024, 4_096, 8_192, 65_536, 1_048_576)
for tokens in token_counts:
    gb = tokens * activation_per_token / GB
    print(f"{tokens:>9_}   {gb:9_.1f} GB")

print(f"crossover = {crossover:_.0f}")
# --8<-- [end:estimate]

# --8<-- [start:checkpoint]
depth, width, batch = 32, 128, 500
X_deep = rng.normal(size=(batch, width))
labels_deep = rng.integers(0, 10, size=batch)
runs = []  # (1)!


def counted(block):
    def run(x):
        runs.append(block)
        return block(x)
    return run


def train_step(segments):  # (2)!
    deep = culpa.nn.MLP([width] * (depth + 1) + [10], activation="tanh", rng=0)
    blocks = [counted(block) for block in deep.blocks()]  # (3)!
    runs.clear()
    tracemalloc.start()
    out = culpa.checkpoint.checkpoint_sequential(  # (4)!
        blocks, segments, X_deep)
    forward_runs = len(runs)
    culpa.cross_entropy(out, labels_deep).backward()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return deep, peak / MB, forward_runs, len(runs) - forward_runs


plain = train_step(1)[0]  # (5)!
print("segments         peak  forward_runs  recomputed            same")
results = {}
for segments in (1, 2, 4, 8, 16):
    deep, peak, forward_runs, recomputed = train_step(segments)
    pairs = zip(plain.parameters(), deep.parameters(), strict=True)
    same = all(np.array_equal(p.grad, q.grad) for p, q in pairs)  # (6)!
    results[segments] = (peak, recomputed)
    print(f"{segments:8d}  {peak:8.0f} MB  {forward_runs:12d}  {recomputed:10d}"
          f"  {same!s:>14}")

best = min(results, key=lambda segments: results[segments][0])
print("best =", best)
# --8<-- [end:checkpoint]
