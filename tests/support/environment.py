"""The suite's environment, set by tests/conftest.py before anything imports numpy (so nothing here may)."""

# the thread variables of culpa.benchmark.PINNED_ENV, which imports numpy (tests/test_suite_environment.py)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
