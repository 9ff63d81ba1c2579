"""culpa's wheel, built from this repository by every site build and served by the site; the install command.

1. on_config builds `culpa-<version>-py3-none-any.whl` from pyproject.toml, README.md and snippets/culpa/
   (`pip wheel --no-deps --no-build-isolation` in a scratch copy, so the repository gets no build/ or
   egg-info), cached in .cache/wheel/<hash of those files>/: an unchanged source builds nothing. A failed
   build fails the site build with pip's output.
2. on_page_markdown fills in the placeholders of the pages (code fences included):
   `@CULPA_WHEEL_URL@` -> <site_url>culpa/culpa-<version>-py3-none-any.whl, the address the site serves
   the wheel at (a local build shows the local URL, the Pages build its Pages URL), and
   `@CULPA_REPOSITORY@` -> the repository to clone: $CULPA_REPOSITORY_URL, which the Pages workflow sets
   to github.server_url/github.repository (in any other GitHub Actions step,
   $GITHUB_SERVER_URL/$GITHUB_REPOSITORY), otherwise this clone's own folder (a local build can only
   honestly name the repository it was built from). `repo_url` stays unset: Material would then ask a
   third-party API for the repository's stars on every page view.
3. on_post_build writes the wheel to <site>/culpa/, and fills the placeholders in what did not go through
   Markdown (the labs' executed notebooks and their HTML, the search index). A placeholder left anywhere in
   the built site fails the build, naming the file.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from urllib.parse import urljoin

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

log = logging.getLogger("mkdocs.hooks.wheel")

SITE_FOLDER = "culpa"  # <site>/culpa/<wheel>
PLACEHOLDER_NAMES = ("CULPA_WHEEL_URL", "CULPA_REPOSITORY")  # written @NAME@
TEXT_SUFFIXES = (".html", ".ipynb", ".json", ".xml", ".txt", ".js", ".md")

_built: dict[str, Path] = {}  # source hash -> wheel, for the second language's build
_current: list[Path] = []  # the wheel of this build, for on_post_build


def project_root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def wheel_name(root: Path) -> str:
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return f"{project['name'].replace('-', '_')}-{project['version']}-py3-none-any.whl"


def source_files(root: Path) -> list[Path]:
    """What the wheel is made of: the project's metadata and culpa's package."""
    package = sorted(
        p for p in (root / "snippets" / "culpa").rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    return [root / "pyproject.toml", root / "README.md", *package]


def source_key(root: Path) -> str:
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for path in source_files(root):
        data = path.read_bytes()
        digest.update(
            path.relative_to(root).as_posix().encode() + b"\0" + len(data).to_bytes(8, "big") + data
        )
    return digest.hexdigest()


def build_wheel(root: Path, cache: Path) -> Path:
    """The wheel of the project at `root`, built once per source hash."""
    key = source_key(root)
    name = wheel_name(root)
    out = cache / key[:20]
    wheel = out / name
    if wheel.is_file():
        return wheel
    with tempfile.TemporaryDirectory(prefix="culpa-wheel-") as scratch:
        copy = Path(scratch) / "project"
        for path in source_files(root):
            target = copy / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        dist = Path(scratch) / "dist"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "--no-index",
                "--quiet",
                "--wheel-dir",
                str(dist),
                str(copy),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        made = dist / name
        if proc.returncode != 0 or not made.is_file():
            raise PluginError(
                f"docs/hooks/wheel.py: building culpa's wheel ({name}) from pyproject.toml and "
                f"snippets/culpa failed (pip wheel exit {proc.returncode}; is setuptools installed in "
                f"this environment?):\n"
                f"{proc.stdout}\n{proc.stderr}"
            )
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy2(made, wheel)
    log.info("built %s (%s)", name, key[:12])
    return wheel


def wheel_url(config) -> str:
    return urljoin(config.site_url or "/", f"{SITE_FOLDER}/{wheel_name(project_root(config))}")


def repository(root: Path) -> str:
    if os.environ.get("CULPA_REPOSITORY_URL"):  # the Pages workflow: github.server_url/github.repository
        return os.environ["CULPA_REPOSITORY_URL"]
    server, repo = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    if server and repo:
        return f"{server.rstrip('/')}/{repo}"
    return str(root)


def fill(text: str, config) -> str:
    return text.replace("@CULPA_WHEEL_URL@", wheel_url(config)).replace(
        "@CULPA_REPOSITORY@", repository(project_root(config))
    )


def on_config(config):
    if not config.site_url:
        raise PluginError("docs/hooks/wheel.py: site_url is empty; the install command is built from it")
    root = project_root(config)
    key = source_key(root)
    if key not in _built:
        _built[key] = build_wheel(root, root / ".cache" / "wheel")
    _current[:] = [_built[key]]
    return config


def on_page_markdown(markdown, page, config, files):
    return fill(markdown, config)


@event_priority(
    -250
)  # after the i18n plugin (-100) built every language and the search index was split (-200)
def on_post_build(config):
    site = Path(config.site_dir)
    wheel = _current[0]
    target = site / SITE_FOLDER / wheel.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(wheel, target)
    left = []
    for path in site.rglob("*"):
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES or "assets" in path.relative_to(site).parts:
            continue
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if not any(name in text for name in PLACEHOLDER_NAMES):
            continue
        filled = fill(text, config)
        if filled != text:
            path.write_text(filled, encoding="utf-8", errors="surrogateescape")
        # a placeholder that highlighting split into tokens cannot be filled: it would show as code
        if any(name in filled for name in PLACEHOLDER_NAMES):
            left.append(path.relative_to(site).as_posix())
    if left:
        raise PluginError(
            "docs/hooks/wheel.py: a placeholder (@CULPA_WHEEL_URL@ or @CULPA_REPOSITORY@) is left "
            f"unfilled in the built site, in {', '.join(sorted(left))}: write it whole, in a code fence "
            "or in a string"
        )
