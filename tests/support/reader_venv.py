"""A reader's machine, as far as a test can make one: a fresh virtual environment where culpa is missing.

`reader_venv(where)` makes it; with `borrow=True` it borrows Jupyter, numpy and matplotlib from the test
environment's site-packages through a plain path entry, which does not run the editable install's hook,
so culpa stays missing until a notebook's first cell (or a pip command) installs it from the served site.
`run_notebook(python, notebook, work)` executes a notebook top to bottom with that Python, in `work`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["MPLBACKEND"] = "Agg"
    return env


def reader_venv(where: Path, borrow: bool = False) -> Path:
    """A fresh venv at `where`, its python returned; culpa is not importable in it (checked)."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=300)
    python = where / "bin" / "python"
    if borrow:
        site_packages = next((where / "lib").glob("python*/site-packages"))
        borrowed = sysconfig.get_paths()["purelib"]
        (site_packages / "borrowed.pth").write_text(borrowed + "\n", encoding="utf-8")
    before = subprocess.run([str(python), "-I", "-c", "import culpa"], capture_output=True, text=True,
                            env=clean_env())
    assert before.returncode != 0 and "No module named 'culpa'" in before.stderr, (
        f"culpa is importable in the fresh venv {where} before anything installed it"
    )
    return python


def culpa_location(python: Path, work: Path) -> str:
    where = subprocess.run([str(python), "-I", "-c", "import culpa; print(culpa.__file__)"],
                           cwd=work, capture_output=True, text=True, env=clean_env())
    return where.stdout.strip() or where.stderr.strip()


# Run by the reader's Python: the notebook top to bottom in the current folder; what failed (the cell and
# the error, without terminal colours) and the first code cell's source go to the JSON file named.
NOTEBOOK_RUNNER = r"""
import json, os, re, sys, tempfile
import nbformat
from nbclient import NotebookClient
from traitlets.config import Config
nb = nbformat.read(sys.argv[1], as_version=4)
current, seen = {}, {}
config = Config()
if os.name != "nt":  # Unix sockets, as the build's kernels (sitebuild.steps.notebooks.kernel_sockets: why)
    config.KernelManager.transport = "ipc"
    sockets = tempfile.TemporaryDirectory(prefix="reader-kernel-")  # removed when this runner exits
    config.KernelManager.ip = os.path.join(sockets.name, "kernel")
client = NotebookClient(nb, config=config, kernel_name="python3", timeout=600, allow_errors=False,
                        resources={"metadata": {"path": "."}},
                        on_cell_start=lambda cell, cell_index: current.update(index=cell_index),
                        on_notebook_start=lambda notebook: seen.update(transport=client.km.transport))
failure = None
try:
    client.execute()
except Exception as error:
    details = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", str(error))
    failure = f"cell {current.get('index')}: {type(error).__name__}: {details}"
first = next(c.source for c in nb.cells if c.cell_type == "code")
json.dump({"failure": failure, "first_code_cell": first, "transport": seen.get("transport")},
          open(sys.argv[2], "w", encoding="utf-8"))
"""


def run_notebook_command(python: Path, notebook: Path, result: Path) -> list[str]:
    """The command that runs `notebook` with the reader's `python` (NOTEBOOK_RUNNER), verdict to `result`."""
    return [str(python), "-c", NOTEBOOK_RUNNER, str(notebook), str(result)]


def notebook_env() -> dict:
    """The kernel's environment: a reader's, with matplotlib's inline backend (no MPLBACKEND)."""
    env = clean_env()
    env.pop("MPLBACKEND")
    return env


def read_verdict(result: Path, proc_stderr: str) -> dict:
    if not result.is_file():
        return {"failure": f"the notebook runner stopped before writing its verdict:\n{proc_stderr[-3000:]}",
                "first_code_cell": ""}
    verdict = json.loads(result.read_text(encoding="utf-8"))
    if verdict["failure"] and proc_stderr.strip():  # the kernel's stderr is the runner's: why it died, say
        verdict["failure"] += f"\n--- the runner's and its kernel's stderr ---\n{proc_stderr.strip()[-3000:]}"
    return verdict
