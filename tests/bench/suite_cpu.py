"""Where the suite's minutes go, in processor time: the whole machine's, per test module.

    python tests/bench/suite_cpu.py [pytest arguments]      e.g.  tests/bench/suite_cpu.py -m "not slow"

runs pytest with a plugin that reads the machine's busy time (/proc/stat: every process, Chromium's and the
notebooks' kernels included, which the test process's own clock does not see) when each test starts and ends.
It prints, per module: the wall time of its tests (setup, call and teardown, so a module fixture's work
counts where it runs), the processor seconds the machine spent meanwhile, and how busy that kept the
cores. A module whose cores sit idle waits (timeouts, a browser's timer); one that keeps them busy computes,
and only less work makes it shorter. Work that a module starts in a thread of its own (tests/conftest.py's
start_early) is charged to whatever runs beside it: to see it apart, run that module alone. Run it on a quiet
machine; the total line is the suite's whole run.

A timeline follows: when each module's first test started, and when the sessions that run in threads of
their own (the early ones, support.site.EARLY_WORK, and the background ones, support.background.STARTED)
ended, each with the seconds since the run began and the machine's busy seconds by then.
"""

from __future__ import annotations

import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

TICKS = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def busy_seconds() -> float:
    """Processor seconds the whole machine has spent busy since boot (all but idle and iowait)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / TICKS


class SuiteCpu:
    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.count: dict[str, int] = defaultdict(int)
        self.start = (time.perf_counter(), busy_seconds())
        self.timeline: list[tuple[float, float, str]] = []
        self.last_module = ""

    def mark(self, what: str) -> None:
        self.timeline.append((time.perf_counter() - self.start[0], busy_seconds() - self.start[1], what))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session):
        """After tests/conftest.py started the sessions that run in threads: note when each one ends."""
        try:
            from support import background, site
        except ImportError:  # a run outside this project's tests
            return
        for k, future in enumerate(site.EARLY_WORK):
            future.add_done_callback(lambda _, k=k: self.mark(f"early session {k + 1} ended"))
        for (module, work), future in background.STARTED.items():
            future.add_done_callback(lambda _, m=module, w=work: self.mark(f"background {m}.{w} ended"))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        module = item.nodeid.split("::", 1)[0]
        if module != self.last_module:
            self.last_module = module
            self.mark(module)
        wall, cpu = time.perf_counter(), busy_seconds()
        yield
        self.wall[module] += time.perf_counter() - wall
        self.cpu[module] += busy_seconds() - cpu
        self.count[module] += 1

    def pytest_terminal_summary(self, terminalreporter):
        write = terminalreporter.write_line
        wall, cpu = time.perf_counter() - self.start[0], busy_seconds() - self.start[1]
        terminalreporter.section(f"processor time per module ({CORES} cores; busy = cpu / (wall x cores))")
        write(f"{'wall s':>8} {'cpu s':>8} {'busy':>5} {'tests':>6}  module")
        for module in sorted(self.cpu, key=self.cpu.get, reverse=True):
            w, c = self.wall[module], self.cpu[module]
            write(f"{w:8.1f} {c:8.1f} {c / max(w * CORES, 1e-9):5.0%} {self.count[module]:6d}  {module}")
        write(f"{wall:8.1f} {cpu:8.1f} {cpu / max(wall * CORES, 1e-9):5.0%} {sum(self.count.values()):6d}"
              "  the whole run")
        terminalreporter.section("timeline (s since the start; busy: the processor seconds spent by then)")
        write(f"{'s':>8} {'busy':>8}  what began or ended")
        for at, busy, what in sorted(self.timeline):
            write(f"{at:8.1f} {busy:8.1f}  {what}")


if __name__ == "__main__":
    sys.exit(pytest.main(sys.argv[1:], plugins=[SuiteCpu()]))
