"""The engine's internal API: what the parts around the core (check, checkpoint, graph, the site's
explorers and figures) use to watch, rerun and read a graph, by name instead of by underscored attribute.

Not needed to use culpa; everything here may change with the engine.
"""

import contextlib

from culpa import tensor
from culpa.guarantees import is_released, non_finite_raises
from culpa.tensor import backpropagate, constant

__all__ = ["recording", "substituted_data", "is_released", "non_finite_raises", "backpropagate", "constant"]


@contextlib.contextmanager
def recording(callback):
    """Within the block, `callback(t)` for every tensor made: each result an op records, each leaf."""
    tensor.watchers.append(callback)
    try:
        yield
    finally:
        tensor.watchers.remove(callback)


@contextlib.contextmanager
def substituted_data(t, array):
    """`t` holds `array` within the block; its own array and version come back after it, so no graph that
    used `t` is marked stale (for checks that nudge inputs and put them back)."""
    own, version = t.data, t.version
    t.data = array
    try:
        yield array
    finally:
        t.data, t.version = own, version
