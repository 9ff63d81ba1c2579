"""Page 07's checked exercises (07-memory.md, "Exercícios" / "Exercises"): what a recorded graph keeps for
the backward pass, counted by culpa in bytes, and what gradient checkpointing trades, counted by culpa in
layer runs.

sitebuild/exercises.py reads EXERCISES; the page's `data-exercise="memory/NAME"` is EXERCISES[NAME].
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np

import culpa
from sitebuild.exercises import Exercise

KB = 1e3


# ---- exercise 2: k + n/k for n = 64 layers: layers kept at the best k, and layers run twice ----
LAYERS = 64


def kept_by_the_model(count_interior=True):
    """The fewest layers kept, by M(k) = k + n/k over the k that divide n (the page's model), and that k;
    count_interior=False counts only the k boundaries at the k the model picks."""
    cost = {k: k + LAYERS // k for k in range(1, LAYERS + 1) if LAYERS % k == 0}
    best_k = min(cost, key=cost.get)
    return (cost[best_k] if count_interior else best_k), best_k


@cache
def layers_run_twice(last_too=False):
    """Layer runs recomputed in backward by culpa's checkpointing, on a chain of LAYERS counted blocks (a tiny
    tanh MLP: what is counted is runs, not sizes) cut into the model's best number of segments;
    last_too=True checkpoints the last segment as well, as a reader who forgets it runs plainly."""
    segments = kept_by_the_model()[1]
    runs = []

    def counted(block):
        def run(x):
            runs.append(block)
            return block(x)
        return run

    chain = culpa.nn.MLP([2] * (LAYERS + 1), activation="tanh", rng=0)
    blocks = [counted(block) for block in chain.blocks()]
    x = culpa.Tensor(np.ones((1, 2)))
    if last_too:  # every segment through culpa.checkpoint.checkpoint, the last one too
        size = LAYERS // segments
        for start in range(0, LAYERS, size):
            part = blocks[start:start + size]
            x = culpa.checkpoint.checkpoint(
                lambda t, part=part: culpa.checkpoint.checkpoint_sequential(part, 1, t), x)
    else:
        x = culpa.checkpoint.checkpoint_sequential(blocks, segments, x)
    forward = len(runs)
    x.sum().backward()
    return len(runs) - forward


segments = Exercise(
    size=2, decimals=0, example=16,
    answer=lambda: [kept_by_the_model()[0], layers_run_twice()],
    mistakes={
        # the last segment checkpointed too: its graph is still there when backward starts
        "last-segment": lambda: [kept_by_the_model()[0], layers_run_twice(last_too=True)],
        # only the k boundaries: one segment's interior is recorded again during backward
        "boundaries-only": lambda: [kept_by_the_model(count_interior=False)[0], layers_run_twice()],
    })


# ---- exercise 3: the bytes a tanh MLP [50, 50, 50, 10]'s graph holds for a batch of 20 ----
SIZES = [50, 50, 50, 10]
BATCH = 20


@cache
def held_kb(batch=BATCH, leaves=None):
    """kB the graph behind the loss holds, as the page's graph_bytes counts them (every non-leaf's array);
    leaves="parameters" adds the parameters' arrays, leaves="all" every leaf's (the input too)."""
    model = culpa.nn.MLP(SIZES, activation="tanh", rng=0)
    X = np.zeros((batch, SIZES[0]))  # the values do not matter: only the shapes are counted
    loss = culpa.cross_entropy(model(X), np.zeros(batch, dtype=int))
    held = Counter()
    for node in culpa.topo_order(loss):
        if node.op != "leaf" or leaves == "all" or (leaves == "parameters" and node.requires_grad):
            held[node.op] += node.data.nbytes
    return sum(held.values()) / KB


graph_kb = Exercise(
    size=1, decimals=1, example=12.5,
    answer=held_kb,
    mistakes={
        "per-example": lambda: held_kb(batch=1),  # one example's activations: the batch left out
        "leaves": lambda: (held_kb(leaves="parameters"), held_kb(leaves="all")),
    })

EXERCISES = {"segments": segments, "graph-kb": graph_kb}
