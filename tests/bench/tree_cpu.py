"""The processor time of one command and everything it starts, on a machine other work shares.

    python tests/bench/tree_cpu.py COMMAND [ARGS...]
    e.g.  python tests/bench/tree_cpu.py .venv/bin/python -m pytest tests/browser/test_explorers.py

runs COMMAND and, every 0.2 s, reads /proc for the command's process and all its descendants (Chromium's
browser, renderers and GPU process, the notebooks' kernels) and keeps each one's last user + system time.
At the end it prints the wall time and the sum over every process seen. Unlike suite_cpu.py (the whole
machine's busy time), other work on the machine does not count, so two versions can be compared side by
side while helpers run; a process that lives less than 0.2 s is missed, and one's last 0.2 s before it
exits too, so the sum is a slight underestimate, alike for both versions.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def processes() -> dict[int, tuple[int, int, int]]:
    """pid -> (parent pid, user + system ticks of its own, start time): every process readable now."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it ended meanwhile
        found[int(name)] = (int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[19]))
    return found


def main(command: list[str]) -> int:
    started = time.perf_counter()
    proc = subprocess.Popen(command)
    members = {proc.pid}
    last: dict[tuple[int, int], int] = {}  # (pid, start time) -> its own ticks when last seen
    while proc.poll() is None:
        now = processes()
        grew = True
        while grew:  # the command's descendants, to any depth
            grew = False
            for pid, (parent, _, _) in now.items():
                if pid not in members and parent in members:
                    members.add(pid)
                    grew = True
        for pid in members & now.keys():
            _, ticks, start = now[pid]
            last[(pid, start)] = ticks
        time.sleep(0.2)
    wall = time.perf_counter() - started
    cpu = sum(last.values()) / TICKS
    print(f"\n[tree_cpu] wall {wall:.1f} s, processor {cpu:.1f} s over {len(last)} processes, "
          f"exit {proc.returncode}", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
