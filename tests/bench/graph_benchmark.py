"""What the graph of a reader's own code costs (#26 §2): a report, not a timed test.

    PYTHONPATH=tests .venv/bin/python tests/bench/graph_benchmark.py [--runs 3] [--site DIR] [--no-browser]

1. In CPython, what recording costs a reader's code while the page records it (culpa.graph.Recorder, on
   only around a run in the page): a training step of a small MLP written as a page writes it, run under the
   recorder and plainly, interleaved (medians of per-round ratios). What it costs the engine when nothing
   records is measured by tests/bench/engine_ab.py, main's culpa against this one (tests/bench/README.md).
2. In CPython, code_graph.answer for graphs of about 25, 100 and 400 nodes (the last is grouped).
3. In Chromium (Debian's), on page 03 with the site built (or --site, a built site): a block the benchmark
   writes makes a graph of 100 nodes; Run, then "Show the graph": from the press to the graph drawn (the
   page's Python already loaded; its first graph installs the drawing's Python files), then the same
   again warm, with the CPU slowed 4x and at the machine's own speed. The issue's budget: a 100-node graph
   drawn within 150 ms once Python is loaded.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import culpa
from sitebuild.explorers import code_graph
from support.site import build_site  # PYTHONPATH=tests: the suite's helper, as pytest finds it

RATES = (4, 1)  # CPU slowdowns to measure the drawing at
STEP = """\
import numpy as np
import culpa
rng = np.random.default_rng(0)
model = culpa.nn.MLP([2, 16, 16, 2], rng=0)
optimizer = culpa.nn.SGD(model.parameters(), lr=0.1)
x, y = rng.standard_normal((32, 2)), rng.integers(0, 2, 32)
for step in range(STEPS):
    loss = culpa.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


def chain(nodes: int) -> str:
    """Reader's code whose loss has about `nodes` nodes: a knob through a chain of ops, reused."""
    links = max(1, (nodes - 3) // 4)
    return ("import culpa\nknob = culpa.Tensor([0.5, -0.25], requires_grad=True)\nh = knob\n"
            f"for _ in range({links}):\n    h = (h * 0.9).tanh() + knob\nloss = (h * h).sum()\n")


def recording_cost(rounds: int = 15, steps: int = 40) -> float:
    code = STEP.replace("STEPS", str(steps))
    compiled = compile(code, "<block 1>", "exec")
    plain, recorded = [], []
    for _ in range(rounds):
        started = time.process_time()
        exec(compiled, {"__name__": "__main__"})
        plain.append(time.process_time() - started)
        recorder = culpa.graph.Recorder()
        started = time.process_time()
        with recorder.recording("<block 1>", code):
            exec(compiled, {"__name__": "__main__"})
        recorded.append(time.process_time() - started)
    ratios = [r / p for r, p in zip(recorded, plain, strict=True)]
    step = lambda times: f"{statistics.median(times) / steps * 1e6:.0f} µs"  # noqa: E731
    print(f"recording a training step (MLP 2-16-16-2, batch 32, {steps} steps a round, {rounds} rounds): "
          f"plain {step(plain)} a step, recorded {step(recorded)}; "
          f"recorded / plain {statistics.median(ratios):.2f}")
    return statistics.median(ratios)


def answer_cost(nodes: int, repeats: int = 15) -> None:
    code = chain(nodes)
    recorder, namespace = culpa.graph.Recorder(), {"__name__": "__main__"}
    with recorder.recording("<block 1>", code):
        exec(compile(code, "<block 1>", "exec"), namespace)
    recorder.keep("<block 1>", code, namespace)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        text = code_graph.answer(recorder, "<block 1>", "loss", "pt")
        times.append(time.perf_counter() - started)
    size = len(culpa.topo_order(namespace["loss"]))
    grouped = " (grouped)" if size > code_graph.LIMIT else ""
    print(f"code_graph.answer, {size} nodes{grouped}: {statistics.median(times) * 1e3:.1f} ms median of "
          f"{repeats} (CPython), {len(text) / 1024:.0f} KB of JSON")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def visit(browser, url: str, rate: int, code: str) -> tuple[list, list, list]:
    """One fresh context: the block written and run, then its graph shown and asked again; the measures
    graph.js records (from the press to the graph drawn, and the drawing alone), in ms."""
    first, warm, drawn = [], [], []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url, wait_until="load")
    page.wait_for_function("() => document.querySelector('[data-run-block=\"0\"] code').isContentEditable",
                           timeout=60_000)
    page.locator('[data-run-block="0"] code').click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    page.locator('[data-run-bar="0"] [data-run="run"]').click()
    page.wait_for_function("() => ['ok', 'error'].includes(document.querySelector("
                           "'[data-run-output=\"0\"]').dataset.state)", timeout=300_000)
    if rate > 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
    box = page.locator(".run-graph")

    def shown(action, into):
        page.evaluate("() => performance.clearMeasures()")
        box.evaluate("(b) => delete b.dataset.graphState")
        action()
        page.wait_for_function("() => document.querySelector('.run-graph').dataset.graphState === 'ready'",
                               timeout=300_000)
        measured = page.evaluate("() => performance.getEntriesByType('measure')"
                                 ".map((e) => [e.name, e.duration])")
        into.extend(d for name, d in measured if name.startswith("graph: "))
        drawn.extend(d for name, d in measured if name.startswith("graph drawn: "))

    shown(lambda: page.locator(".run-graph > .run-button").click(), first)
    for _ in range(3):  # another tensor of the block, then the loss again: culpa is asked each time
        shown(lambda: page.select_option(".cg-pick select", "h"), [])
        shown(lambda: page.select_option(".cg-pick select", "loss"), warm)
    context.close()
    return first, warm, drawn


def in_browser(site: Path, runs: int) -> None:
    from playwright.sync_api import sync_playwright

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/03-worked-example/"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for rate in RATES:
            first, warm, drawn = [], [], []
            for _ in range(runs):
                times = visit(browser, url, rate, chain(100))
                for into, measured in zip((first, warm, drawn), times, strict=True):
                    into.extend(measured)
            ms = lambda values: f"{statistics.median(values):.0f} ms (worst {max(values):.0f})"  # noqa: E731
            print(f"Chromium, CPU {rate}x, a 99-node graph ({runs} runs): first show {ms(first)}, "
                  f"warm {ms(warm)}; the drawing alone {ms(drawn)}")
        browser.close()
    server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--site", type=Path, help="a built site to serve (else the site is built)")
    parser.add_argument("--no-browser", action="store_true")
    options = parser.parse_args()
    recording_cost()
    for nodes in (25, 100, 400):
        answer_cost(nodes)
    if options.no_browser:
        return
    site = options.site
    if site is None:
        site = Path(tempfile.mkdtemp(prefix="graph-bench-"))
        proc = build_site(site)
        if proc.returncode != 0:
            sys.exit(proc.stdout[-2000:] + proc.stderr[-2000:])
    in_browser(site, options.runs)


if __name__ == "__main__":
    main()
