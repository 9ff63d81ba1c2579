"""The site's build: one MkDocs plugin (plugin.py lists every step in the order it runs), its steps (steps/),
the figures and explorers it draws and exports, and the facts they share (project.py, numbers.py,
strings/). `pip install -e .` makes it importable; mkdocs.yml names it as the plugin `sitebuild`."""
