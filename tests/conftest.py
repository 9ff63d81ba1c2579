import os
import sys
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
sys.path.insert(0, str(Path(__file__).parent))

# Session fixtures shared by every test folder (built_site: the site built once, strictly).
pytest_plugins = ["support.site"]


def pytest_addoption(parser):
    parser.addoption(
        "--fuzz-cases", type=int, default=300, metavar="N",
        help="how many random graphs tests/engine/test_engine_fuzz.py compares with torch (default 300)",
    )
