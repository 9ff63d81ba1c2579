"""culpa's wheel, as the site build makes it (docs/hooks/wheel.py), holds exactly this repository's culpa.

The site serves that wheel at <site_url>culpa/<name> (the install command of every page) and the Run
buttons load it into Pyodide; tests/browser/test_install_from_site.py installs it from the served site.
"""

from __future__ import annotations

import email
import shutil
import tomllib
import zipfile
from pathlib import Path

import pytest

from support.pages import ROOT, _load_hook

wheel_hook = _load_hook("wheel")
PACKAGE = ROOT / "snippets" / "culpa"


def repository_sources(package: Path = PACKAGE) -> dict[str, bytes]:
    return {
        f"culpa/{p.relative_to(package).as_posix()}": p.read_bytes()
        for p in sorted(package.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def wheel_sources(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as z:
        return {n: z.read(n) for n in z.namelist() if n.startswith("culpa/") and n.endswith(".py")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return wheel_hook.build_wheel(ROOT, tmp_path_factory.mktemp("wheel-cache"))


def test_the_wheel_holds_exactly_the_repository_culpa(wheel):
    inside, repo = wheel_sources(wheel), repository_sources()
    assert sorted(inside) == sorted(repo), (
        f"{wheel.name}: its culpa modules {sorted(inside)} are not the repository's {sorted(repo)}"
    )
    differ = [name for name in repo if inside[name] != repo[name]]
    assert not differ, f"{wheel.name}: these modules differ from snippets/{', snippets/'.join(differ)}"


def test_the_wheel_is_culpa_as_pyproject_describes_it(wheel):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert wheel.name == f"culpa-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        meta_name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(z.read(meta_name))
    assert (meta["Name"], meta["Version"]) == ("culpa", project["version"])
    required = [r for r in meta.get_all("Requires-Dist") if "extra ==" not in r]
    assert required == project["dependencies"], f"{wheel.name} requires {required}"
    assert meta["Requires-Python"] == project["requires-python"]


def test_the_wheel_is_rebuilt_when_culpa_changes_and_only_then(tmp_path):
    project = tmp_path / "project"
    for name in ("pyproject.toml", "README.md"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(PACKAGE, project / "snippets" / "culpa", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    first = wheel_hook.build_wheel(project, cache)
    made = first.stat().st_mtime_ns
    assert wheel_hook.build_wheel(project, cache) == first and first.stat().st_mtime_ns == made, (
        "an unchanged culpa must not be rebuilt"
    )
    tensor = project / "snippets" / "culpa" / "tensor.py"
    tensor.write_text(tensor.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    second = wheel_hook.build_wheel(project, cache)
    assert second != first, "a changed culpa must give a new wheel"
    assert wheel_sources(second) == repository_sources(project / "snippets" / "culpa")
