"""Benchmark of Run in the page (not collected by pytest; run it by hand):

    PYTHONPATH=tests .venv/bin/python tests/bench/run_benchmark.py [--site DIR] [--rounds 3]

Builds the site for a loopback address (or serves --site, built for http://127.0.0.1:PORT/ with --port),
opens page 03 (pt) in Debian's Chromium with every other host unreachable, and prints, measured side by
side on this machine:
- cold: first click on Run to the first printed output, in a fresh browser context (empty cache): Pyodide,
  numpy and culpa load in the worker (median of --rounds);
- warm: a Run of the same block again, click to done (median of 15);
- bytes transferred for the first Run, as served and gzip-compressed (level 6, what a static host's gzip
  gives; GitHub Pages compresses these types);
- page 03's blocks run in the browser against the same blocks in CPython (numpy and culpa imported first in
  both: the worker imports them while it loads), and their ratio.
Goals (issue 15): cold <= 4 s, warm <= 50 ms, first Run <= 9 MB compressed.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from support.pages import ROOT, load_page  # PYTHONPATH=tests: the suite's helpers, as pytest finds them
from support.served import PagesHandler

ARGS = ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
PAGE = "03-worked-example/"

CLICK_TO_FIRST_OUTPUT = """async (index) => {
  const box = document.querySelector(`[data-run-block="${index}"]`);
  const bar = box.nextElementSibling;
  const out = bar.nextElementSibling;
  const printed = new Promise((resolve) => {
    const seen = () => out.querySelector('[data-stream="stdout"]');
    const observer = new MutationObserver(() => {
      if (seen()) { observer.disconnect(); resolve(performance.now()); }
    });
    observer.observe(out, { childList: true, subtree: true, characterData: true });
  });
  const done = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (out.dataset.state && out.dataset.state !== "running") {
        observer.disconnect();
        resolve(performance.now());
      }
    });
    observer.observe(out, { attributes: true, attributeFilter: ["data-state"] });
  });
  const start = performance.now();
  bar.querySelector("button").click();
  const first = await printed;
  const end = await done;
  return { first: first - start, done: end - start, state: out.dataset.state };
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(site: Path, port: int) -> ThreadingHTTPServer:
    handler = type("Handler", (PagesHandler,), {"site_dir": site, "prefix": "/"})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def build(port: int) -> Path:
    target = Path(tempfile.mkdtemp(prefix="run-bench-")) / "site"
    env = dict(os.environ, SITE_URL=f"http://127.0.0.1:{port}/", NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    if proc.returncode:
        sys.exit(f"build failed:\n{proc.stderr[-3000:]}")
    return target


async def measure(base: str, site: Path, rounds: int) -> dict:
    from playwright.async_api import async_playwright

    result: dict = {"cold": [], "warm": [], "bytes": None, "browser_blocks": []}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for round_ in range(rounds):
            context = await browser.new_context()
            urls: list[str] = []
            page = await context.new_page()
            await page.goto(base + PAGE, wait_until="networkidle")
            page.on("request", lambda r, urls=urls: urls.append(r.url))
            context.on("request", lambda r, urls=urls: urls.append(r.url))
            timing = await page.evaluate(CLICK_TO_FIRST_OUTPUT, 0)
            assert timing["state"] == "ok", timing
            result["cold"].append(timing["first"] / 1000)
            if round_ == 0:
                files = sorted({urlsplit(u).path for u in urls})
                raw = packed = 0
                for path in files:
                    f = site / path.lstrip("/")
                    if f.is_file():
                        data = f.read_bytes()
                        raw += len(data)
                        packed += len(gzip.compress(data, 6))
                result["bytes"] = (raw, packed, files)
                for _ in range(15):
                    result["warm"].append((await page.evaluate(CLICK_TO_FIRST_OUTPUT, 0))["done"] / 1000)
                count = await page.locator("[data-run-block]").count()
                for k in range(count):
                    t = await page.evaluate(CLICK_TO_FIRST_OUTPUT, k)
                    result["browser_blocks"].append(t["done"] / 1000)
            await context.close()
        await browser.close()
    return result


CPYTHON = """
import json, sys, time, io, contextlib
import numpy, culpa
blocks = json.load(open(sys.argv[1]))
ns = {"__name__": "__main__"}
times = []
for code in blocks:
    c = compile(code, "<block>", "exec")
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        exec(c, ns)
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"""


def cpython_blocks() -> list[float]:
    page = load_page("pt", PAGE.rstrip("/") + ".md")
    codes = [b.code for b in page.python_blocks if not any("skip" in m for m in b.marks)]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(codes, f)
    proc = subprocess.run([sys.executable, "-c", CPYTHON, f.name], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (with --port: the port of its SITE_URL)")
    parser.add_argument("--port", type=int)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    port = args.port or free_port()
    site = args.site or build(port)
    server = serve(site, port)
    try:
        result = asyncio.run(measure(f"http://127.0.0.1:{port}/", site, args.rounds))
    finally:
        server.shutdown()
    cpython = cpython_blocks()
    raw, packed, files = result["bytes"]
    cold = statistics.median(result["cold"])
    warm = statistics.median(result["warm"])
    browser_total = sum(result["browser_blocks"])
    cpython_total = sum(cpython)
    load = os.getloadavg()[0]
    print(f"Run in the page, page 03 (pt), Chromium, load average {load:.1f}")
    rounds = ", ".join(f"{c:.2f}" for c in result["cold"])
    verdict = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    print(
        f"cold, first click to first output: {cold:.2f} s (rounds: {rounds})"
        f"   goal <= 4 s: {verdict(cold <= 4)}"
    )
    print(
        f"warm Run, click to done:           {warm * 1000:.0f} ms (median of {len(result['warm'])})"
        f"   goal <= 50 ms: {verdict(warm <= 0.05)}"
    )
    print(
        f"first Run transfers:               {raw / 1e6:.1f} MB as served, "
        f"{packed / 1e6:.1f} MB gzip-compressed ({len(files)} files)"
        f"   goal <= 9 MB compressed: {verdict(packed <= 9e6)}"
    )
    print(
        f"page 03's {len(cpython)} blocks:          browser {browser_total * 1000:.0f} ms (click to done, "
        f"each), CPython {cpython_total * 1000:.0f} ms (exec)   browser/CPython "
        f"{browser_total / cpython_total:.1f}"
    )
    for path in files:
        print(f"  {path}")


if __name__ == "__main__":
    main()
