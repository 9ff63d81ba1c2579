"""The environment the suite runs in: what tests/conftest.py sets before anything imports numpy."""

import os

from culpa.benchmark import PINNED_ENV
from support.environment import BLAS_THREADS


def test_the_suite_pins_every_thread_variable_culpas_benchmark_pins():
    pinned = {name for name in PINNED_ENV if name.endswith("_NUM_THREADS")}
    assert pinned and set(BLAS_THREADS) == pinned, (
        f"tests/conftest.py pins {sorted(BLAS_THREADS)}, culpa.benchmark.PINNED_ENV "
        f"{sorted(pinned)}")
    unset = [name for name in pinned if name not in os.environ]
    assert not unset, f"the suite runs with {unset} unset: its math library may start a thread per core"
