import os

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
# The suite's builds are local copies served on 127.0.0.1, never published (sitebuild/steps/wheel.py).
os.environ.setdefault("CULPA_LOCAL_BUILD", "1")
# One BLAS thread in the suite and in everything it starts (builds, page runs, kernels), as in a reader's
# page (Pyodide has no threads) and in the timed figures: the suite keeps both cores busy with its own
# processes, and OpenBLAS's extra threads spin waiting for a core (page 07's code in a fresh interpreter:
# 11 s of wall time with one thread, 53 s with two, while a browser test ran beside it). Set before
# anything imports numpy (nothing has when pytest loads this file): support/environment.py names them.
from support.environment import BLAS_THREADS  # noqa: E402

for _threads in BLAS_THREADS:
    os.environ.setdefault(_threads, "1")

# .ci/run's oracle step sets CULPA_REQUIRE_TORCH=1: there the torch tests must run, not skip, so a torch
# that cannot be imported stops the whole run instead of skipping them.
if os.environ.get("CULPA_REQUIRE_TORCH") == "1":
    try:
        import torch  # noqa: F401
    except ImportError as missing:
        raise ImportError(
            "CULPA_REQUIRE_TORCH=1: the torch oracle's tests must run here; pip install torch==2.13.0"
        ) from missing

# Session fixtures shared by every test folder (built_site: the site built once, strictly; rebuilds: a copy
# of the project built again after edits, for the tests of the caches and of the figures' determinism), and
# the check that no test wrote into docs/ (it fails the run, naming the files).
pytest_plugins = ["support.site", "support.rebuilds", "support.docs_untouched"]


def pytest_collection_modifyitems(config, items):
    """Every test under tests/browser/ is in the `browser` lane (pyproject.toml registers the markers), and
    runs after the others: what a browser test module starts early (below) runs while they do."""
    import pytest

    from support.background import declares_sessions

    for item in items:
        if "browser" in item.path.relative_to(config.rootpath).parts[:2]:
            item.add_marker(pytest.mark.browser)
    # stable: the order is kept within each group; the modules whose sessions run in the background
    # (support/background.py) last, so that the tests before them run while their sessions do
    items.sort(key=lambda item: (item.get_closest_marker("browser") is not None,
                                 declares_sessions(getattr(item, "module", None))))


def pytest_collection_finish(session):
    """A test module may define start_early(session): it is called once, after collection, if one of its
    tests was selected. tests/browser/test_run_in_page.py starts its minutes of Python in the browser, and
    tests/browser/test_pages_in_browser.py its visits of every page, each in a thread of its own. Then the
    sessions that modules declared with support.background.session_fixture start, in one thread."""
    started = set()
    for item in session.items:
        module = getattr(item, "module", None)
        start = getattr(module, "start_early", None)
        if start is not None and module not in started:
            started.add(module)
            start(session)
    # then the browser sessions that run in the background, after those (support/background.py)
    from support import background

    background.start(session)


def pytest_addoption(parser):
    parser.addoption(
        "--fuzz-cases", type=int, default=300, metavar="N",
        help="how many random graphs tests/engine/test_engine_fuzz.py compares with torch (default 300)",
    )
