"""The site's figures: one script per figure, drawn from culpa's real computations, in pt and en.

Regenerate them all with `.venv/bin/python snippets/figures/make.py` (see make.py); the build does it too
(docs/hooks/figures.py). Shared look and number formats live in style.py.
"""
