"""Site speed, side by side with a plain Material page: one command, a report (not a timed test).

    PYTHONPATH=tests .venv/bin/python tests/bench/site_benchmark.py [--runs 2] [--no-build-times]
        [--only home] [--keep DIR] [--cpu-slowdown 4|calibrated]

1. Build times, on a copy of the project (the repository is never touched): a cold build with the labs
   (no .cache/), a warm rebuild after editing one page, and `mkdocs serve`'s reload: the time from saving
   an edit to the served page showing it.
2. The site, built for the local server, and the floor built in the same run: a plain Material page of
   page 02's prose (no hooks, no math, no plugins but search), both served by Debian's nginx as GitHub
   Pages serves them: HTTPS and HTTP/2, gzip (a temporary nginx.conf, 127.0.0.1 only, and a self-signed
   certificate made with openssl for the run, which the measuring Chromium is told to accept). Over plain
   HTTP/1.1 Chromium opens at most six connections to the site and Lighthouse's simulation queues a page's
   dozen first requests behind them, which GitHub Pages' readers never see.
3. Lighthouse 12.2.3 (npm; installed on the first run into .cache/lighthouse/) with Debian's chromium,
   mobile preset and simulated throttling, on every page type in both languages (home, a chapter page
   with an explorer and checked exercises, a math-heavy chapter page, a lab, the 404), interleaved with
   the floor in each round; medians over --runs.

The machine is shared and noisy: absolute scores move with its load, the floor measured in the same round
is the reference. Prints a Markdown table (recorded in the README, "Site speed").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

# tests/bench/, beside this script
from calibration import REFERENCE_PHONE_INDEX, calibrated_rate, cpu_slowdown

ROOT = Path(__file__).resolve().parents[2]
LIGHTHOUSE_VERSION = "12.2.3"
LIGHTHOUSE_DIR = ROOT / ".cache" / "lighthouse"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
PAGES = {  # page type -> path under each language's root
    "home": "",
    "chapter 03 (explorer, checked exercises)": "03-worked-example/",
    "chapter 04 (85 formulas)": "04-through-a-network/",
    "chapter 02": "02-chain-rule/",
    "lab build-check-train": "labs/build-check-train/",
    "404": "404.html",
}
LANG_PREFIX = {"pt": "", "en": "en/"}
EDITED_PAGE = "docs/pt/02-chain-rule.md"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mkdocs(project: Path, site: Path, site_url: str, strict: bool = True) -> float:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL=site_url)
    start = time.perf_counter()
    flags = ["--strict"] if strict else []  # the floor's page links to pages it does not have
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", *flags, "--site-dir", str(site)],
                          cwd=project, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"mkdocs build failed in {project}:\n{proc.stdout}\n{proc.stderr}")
    return seconds


def copy_project(target: Path, with_cache: bool) -> Path:
    """What a build reads, as the tests copy it (tests/support/site.py), with or without the figure and lab
    caches (a cold build draws and executes everything)."""
    from support.site import copy_project as copy_for_a_build  # PYTHONPATH=tests, as pytest finds it

    copy_for_a_build(target)
    if not with_cache:
        shutil.rmtree(target / ".cache", ignore_errors=True)
    return target


def edit(project: Path, marker: str) -> None:
    page = project / EDITED_PAGE
    page.write_text(page.read_text(encoding="utf-8") + f"\n{marker}\n", encoding="utf-8")


def serve_reload(project: Path) -> float:
    """Seconds from saving an edit to `mkdocs serve` serving the page with it (median of three edits)."""
    port = free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL=f"http://127.0.0.1:{port}/")
    log = open(project / "serve.log", "w")  # noqa: SIM115 (closed below, after the server stops)
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
                              cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    url = f"http://127.0.0.1:{port}/02-chain-rule/"

    def page() -> str:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read().decode("utf-8", "replace")
        except OSError:
            return ""

    try:
        deadline = time.time() + 300
        while "culpa" not in page():
            if time.time() > deadline or server.poll() is not None:
                sys.exit(f"mkdocs serve did not come up:\n{(project / 'serve.log').read_text()[-3000:]}")
            time.sleep(0.2)
        times = []
        for n in range(3):
            time.sleep(1.5)  # let the watcher settle after the previous build
            marker = f"serve-reload-marker-{n}-{time.time_ns()}"
            start = time.perf_counter()
            edit(project, marker)
            while marker not in page():
                if time.perf_counter() - start > 120:
                    sys.exit("mkdocs serve did not show an edit within 120 s")
                time.sleep(0.05)
            times.append(time.perf_counter() - start)
        return statistics.median(times)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()


def build_times(work: Path) -> dict[str, float]:
    cold = copy_project(work / "cold", with_cache=False)
    times = {"cold build with labs (no .cache)": mkdocs(cold, work / "cold-site", "http://127.0.0.1:8000/")}
    edit(cold, "Uma linha nova.")
    times["warm rebuild after editing one page"] = mkdocs(cold, work / "cold-site", "http://127.0.0.1:8000/")
    times["mkdocs serve: edit saved to page served"] = serve_reload(cold)
    return times


# ---- the floor: a plain Material page of page 02's prose -------------------------------------------------


def build_floor(work: Path, site_url: str) -> Path:
    from sitebuild.steps import prose_numbers

    project = work / "floor"
    (project / "docs").mkdir(parents=True)
    prose = prose_numbers.render((ROOT / EDITED_PAGE).read_text(encoding="utf-8"))
    (project / "docs" / "index.md").write_text(prose, encoding="utf-8")
    (project / "mkdocs.yml").write_text(textwrap.dedent(f"""\
        site_name: Retropropagação, visualizada
        site_url: {site_url}
        theme:
          name: material
          language: pt-BR
          font: false
        extra:
          generator: false
        plugins:
          - search
        """), encoding="utf-8")
    mkdocs(project, work / "floor-site", site_url, strict=False)
    return work / "floor-site"


# ---- serving and measuring ------------------------------------------------------------------------------


def origin(port: int) -> str:
    return f"https://127.0.0.1:{port}"


def certificate(work: Path) -> tuple[Path, Path]:
    cert, key = work / "cert.pem", work / "key.pem"
    if not cert.exists():
        subprocess.run([OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                        "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


def nginx(work: Path, roots: dict[int, Path]) -> subprocess.Popen:
    cert, key = certificate(work)
    servers = "\n".join(f"""
    server {{
        listen 127.0.0.1:{port} ssl http2;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        root {root};
        error_page 404 /404.html;
    }}""" for port, root in roots.items())
    conf = work / "nginx.conf"
    conf.write_text(textwrap.dedent(f"""\
        daemon off;
        worker_processes 1;
        pid {work}/nginx.pid;
        error_log {work}/nginx-error.log;
        events {{ worker_connections 256; }}
        http {{
            include /etc/nginx/mime.types;
            access_log off;
            client_body_temp_path {work}/tmp;
            proxy_temp_path {work}/tmp;
            fastcgi_temp_path {work}/tmp;
            uwsgi_temp_path {work}/tmp;
            scgi_temp_path {work}/tmp;
            gzip on;
            gzip_comp_level 6;
            gzip_min_length 256;
            gzip_types text/css application/javascript application/json image/svg+xml text/xml
                       application/xml application/wasm font/woff2;
            {servers}
        }}
        """), encoding="utf-8")
    (work / "tmp").mkdir(exist_ok=True)
    proc = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(work)], start_new_session=True)
    unverified = ssl._create_unverified_context()  # the run's own self-signed certificate
    for port in roots:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{origin(port)}/", timeout=1, context=unverified).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            proc.kill()
            sys.exit(f"nginx did not serve port {port}: {(work / 'nginx-error.log').read_text()}")
    return proc


def lighthouse_bin() -> Path:
    binary = LIGHTHOUSE_DIR / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        LIGHTHOUSE_DIR.mkdir(parents=True, exist_ok=True)
        print(f"installing lighthouse@{LIGHTHOUSE_VERSION} into {LIGHTHOUSE_DIR} (first run)", flush=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(LIGHTHOUSE_DIR), "-E",
                        f"lighthouse@{LIGHTHOUSE_VERSION}"], check=True)
    return binary


def lighthouse(url: str, out: Path, slowdown: float | None = None) -> dict:
    env = dict(os.environ, CHROME_PATH=CHROME)
    throttling = [f"--throttling.cpuSlowdownMultiplier={slowdown:.2f}"] if slowdown else []
    proc = subprocess.run([str(lighthouse_bin()), url, "--output=json", f"--output-path={out}", "--quiet",
                           "--only-categories=performance,accessibility,best-practices", *throttling,
                           "--chrome-flags=--headless=new --no-sandbox --disable-gpu "
                           "--ignore-certificate-errors"],
                          env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode or not out.exists():
        sys.exit(f"lighthouse failed on {url}:\n{proc.stderr[-3000:]}")
    report = json.loads(out.read_text(encoding="utf-8"))
    audits, cats = report["audits"], report["categories"]

    def below_one(ref: dict) -> bool:
        score = audits[ref["id"]].get("score")
        return bool(ref["weight"]) and score is not None and score < 1

    failing = {c: [a["id"] for a in cat["auditRefs"] if below_one(a)] for c, cat in cats.items()
               if c != "performance"}
    return {
        "performance": cats["performance"]["score"],
        "accessibility": cats["accessibility"]["score"],
        "best-practices": cats["best-practices"]["score"],
        "tbt": audits["total-blocking-time"]["numericValue"],
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "lcp": audits["largest-contentful-paint"]["numericValue"],
        "kib": audits["total-byte-weight"]["numericValue"] / 1024,
        "failing": failing,
        "index": report["environment"]["benchmarkIndex"],
        "slowdown": report["configSettings"]["throttling"]["cpuSlowdownMultiplier"],
    }


def summary(runs: list[dict]) -> dict:
    def med(key):
        return statistics.median(r[key] for r in runs)

    def span(key, fmt):
        low, high = (fmt(v) for v in (min(r[key] for r in runs), max(r[key] for r in runs)))
        return low if low == high else f"{low}–{high}"

    failing = sorted({f"{c}: {a}" for r in runs for c, ids in r["failing"].items() for a in ids})
    return {"performance": span("performance", lambda v: f"{v:.2f}"),
            "accessibility": span("accessibility", lambda v: f"{v:.2f}"),
            "best-practices": span("best-practices", lambda v: f"{v:.2f}"),
            "tbt": span("tbt", lambda v: f"{v:.0f} ms"), "cls": span("cls", lambda v: f"{v:.3f}"),
            "lcp": f"{med('lcp') / 1000:.1f} s", "kib": f"{med('kib'):.0f} KiB", "failing": failing}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="Lighthouse rounds (every page and the floor)")
    parser.add_argument("--no-build-times", action="store_true", help="skip the cold/warm/serve timings")
    parser.add_argument("--only", default="", help="measure only the page types whose name holds this "
                        "text (e.g. home); the floor is always measured")
    parser.add_argument("--keep", type=Path, help="copy Lighthouse's JSON reports into this folder, to read "
                        "what blocked the main thread (audits bootup-time, long-tasks)")
    parser.add_argument("--cpu-slowdown", type=cpu_slowdown, default=4.0,
                        help="Lighthouse's CPU multiplier: a number (its default, 4) or 'calibrated' "
                        "(tests/bench/calibration.py): this machine's "
                        f"benchmark index / {REFERENCE_PHONE_INDEX:.0f} (median of three runs on the floor)")
    args = parser.parse_args()
    for tool in (CHROME, NGINX, OPENSSL):
        if not Path(tool).exists():
            sys.exit(f"{tool} is missing: apt-get install chromium nginx-light openssl")

    with tempfile.TemporaryDirectory(prefix="site-bench-") as tmp:
        work = Path(tmp)
        work.chmod(0o755)  # nginx's workers run as an unprivileged user: they must read the sites
        times = {} if args.no_build_times else build_times(work)
        site_port, floor_port = free_port(), free_port()
        site = work / "site"
        mkdocs(copy_project(work / "project", with_cache=True), site, f"{origin(site_port)}/")
        floor = build_floor(work, f"{origin(floor_port)}/")
        server = nginx(work, {site_port: site, floor_port: floor})
        try:
            results: dict[str, list[dict]] = {}
            targets = [("floor: plain Material page, prose of 02 (pt)", f"{origin(floor_port)}/")]
            for kind, path in [(k, v) for k, v in PAGES.items() if args.only in k]:
                for lang, prefix in LANG_PREFIX.items():
                    targets.append((f"{kind} ({lang})", f"{origin(site_port)}/{prefix}{path}"))
            slowdown = args.cpu_slowdown
            if slowdown == "calibrated":  # Lighthouse's own index, as its reports give it
                index = statistics.median(lighthouse(targets[0][1], work / f"calibration-{n}.json")["index"]
                                          for n in range(3))  # one reading moves by a fifth
                slowdown = calibrated_rate(index)
                print(f"benchmark index {index:.0f}: CPU slowdown {slowdown:.2f}", file=sys.stderr,
                      flush=True)
            for round_ in range(args.runs):
                for n, (name, url) in enumerate(targets):
                    print(f"round {round_ + 1}/{args.runs}: {name}", file=sys.stderr, flush=True)
                    report = work / f"lh-{round_}-{n}.json"
                    results.setdefault(name, []).append(lighthouse(url, report, slowdown))
                    if args.keep:
                        args.keep.mkdir(parents=True, exist_ok=True)
                        shutil.copy(report, args.keep / report.name)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)

    load = os.getloadavg()[0]
    every = [r for runs in results.values() for r in runs]
    indexes = sorted(r["index"] for r in every)
    print(f"\nLighthouse {LIGHTHOUSE_VERSION}, mobile, simulated throttling, CPU slowdown "
          f"{every[0]['slowdown']:.2f}x; nginx, HTTPS + HTTP/2, gzip; {args.runs} run(s), load average "
          f"{load:.1f} on {os.cpu_count()} cores; benchmark index {indexes[0]:.0f}-{indexes[-1]:.0f} "
          f"(median {statistics.median(indexes):.0f})\n")
    print("| page | performance | accessibility | best practices | total blocking time | CLS | LCP | "
          "transferred |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    flagged = {}
    for name, runs in results.items():
        s = summary(runs)
        print(f"| {name} | {s['performance']} | {s['accessibility']} | {s['best-practices']} | {s['tbt']} | "
              f"{s['cls']} | {s['lcp']} | {s['kib']} |")
        if s["failing"]:
            flagged[name] = s["failing"]
    if flagged:
        print("\nAudits below 1 (accessibility, best practices):")
        for name, ids in flagged.items():
            print(f"- {name}: {', '.join(ids)}")
    if times:
        print("\n| build | seconds |\n| --- | --- |")
        for name, seconds in times.items():
            print(f"| {name} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
