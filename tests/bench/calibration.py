"""The CPU slowdown that makes this machine a mid-tier phone, as Lighthouse calibrates it.

Chromium's CPU throttling (and Lighthouse's simulated 4x) is relative to the machine it runs on: Lighthouse's
4x "moves a typical run in the high-end desktop bracket [benchmark index 1500-2000] somewhere into the
mid-tier mobile bracket" (Lighthouse's docs/throttling.md, "Calibrating the CPU slowdown"). The machines this
project runs on differ by about 2x from one session to the next, so a budget "at 4x" met on one can be missed
on another with the same code. `calibrated_rate` divides this machine's benchmark index (Lighthouse's own
measure, taken in the browser at hand, median of three) by the middle of that bracket slowed 4x: the slowdown
at which this machine runs like the phone Lighthouse's default means.
"""

from __future__ import annotations

import argparse
import statistics

REFERENCE_PHONE_INDEX = 1750 / 4

# Lighthouse 12.2.3, core/lib/page-functions.js, computeBenchmarkIndex (Apache-2.0): a GC-heavy string loop
# and an array copy loop, each run for 500 ms; the index is the mean of their iterations per second / 10.
BENCHMARK_INDEX_JS = """() => {
  function gc() {
    const start = Date.now();
    let iterations = 0;
    while (Date.now() - start < 500) {
      let s = "";
      for (let j = 0; j < 10000; j++) s += "a";
      if (s.length === 1) throw new Error("never");
      iterations++;
    }
    return Math.round(iterations / 10 / ((Date.now() - start) / 1000));
  }
  function noGc() {
    const a = [], b = [];
    for (let i = 0; i < 100000; i++) a[i] = b[i] = i;
    const start = Date.now();
    let iterations = 0;
    while (iterations % 10 !== 0 || Date.now() - start < 500) {
      const src = iterations % 2 === 0 ? a : b, tgt = iterations % 2 === 0 ? b : a;
      for (let j = 0; j < src.length; j++) tgt[j] = src[j];
      iterations++;
    }
    return Math.round(iterations / 10 / ((Date.now() - start) / 1000));
  }
  return (gc() + noGc()) / 2;
}"""


def benchmark_index(browser) -> float:
    """Lighthouse's benchmark index of this machine, in a blank page of `browser` (playwright, sync)."""
    context = browser.new_context()
    page = context.new_page()
    readings = [page.evaluate(BENCHMARK_INDEX_JS) for _ in range(3)]
    context.close()
    return statistics.median(readings)


def cpu_slowdown(text: str) -> float | str:
    """argparse's type for --cpu-slowdown: a number (4, Lighthouse's mobile preset) or "calibrated"."""
    if text == "calibrated":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: write a number (4) or 'calibrated'") from None


def calibrated_rate(index: float) -> float:
    """The slowdown that turns a machine of this benchmark index into Lighthouse's mid-tier phone."""
    return index / REFERENCE_PHONE_INDEX


def slowdown(browser, wanted: float | str) -> tuple[float, str]:
    """The CPU rate for --cpu-slowdown `wanted` (cpu_slowdown's value), and its label."""
    if wanted != "calibrated":
        return wanted, f"CPU {wanted:g}× slower"
    index = benchmark_index(browser)
    rate = calibrated_rate(index)
    return rate, (f"CPU {rate:.2f}× slower (calibrated: benchmark index {index:.0f} / "
                  f"{REFERENCE_PHONE_INDEX:.0f})")
