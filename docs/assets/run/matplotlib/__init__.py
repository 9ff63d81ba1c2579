"""This page's stand-in for matplotlib: pyplot only, and only what the labs' figures use (see pyplot.py).

assets/run/worker.js writes this folder into the page's Python the first time a block names matplotlib;
anything else asked of the package says that the stand-in does not draw it, naming it.
"""

from . import pyplot

__version__ = "0+stand-in"


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise pyplot.NotInThisPage(pyplot.LIMIT.format(call=f"matplotlib.{name}"))
