"""The site's figures: one script per figure, drawn from culpa's real computations, in pt and en.

Every module here is a figure (see sitebuild/make_figures.py for what a script defines); the shared look and
number formats are sitebuild/style.py, a page's lesson code is run by sitebuild/lessons.py. The build draws
them (sitebuild/steps/figures.py); `.venv/bin/python -m sitebuild.make_figures` does it outside a build.
"""
