"""What the reader's numbers cost in each explorer (worked-example on page 03, blame on 04, nudge on 08): a
report, not a timed test.

    PYTHONPATH=tests .venv/bin/python tests/bench/reader_numbers_benchmark.py [--runs 3] [--site DIR]
        [--explorer NAME ...]

Builds the site once (into a temporary folder; or serves --site, a built site), serves it, and opens each
explorer's page in Debian's chromium with the CPU slowed down 4× (Lighthouse's mobile preset) and at the
machine's own speed.
For each it prints, over --runs fresh browser contexts (the worst run, and the median):
- cold: from pressing Compute to the explorer redrawn with culpa's answer, when Python is not loaded yet (the
  worker starts Pyodide, numpy, culpa's wheel and the exporters), and how soon the page said it was loading;
  measured twice: with the fields filled at once and Compute pressed at once (the worst case: Python starts
  at the first keystroke, assets/explorers/start.js), and with the numbers typed at --pace ms a key, a
  reader's pace (Ctrl+A, the number, Tab to the next field, Enter), from Enter and from the first key;
- warm: the same for 10 more inputs once Python is there: Compute to redrawn (the "reader's numbers" measure
  that assets/explorers/start.js's reader records), and the redraw alone.
The issue's budgets: progress shown at once, the cold answer within 4 s, a warm recompute and redraw within
100 ms at 4× (#26).
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

from calibration import cpu_slowdown, slowdown  # tests/bench/, beside this script

from support.site import build_site  # PYTHONPATH=tests: the suite's helper, as pytest finds it

EXPLORERS = {  # name -> (its page, 11 inputs as typed: the first cold, 10 warm)
    "worked-example": ("03-worked-example/", [
        ("0.5", "2.5", "-1"), ("-5", "10", "0.5"), ("3", "3", "3"), ("1.25", "-0.75", "2"), ("8", "-8", "0"),
        ("0.1", "0.2", "0.3"), ("-2", "-1", "-3"), ("4.5", "1", "-6"), ("0", "0", "1"), ("2", "1", "0.1"),
        ("6", "5", "4")]),
    "blame": ("04-through-a-network/", [
        ("1", "-1", "0.5", "2"), ("3", "0", "-2", "1"), ("-4", "4", "0", "0"), ("0.1", "0.2", "0.3", "0.4"),
        ("9", "-9", "9", "-9"), ("0", "0", "0", "0"), ("2", "2", "-2", "-2"), ("0.5", "-1.2", "0.8", "2.5"),
        ("-1", "-1", "-1", "-1"), ("5", "1", "0", "-3"), ("1.5", "2.5", "-0.5", "0")]),
    "nudge": ("08-honest-habits/", [
        ("0.001",), ("-1",), ("0.5",), ("2",), ("-0.25",), ("0",), ("1",), ("3",), ("-3",), ("0.01",),
        ("-0.649",)]),
}


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def measures(page, name: str) -> list[float]:
    return page.evaluate("(n) => performance.getEntriesByName(n).map((e) => e.duration)", name)


def visit(browser, url: str, rate: float, name: str, pace: float = 0) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    if rate > 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
    page.goto(url, wait_until="load")
    root = page.locator(f'[data-explorer="{name}"]').first
    root.scroll_into_view_if_needed()
    page.wait_for_function("(n) => document.querySelector(`[data-explorer='${n}']`).dataset.xpState"
                           " === 'ready'", arg=name, timeout=60_000)
    fields = root.locator(".xp-inputs input")
    status = root.locator(".xp-status")
    busy = "(n) => !document.querySelector(`[data-explorer='${n}']`).dataset.computing"
    inputs = EXPLORERS[name][1]

    def compute(values):
        for k, text in enumerate(values):
            fields.nth(k).fill(text)
        fields.nth(len(values) - 1).press("Enter")

    def type_in(values):  # as a reader types: the book's number selected and typed over, Tab between fields
        for k, text in enumerate(values):
            fields.nth(k).focus()
            page.keyboard.press("Control+A")
            page.keyboard.type(text, delay=pace)
        page.keyboard.press("Enter")

    first_key = time.perf_counter()
    if pace:
        type_in(inputs[0])
    else:
        compute(inputs[0])
    pressed = time.perf_counter()
    status.filter(has_text="…").wait_for(timeout=10_000)  # loading or computing, whichever the page says
    progress = time.perf_counter() - pressed
    page.wait_for_function(busy, arg=name, timeout=120_000)
    cold = measures(page, f"reader's numbers: {name}")[-1]
    typing = (pressed - first_key) * 1000
    for values in inputs[1:]:
        compute(values)
        page.wait_for_function(busy, arg=name, timeout=60_000)
    warm = measures(page, f"reader's numbers: {name}")[1:]
    drawn = measures(page, f"reader's numbers drawn: {name}")[1:]
    context.close()
    return {"progress": progress * 1000, "cold": cold, "typing": typing, "warm": warm, "drawn": drawn}


def report(label: str, runs: list[dict], typed: list[dict], pace: float) -> None:
    warm = [x for run in runs + typed for x in run["warm"]]
    drawn = [x for run in runs for x in run["drawn"]]
    print(f"{label}: progress shown after {max(r['progress'] for r in runs):.0f} ms (worst); "
          f"cold answer {max(r['cold'] for r in runs) / 1000:.2f} s worst, "
          f"{statistics.median(r['cold'] for r in runs) / 1000:.2f} s median; "
          f"warm recompute + redraw {statistics.median(warm):.0f} ms median, {max(warm):.0f} ms worst "
          f"(redraw alone {statistics.median(drawn):.0f} ms median, {max(drawn):.0f} ms worst; "
          f"{len(warm)} recomputes)")
    if typed:
        print(f"    typed at {pace:.0f} ms a key: cold answer "
              f"{max(r['cold'] for r in typed) / 1000:.2f} s worst, "
              f"{statistics.median(r['cold'] for r in typed) / 1000:.2f} s median after Enter; "
              f"{max(r['typing'] + r['cold'] for r in typed) / 1000:.2f} s worst after the first key "
              f"(typing {statistics.median(r['typing'] for r in typed) / 1000:.2f} s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--site", type=Path, help="a built site to serve instead of building one")
    parser.add_argument("--cpu-slowdown", type=cpu_slowdown, default=4.0,
                        help="the slowed-down rate: a number (4, Lighthouse's mobile preset) or "
                        "'calibrated' (tests/bench/calibration.py)")
    parser.add_argument("--pace", type=float, default=200,
                        help="ms a key for the typed cold visits (0: none, only the fields filled at once)")
    parser.add_argument("--explorer", choices=list(EXPLORERS), action="append",
                        help="measure this explorer only (repeatable; all three by default)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or Path(tmp) / "site"
        if not args.site:
            proc = build_site(site)
            if proc.returncode:
                sys.exit(f"mkdocs build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(site)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium")
            slowed = slowdown(browser, args.cpu_slowdown)
            for name in args.explorer or list(EXPLORERS):
                url = f"http://127.0.0.1:{server.server_port}/{EXPLORERS[name][0]}"
                for rate, label in (slowed, (1, "machine's own speed")):
                    at_once = [visit(browser, url, rate, name) for _ in range(args.runs)]
                    typed = [visit(browser, url, rate, name, args.pace)
                             for _ in range(args.runs if args.pace else 0)]
                    report(f"{name}, {label}", at_once, typed, args.pace)
            browser.close()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
