"""The install command the pages show works from anywhere: culpa's wheel, from the served site.

- A fresh virtual environment runs the `pip install <url>` that the home page shows (the URL read from the
  served page, site_url-based), numpy coming from the package index, then runs page 03's blocks in an
  empty folder: they print what the page shows.
- (A lab's downloaded notebook, run in a fresh venv where culpa is missing, installs culpa from the served
  site in its first cell and runs top to bottom: tests/test_labs.py, with every lab's download.)
The served wheel holds exactly the repository's culpa (as tests/test_wheel.py proves of the built one).
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import urllib.request
import zipfile

import pytest

from sitebuild.steps import wheel as wheel_hook
from support.pages import ROOT, load_page
from support.reader_venv import clean_env, culpa_location, reader_venv
from support.served import ServedSite, SitePage

RUNNER = ROOT / "tests" / "support" / "run_page.py"
PIP_INSTALL = re.compile(r"pip install (?P<url>https?://\S+?\.whl)")


def shown_install_url(site: ServedSite, page: SitePage) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", "", (site.dir / page.rel / "index.html").read_text("utf-8")))
    found = {m.group("url") for m in PIP_INSTALL.finditer(text)}
    assert len(found) == 1, f"{page.id}: expected one pip install URL on the page, found {found}"
    return found.pop()


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_every_page_shows_the_served_wheel_address(served_site, lang):
    """The home page shows the install command (the chapter pages link to it); any page that shows a
    `pip install <url>` shows the served wheel's address."""
    expected = f"{served_site.base}culpa/{wheel_hook.wheel_name(ROOT)}"
    home = SitePage(lang, "")
    url = shown_install_url(served_site, home)
    assert url == expected, f"{home.id}: shows {url}"
    root = served_site.dir / home.rel
    for page in root.rglob("index.html"):
        if lang == "pt" and page.relative_to(root).parts[0] == "en":
            continue
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text("utf-8")))
        for m in PIP_INSTALL.finditer(text):
            assert m.group("url") == expected, f"{page.relative_to(served_site.dir)}: shows {m.group('url')}"
    with urllib.request.urlopen(url) as response:
        wheel = response.read()
    assert wheel[:2] == b"PK"


def test_the_served_wheel_is_the_repository_culpa(served_site, tmp_path):
    url = shown_install_url(served_site, SitePage("pt", ""))
    path = tmp_path / url.rsplit("/", 1)[-1]
    path.write_bytes(urllib.request.urlopen(url).read())
    package = ROOT / "snippets" / "culpa"
    repo = {f"culpa/{p.relative_to(package).as_posix()}": p.read_bytes() for p in package.rglob("*.py")}
    with zipfile.ZipFile(path) as z:
        inside = {n: z.read(n) for n in z.namelist() if n.startswith("culpa/") and n.endswith(".py")}
    assert inside == repo, "the served wheel's culpa is not snippets/culpa"


def test_a_fresh_venv_installs_culpa_from_the_site_and_runs_page_03(served_site, tmp_path):
    url = shown_install_url(served_site, SitePage("en", ""))
    python = reader_venv(tmp_path / "venv")
    pip = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", url],
        capture_output=True, text=True, env=clean_env(), timeout=900,
    )
    assert pip.returncode == 0, f"pip install {url} failed:\n{pip.stdout}\n{pip.stderr}"
    page = load_page("en", "03-worked-example.md")
    blocks = [b for b in page.python_blocks if not any("skip" in m for m in b.marks)]
    payload = {"page": page.name, "blocks": [{"code": b.code, "line": b.line} for b in blocks], "markers": []}
    (tmp_path / "payload.json").write_text(json.dumps(payload), encoding="utf-8")
    work = tmp_path / "reader"
    work.mkdir()
    proc = subprocess.run(
        [str(python), "-I", str(RUNNER), str(tmp_path / "payload.json"), str(tmp_path / "result.json")],
        cwd=work, capture_output=True, text=True, env=clean_env(), timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    outputs = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))["outputs"]
    for block, out in zip(blocks, outputs, strict=True):
        where = f"{page.name}, line {block.line}, with culpa from the site"
        assert out["error"] is None, f"{where}:\n{out['error']}"
        if block.expected_output is not None:
            assert out["stdout"] == block.expected_output, f"{page.name}, line {block.line} prints otherwise"
    where = culpa_location(python, work)
    assert where.startswith(str(tmp_path / "venv")), f"culpa came from {where}"
