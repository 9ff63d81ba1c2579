"""Recording on or off: `no_grad` and `set_grad_enabled`, as in torch, one switch per thread.

`op_result` reads `switch.enabled` before it records an op. The switch is a `threading.local`, so a
thread that evaluates a model under `no_grad()` does not stop another thread from training.
"""

import functools
import inspect
import threading


class Switch(threading.local):
    enabled = True  # what every thread starts with


switch = Switch()  # `switch.enabled`: recording on or off in this thread (op_result reads it)


def is_grad_enabled():
    return switch.enabled


class set_grad_enabled:
    """Recording on or off, three ways (as in torch).

    `set_grad_enabled(False)` called alone switches recording off until `set_grad_enabled(True)`;
    `with set_grad_enabled(False):` switches it for the block and restores it after; used as a decorator,
    for every call of the function (a generator function: while its body runs, between its yields).
    """

    def __init__(self, mode):
        self.mode = bool(mode)
        self._saved = [switch.enabled]  # what the `with` that usually follows will restore
        self._pending = True  # the call itself switched the mode (a plain call keeps it so)
        switch.enabled = self.mode

    def __enter__(self):
        if self._pending:  # `with set_grad_enabled(m):` right after the call: already switched
            self._pending = False
        else:  # a reused instance (a nested `with`): save what is there now
            self._saved.append(switch.enabled)
            switch.enabled = self.mode

    def __exit__(self, *exc):
        switch.enabled = self._saved.pop()

    def __call__(self, function):
        if self._pending:  # decorating switches nothing: undo what the call did
            self._pending = False
            switch.enabled = self._saved.pop()
        return switched(function, self.mode)


class no_grad(set_grad_enabled):
    """Within `with culpa.no_grad():` ops record nothing: results are plain constants (for updates, eval).

    As a decorator it works with or without parentheses: `@culpa.no_grad()` and `@culpa.no_grad`.
    """

    def __new__(cls, function=None):
        if function is None:
            return super().__new__(cls)
        return switched(function, False)  # `@no_grad` without parentheses: Python passed the function

    def __init__(self, function=None):  # unlike set_grad_enabled(False), creating it switches nothing yet
        self.mode, self._saved, self._pending = False, [], False


def switched(function, mode):
    """`function` running with recording set to `mode`, restored afterwards (per call, per thread)."""
    if inspect.isgeneratorfunction(function):
        @functools.wraps(function)
        def generator(*args, **kwargs):
            inner, reply = function(*args, **kwargs), None
            while True:  # the mode holds while the body runs, and the caller's mode while it is paused
                try:
                    with _mode(mode):
                        item = inner.send(reply)
                except StopIteration as finished:
                    return finished.value
                reply = yield item

        return generator

    @functools.wraps(function)
    def call(*args, **kwargs):
        with _mode(mode):
            return function(*args, **kwargs)

    return call


class _mode:
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.previous, switch.enabled = switch.enabled, self.mode

    def __exit__(self, *exc):
        switch.enabled = self.previous
