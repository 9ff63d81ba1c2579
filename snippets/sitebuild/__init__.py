"""The site's build: one MkDocs plugin (plugin.py lists every step in the order it runs), its steps (steps/),
the figures and explorers it draws and exports, and the facts they share (project.py, numbers.py,
strings/). `pip install -e .` makes it importable; mkdocs.yml names it as the plugin `sitebuild`."""

import os
from pathlib import Path

# matplotlib keeps one font list per configuration folder (~/.config/matplotlib and ~/.cache/matplotlib by
# default), shared by every Python install of the user: a list written by another venv, since deleted, makes
# it fall back to DejaVu Sans with a "findfont: Font family ... not found" line per font, which the labs'
# kernels printed into the published pages. The build (its process, the labs' kernels and the figures'
# fresh processes inherit this) keeps its own, under this project's .cache/, unless the reader chose one.
os.environ.setdefault("MPLCONFIGDIR", str(Path(__file__).resolve().parents[2] / ".cache" / "matplotlib"))
