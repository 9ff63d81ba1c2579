"""The install command the pages show works from anywhere: culpa's wheel, from the served site.

- A fresh virtual environment runs the `pip install <url>` that the home page shows (the URL read from the
  served page, site_url-based), numpy coming from the package index, then runs page 03's blocks in an
  empty folder: they print what the page shows.
- A lab's downloadable notebook, executed in an empty folder by a kernel where culpa is not installed:
  its first cell installs culpa from the served site (the one pip command), and the whole lab runs. To keep
  this quick, that environment borrows Jupyter, numpy and matplotlib from the test environment's
  site-packages through a plain path entry, which does not run the editable install's hook: culpa is
  missing there until the first cell installs it.
The served wheel holds exactly the repository's culpa (as tests/test_wheel.py proves of the built one).
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import sysconfig
import urllib.request
import zipfile
from pathlib import Path

import pytest

from sitebuild.steps import wheel as wheel_hook
from support.pages import ROOT, load_page
from support.served import ServedSite, SitePage

RUNNER = ROOT / "tests" / "support" / "run_page.py"
PIP_INSTALL = re.compile(r"pip install (?P<url>https?://\S+?\.whl)")


def shown_install_url(site: ServedSite, page: SitePage) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", "", (site.dir / page.rel / "index.html").read_text("utf-8")))
    found = {m.group("url") for m in PIP_INSTALL.finditer(text)}
    assert len(found) == 1, f"{page.id}: expected one pip install URL on the page, found {found}"
    return found.pop()


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["MPLBACKEND"] = "Agg"
    return env


def make_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=300)
    return where / "bin" / "python"


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
    python = make_venv(tmp_path / "venv")
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
    where = subprocess.run(
        [str(python), "-I", "-c", "import culpa; print(culpa.__file__)"],
        cwd=work, capture_output=True, text=True, env=clean_env(),
    )
    assert where.stdout.startswith(str(tmp_path / "venv")), f"culpa came from {where.stdout}"


BORROWED = """import culpa"""  # what must fail before the first cell


@pytest.mark.parametrize("lab", ["measure-the-cost", "build-check-train"])
def test_a_labs_first_cell_installs_culpa_from_the_site_and_the_lab_runs(served_site, tmp_path, lab):
    python = make_venv(tmp_path / "venv")
    borrowed = sysconfig.get_paths()["purelib"]  # Jupyter, numpy, matplotlib: not culpa (see above)
    site_packages = next((tmp_path / "venv" / "lib").glob("python*/site-packages"))
    (site_packages / "borrowed.pth").write_text(borrowed + "\n", encoding="utf-8")
    before = subprocess.run(
        [str(python), "-I", "-c", BORROWED], capture_output=True, text=True, env=clean_env()
    )
    assert before.returncode != 0 and "No module named 'culpa'" in before.stderr, "culpa is already there"
    notebook = served_site.dir / "labs" / lab / f"{lab}.ipynb"
    if not notebook.is_file():
        notebook = next((served_site.dir / "labs" / lab).glob("*.ipynb"))
    work = tmp_path / "reader"
    work.mkdir()
    script = (
        "import sys, nbformat, nbclient\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "nbclient.NotebookClient(nb, kernel_name='python3', timeout=600,"
        " resources={'metadata': {'path': '.'}}).execute()\n"
        "first = nb.cells[[c.cell_type for c in nb.cells].index('code')]\n"
        "print(first.source)\n"
    )
    env = clean_env()
    env.pop("MPLBACKEND")
    proc = subprocess.run(
        [str(python), "-c", script, str(notebook)],
        cwd=work, capture_output=True, text=True, env=env, timeout=900,
    )
    assert proc.returncode == 0, f"labs/{lab}: the notebook did not run from the site:\n{proc.stderr[-3000:]}"
    assert f'site = "{served_site.base}"' in proc.stdout, f"the first cell installs from {proc.stdout}"
    where = subprocess.run(
        [str(python), "-I", "-c", "import culpa; print(culpa.__file__)"],
        cwd=work, capture_output=True, text=True, env=clean_env(),
    )
    assert where.stdout.startswith(str(tmp_path / "venv")), f"culpa came from {where.stdout or where.stderr}"
