"""culpa's wheel, as the site build makes it (steps/wheel.py), holds exactly this repository's culpa.

The site serves that wheel at <site_url>culpa/<name> (the install command of every page) and the Run
buttons load it into Pyodide; tests/browser/test_install_from_site.py installs it from the served site.
"""

from __future__ import annotations

import email
import re
import shutil
import tomllib
import zipfile
from pathlib import Path

import pytest

from sitebuild.steps import wheel as wheel_hook
from support.pages import ROOT

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
    version = wheel_hook.wheel_version(ROOT)
    assert re.fullmatch(re.escape(project["version"]) + r"\+[0-9a-f]{12}", version), version
    assert wheel.name == f"culpa-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        meta_name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(z.read(meta_name))
    assert (meta["Name"], meta["Version"]) == ("culpa", version)
    required = [r for r in meta.get_all("Requires-Dist") if "extra ==" not in r]
    assert required == project["dependencies"], f"{wheel.name} requires {required}"
    assert meta["Requires-Python"] == project["requires-python"]


def test_the_wheel_is_rebuilt_when_culpa_changes_and_only_then(tmp_path):
    project = tmp_path / "project"
    for name in ("pyproject.toml", "LICENSE"):
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
    assert second.name != first.name, "a changed culpa must give a new version, so that pip replaces it"
    assert wheel_sources(second) == repository_sources(project / "snippets" / "culpa")


def test_the_wheel_carries_the_licence_file(wheel):
    """The wheel is MIT as pyproject says, and carries the repository's LICENSE: in its .dist-info, named by
    a License-File line of METADATA (RECORD's hash of it: the test below)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert project["license"] == {"text": "MIT"} and licence.startswith("MIT License\n"), (
        "pyproject.toml says MIT: the top-level LICENSE must be the MIT text"
    )
    assert "Copyright (c) 2026 the Backpropagation, visualized authors" in licence
    with zipfile.ZipFile(wheel) as z:
        info = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA")).rsplit("/", 1)[0]
        meta = email.message_from_bytes(z.read(f"{info}/METADATA"))
        named = meta.get_all("License-File") or []
        assert named == ["LICENSE"], f"{wheel.name}: METADATA names the licence files {named}, not LICENSE"
        assert f"{info}/LICENSE" in z.namelist(), f"{wheel.name}: no {info}/LICENSE"
        assert z.read(f"{info}/LICENSE") == (ROOT / "LICENSE").read_bytes(), (
            f"{wheel.name}: its LICENSE is not the repository's"
        )
    assert meta["License"] == "MIT"


def test_a_changed_licence_gives_a_new_wheel(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "LICENSE"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(PACKAGE, project / "snippets" / "culpa", ignore=shutil.ignore_patterns("__pycache__"))
    wheel_hook.build_wheel(project, tmp_path / "cache")
    (project / "LICENSE").write_text("MIT License\n\nCopyright (c) 2027 someone else\n", encoding="utf-8")
    second = wheel_hook.build_wheel(project, tmp_path / "cache")
    with zipfile.ZipFile(second) as z:
        carried = next(z.read(n) for n in z.namelist() if n.endswith(".dist-info/LICENSE"))
    assert carried == (project / "LICENSE").read_bytes(), "the cached wheel kept the old LICENSE"
    (project / "LICENSE").unlink()
    with pytest.raises(wheel_hook.PluginError, match="LICENSE"):
        wheel_hook.build_wheel(project, tmp_path / "cache")


def test_the_same_source_gives_the_same_wheel_bytes(tmp_path):
    first = wheel_hook.build_wheel(ROOT, tmp_path / "a").read_bytes()
    assert wheel_hook.build_wheel(ROOT, tmp_path / "b").read_bytes() == first


def test_the_wheel_records_every_file_with_its_hash(wheel):
    import base64
    import hashlib

    with zipfile.ZipFile(wheel) as z:
        record_name = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
        rows = [line.split(",") for line in z.read(record_name).decode().splitlines()]
        recorded = {name: (digest, size) for name, digest, size in rows}
        assert sorted(recorded) == sorted(z.namelist())
        for name in z.namelist():
            if name == record_name:
                continue
            data = z.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert recorded[name] == (f"sha256={digest}", str(len(data))), name
        wheel_meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))).decode()
    assert "Root-Is-Purelib: true" in wheel_meta and "Tag: py3-none-any" in wheel_meta


class _Config(dict):
    """What the wheel hook reads of MkDocs' config: site_url and where mkdocs.yml is."""

    def __getattr__(self, name):
        return self[name]


@pytest.mark.parametrize(
    ("site_url", "repository", "complaints"),
    [
        ("http://127.0.0.1:8000/", "", ["an address on the builder's own machine", "names the folder"]),
        ("http://localhost/culpa/", "https://github.com/o/r", ["an address on the builder's own machine"]),
        ("https://o.github.io/r/", "", ["names the folder"]),
        ("https://o.github.io/r/", "https://github.com/o/r", []),
    ],
)
def test_a_published_build_refuses_a_loopback_url_and_a_folder(monkeypatch, site_url, repository, complaints):
    for name in ("CULPA_REPOSITORY_URL", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "CULPA_LOCAL_BUILD"):
        monkeypatch.delenv(name, raising=False)
    if repository:
        monkeypatch.setenv("CULPA_REPOSITORY_URL", repository)
    monkeypatch.setenv("CI", "true")
    config = _Config(site_url=site_url, config_file_path=str(ROOT / "mkdocs.yml"))
    problems = wheel_hook.published_problems(config)
    assert len(problems) == len(complaints) and all(
        c in p for c, p in zip(complaints, problems, strict=True)
    ), problems
    if complaints:
        with pytest.raises(wheel_hook.PluginError, match="the page 03-worked-example.md would be published"):
            wheel_hook.refuse_unpublishable("the page 03-worked-example.md", config, "build")
    wheel_hook.refuse_unpublishable("a served page", config, "serve")  # mkdocs serve publishes nothing
    monkeypatch.setenv("CULPA_LOCAL_BUILD", "1")
    wheel_hook.refuse_unpublishable("a test's local build", config, "build")


def test_installing_again_after_culpa_changed_replaces_the_old_code(tmp_path):
    """A reader runs the page's install command, culpa changes, the reader runs it again: pip must install
    the new code (a wheel that kept its version would be 'already satisfied', the old code kept)."""
    import subprocess
    import sys

    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "LICENSE"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(PACKAGE, project / "snippets" / "culpa", ignore=shutil.ignore_patterns("__pycache__"))
    first = wheel_hook.build_wheel(project, tmp_path / "cache")
    init = project / "snippets" / "culpa" / "__init__.py"
    changed = init.read_text(encoding="utf-8") + "\nCHANGED_SINCE = 'the second build'\n"
    init.write_text(changed, encoding="utf-8")
    second = wheel_hook.build_wheel(project, tmp_path / "cache")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q"]
    for wheel in (first, second):
        proc = subprocess.run([*pip, str(wheel)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    probe = "import importlib.util as u, pathlib as p; print(p.Path(u.find_spec('culpa').origin).read_text())"
    # -I: the venv's own culpa, whatever PYTHONPATH the suite runs with (snippets/ on it would answer instead)
    installed = subprocess.run([str(python), "-I", "-c", probe], capture_output=True, text=True,
                               timeout=60).stdout
    assert "CHANGED_SINCE" in installed, "installing the changed culpa's wheel kept the old code"
