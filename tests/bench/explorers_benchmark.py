"""What the explorers cost a page's load: a report, not a timed test.

    PYTHONPATH=tests .venv/bin/python tests/bench/explorers_benchmark.py [--runs 3]

Builds the site once (into a temporary folder, the repository untouched), serves it, and opens in Debian's
chromium every page with an explorer, at desktop (1280 px) and phone (390 px) width, with the CPU slowed
down 4× (Lighthouse's mobile preset). For each explorer it prints, over --runs visits (the worst run):
- when it started: only once it was scrolled into view (`data-xp-state` becomes "loading" then "ready",
  assets/explorers/start.js), and for the home page's preview, which waits for the reader's first touch,
  once its figure was clicked;
- how long drawing it took (the "explorer <name>" measure that assets/explorers/start.js records around
  the explorer's build), and the long tasks (> 50 ms, the Long Tasks API) that ran from the moment it
  started loading to the moment it was ready (they may include the page's own rendering after a scroll);
- the long tasks of the page's load before the explorer started, for comparison (Material, style, layout).
The issue's rule: an explorer adds no long task at load. The first column is the one to read.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from support.site import build_site  # PYTHONPATH=tests: the suite's helper, as pytest finds it


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # one line per request would bury the report
        pass


PAGES = {"home (worked-example preview)": "", "03 worked-example": "03-worked-example/",
         "04 blame": "04-through-a-network/", "08 nudge": "08-honest-habits/"}
WIDTHS = {"desktop": 1280, "phone": 390}
RECORD = """
window.__long = [];
new PerformanceObserver((list) => list.getEntries().forEach((e) =>
  window.__long.push([e.startTime, e.duration]))).observe({ type: "longtask", buffered: true });
window.__states = [];
new MutationObserver((records) => records.forEach((r) => window.__states.push(
  [r.target.dataset.explorer, r.target.dataset.xpState, performance.now()])))
  .observe(document, { subtree: true, attributes: true, attributeFilter: ["data-xp-state"] });
"""


def visit(browser, url: str, width: int) -> dict:
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.add_init_script(RECORD)
    page.goto(url, wait_until="load")
    page.wait_for_timeout(1500)
    at_load = page.evaluate("window.__states.length > 0")
    page.evaluate("document.querySelector('[data-explorer]').scrollIntoView({block: 'center'})")
    root = page.locator("[data-explorer]").first
    if root.get_attribute("data-compact") is not None:  # the home preview: built at the first touch
        page.wait_for_timeout(500)
        if not root.get_attribute("data-xp-state"):
            root.locator("figure img").first.click()
    done = "window.__states.some((s) => s[1] === 'ready' || s[1] === 'failed')"
    page.wait_for_function(done, timeout=30_000)
    page.wait_for_timeout(500)
    long, states, drawn = page.evaluate(
        "[window.__long, window.__states, performance.getEntriesByType('measure')"
        ".filter((m) => m.name.startsWith('explorer ')).map((m) => m.duration)]")
    context.close()
    start = next(t for _, state, t in states if state == "loading")
    ready = next(t for _, state, t in states if state in ("ready", "failed"))
    return {
        "at_load": at_load,
        "own": [round(d) for s, d in long if start - 1 <= s <= ready],
        "before": [round(d) for s, d in long if s + d < start],
        "ready_ms": round(ready - start),
        "draw_ms": round(max(drawn, default=0)),
        "failed": any(state == "failed" for _, state, _ in states),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="explorers-bench-") as tmp:
        site = Path(tmp) / "site"
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(site)))
        origin = f"http://127.0.0.1:{server.server_address[1]}/"
        proc = build_site(site, site_url=origin)
        if proc.returncode:
            sys.exit(f"mkdocs build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print("\nExplorers at load, CPU slowed 4x, worst of", args.runs, "runs\n")
        print("| page | width | starts at load | drawing it | long tasks while it starts | loading to ready "
              "| page's long tasks before it |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for lang_prefix in ("", "en/"):
                for name, path in PAGES.items():
                    for width_name, width in WIDTHS.items():
                        runs = [visit(browser, origin + lang_prefix + path, width) for _ in range(args.runs)]
                        worst = max(runs, key=lambda r: max(r["own"], default=0))
                        assert not any(r["failed"] for r in runs), f"{name}: the explorer failed to start"
                        tasks = worst["own"]
                        print(f"| {name} ({lang_prefix.rstrip('/') or 'pt'}) | {width_name} | "
                              f"{'yes' if worst['at_load'] else 'no'} | "
                              f"{max(r['draw_ms'] for r in runs)} ms | "
                              f"{', '.join(f'{t} ms' for t in tasks) or 'none'} | "
                              f"{max(r['ready_ms'] for r in runs)} ms | "
                              f"{', '.join(f'{t} ms' for t in worst['before']) or 'none'} |")
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
