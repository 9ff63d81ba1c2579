"""culpa's wheel, built from this repository by every site build and served by the site; the install command.

1. on_config (Wheel.build) writes `culpa-<version>+<content>-py3-none-any.whl` (wheel_version: a new name
   whenever culpa's code changes, so that installing again replaces it) from pyproject.toml's [project],
   the modules of snippets/culpa/ and the top-level LICENSE (in its .dist-info, named by License-File), with
   the standard library (zipfile; culpa is pure Python, so no build backend is needed and a fresh venv builds
   the site), cached in .cache/wheel/<hash of those files>/: an
   unchanged source writes nothing. The same source gives the same bytes.
2. on_page_markdown (Wheel.fill_page) fills in the placeholders of the pages (code fences included):
   `@CULPA_WHEEL_URL@` -> <site_url>culpa/culpa-<version>+<content>-py3-none-any.whl, the address the
   site serves the wheel at (a local build shows the local URL, the Pages build its Pages URL), and
   `@CULPA_SITE_URL@` and `@CULPA_WHEEL_NAME@` -> the same address in two parts (<site_url>, and the
   wheel's file name, served under culpa/), for a lab's first cell, whose lines must fit 80 columns;
   `@CULPA_REPOSITORY@` -> the repository to clone: $CULPA_REPOSITORY_URL, which the Pages workflow sets
   to github.server_url/github.repository (in any other GitHub Actions step,
   $GITHUB_SERVER_URL/$GITHUB_REPOSITORY), otherwise this clone's own folder (a local build can only
   honestly name the repository it was built from). A build that would be published (CI=true or
   GITHUB_ACTIONS=true, without CULPA_LOCAL_BUILD=1) fails, naming the page, when the install URL is a
   loopback address or the repository is a folder. `repo_url` stays unset: Material would then ask a
   third-party API for the repository's stars on every page view.
3. on_post_build (Wheel.publish) writes the wheel to <site>/culpa/, and fills the placeholders in what did not
   go through Markdown (the labs' executed notebooks and their HTML, the search index). A placeholder left
   anywhere in the built site fails the build, naming the file.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import shutil
import tomllib
import zipfile
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from mkdocs.exceptions import PluginError

from sitebuild.project import WHEEL_FOLDER, Project, content_key

log = logging.getLogger("mkdocs.plugins.sitebuild.wheel")

# written @NAME@; a lab's first cell builds the URL from the last two, so that no line passes 80 columns
PLACEHOLDER_NAMES = ("CULPA_WHEEL_URL", "CULPA_REPOSITORY", "CULPA_SITE_URL", "CULPA_WHEEL_NAME")
TEXT_SUFFIXES = (".html", ".ipynb", ".json", ".xml", ".txt", ".js", ".md")


def wheel_version(root: Path) -> str:
    """pyproject's version with a local label made from the content of culpa's modules: 0.1.0+3f9a1c2b7d4e.

    A reader who installed culpa from the site and runs the page's install command again after culpa
    changed gets the new code: pip replaces an installed 0.1.0+<old> with 0.1.0+<new>, where a wheel that
    kept the name 0.1.0 would be "already satisfied" and the old code kept without a word."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return f"{project['version']}+{content_key(Project(root).culpa_sources())[:12]}"


def wheel_name(root: Path) -> str:
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return f"{project['name'].replace('-', '_')}-{wheel_version(root)}-py3-none-any.whl"


LICENSE_FILE = "LICENSE"  # the repository's top-level licence (MIT), carried in the wheel's .dist-info


def source_files(root: Path) -> list[Path]:
    """What the wheel is made of: the project's metadata, its licence and culpa's source."""
    return [root / "pyproject.toml", root / LICENSE_FILE, *Project(root).culpa_sources()]


def source_key(root: Path) -> str:
    return content_key([Path(__file__), *source_files(root)])


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel_files(root: Path) -> dict[str, bytes]:
    """The wheel's files, name -> bytes: culpa's modules and the .dist-info that pip reads (PEP 427, PEP 566).

    culpa is pure Python with one dependency, so the wheel is written here with the standard library
    rather than by a build backend: the site build then needs nothing that the project does not declare
    (a fresh venv of Python 3.11 has a setuptools too old to build wheels, those of 3.12 and 3.13 none).
    """
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name, version = project["name"].replace("-", "_"), wheel_version(root)
    info = f"{name}-{version}.dist-info"
    files = {
        f"culpa/{p.relative_to(root / 'snippets' / 'culpa').as_posix()}": p.read_bytes()
        for p in Project(root).culpa_sources()
    }
    metadata = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {version}",
        f"Summary: {project['description']}",
        f"License: {project.get('license', {}).get('text', '')}",
        f"License-File: {LICENSE_FILE}",
        f"Requires-Python: {project['requires-python']}",
        *(f"Requires-Dist: {requirement}" for requirement in project.get("dependencies", [])),
    ]
    files[f"{info}/METADATA"] = ("\n".join(metadata) + "\n").encode()
    # where setuptools puts a License-File of Metadata 2.1: the .dist-info's own folder, under its name
    files[f"{info}/{LICENSE_FILE}"] = (root / LICENSE_FILE).read_bytes()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: culpa-site (sitebuild/steps/wheel.py)\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n"
    )
    files[f"{info}/top_level.txt"] = b"culpa\n"
    record = "".join(f"{n},{_record_hash(d)},{len(d)}\n" for n, d in files.items())
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    return files


def write_wheel(files: dict[str, bytes], target: Path) -> None:
    """A zip with a fixed date and mode per entry, so that the same source gives the same bytes."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)


def build_wheel(root: Path, cache: Path) -> Path:
    """The wheel of the project at `root`, written once per source hash."""
    try:
        key, name = source_key(root), wheel_name(root)
        out = cache / key[:20]
        wheel = out / name
        if wheel.is_file():
            return wheel
        files = wheel_files(root)
    except (OSError, KeyError, tomllib.TOMLDecodeError) as error:
        raise PluginError(
            f"sitebuild/steps/wheel.py: cannot write culpa's wheel from pyproject.toml, {LICENSE_FILE} and "
            f"snippets/culpa: {type(error).__name__}: {error}. pyproject.toml's [project] needs name, "
            "version, description, requires-python and dependencies; the wheel carries the top-level "
            f"{LICENSE_FILE}."
        ) from error
    out.mkdir(parents=True, exist_ok=True)
    partial = out / (name + ".part")
    write_wheel(files, partial)
    partial.replace(wheel)
    log.info("built %s (%s)", name, key[:12])
    return wheel


def wheel_url(config) -> str:
    return urljoin(config.site_url or "/", f"{WHEEL_FOLDER}/{wheel_name(Project.of(config).root)}")


def repository(root: Path) -> str:
    if os.environ.get("CULPA_REPOSITORY_URL"):  # the Pages workflow: github.server_url/github.repository
        return os.environ["CULPA_REPOSITORY_URL"]
    server, repo = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    if server and repo:
        return f"{server.rstrip('/')}/{repo}"
    return str(root)


LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}


def published_build(command: str) -> bool:
    """A `mkdocs build` under CI=true or GITHUB_ACTIONS=true is the one that gets published, unless it says
    that it is a local copy (CULPA_LOCAL_BUILD=1: the test suite's builds, served on 127.0.0.1 and thrown
    away). `mkdocs serve` publishes nothing."""
    in_ci = any(os.environ.get(name, "").lower() in ("true", "1") for name in ("CI", "GITHUB_ACTIONS"))
    return in_ci and command != "serve" and os.environ.get("CULPA_LOCAL_BUILD") != "1"


def published_problems(config) -> list[str]:
    """What a published page must not show: a loopback install URL, a folder as the repository to clone."""
    problems = []
    host = urlsplit(wheel_url(config)).hostname or ""
    if host in LOOPBACK_HOSTS or host.startswith("127."):
        problems.append(
            f"the install command points at {wheel_url(config)}, an address on the builder's own machine: "
            "set SITE_URL to the published address (the Pages workflow takes it from configure-pages)"
        )
    repo = repository(Project.of(config).root)
    if urlsplit(repo).scheme not in ("https", "http", "ssh", "git"):
        problems.append(
            f"the clone command names the folder {repo}, not a repository URL: set CULPA_REPOSITORY_URL "
            "(the Pages workflow sets it to github.server_url/github.repository)"
        )
    return problems


def refuse_unpublishable(where: str, config, command: str) -> None:
    if not published_build(command):
        return
    problems = published_problems(config)
    if problems:
        raise PluginError(
            f"sitebuild/steps/wheel.py: {where} would be published (CI or GITHUB_ACTIONS is true) but "
            + "; and ".join(problems)
            + ". A local build for tests sets CULPA_LOCAL_BUILD=1."
        )


def fill(text: str, config) -> str:
    root = Project.of(config).root
    return (text.replace("@CULPA_WHEEL_URL@", wheel_url(config))
            .replace("@CULPA_REPOSITORY@", repository(root))
            .replace("@CULPA_SITE_URL@", urljoin(config.site_url or "/", "."))
            .replace("@CULPA_WHEEL_NAME@", wheel_name(root)))


class Wheel:
    """The step: the wheel of this build (made once per source, kept across `mkdocs serve` rebuilds)."""

    def __init__(self, command: str):
        self.command = command  # build, serve or gh-deploy
        self.built: dict[str, Path] = {}  # source hash -> wheel, for the second language's build
        self.current: Path | None = None

    @property
    def name(self) -> str:
        return self.current.name

    @property
    def path(self) -> str:
        """The wheel's path from the site's root: Run's and the explorers' Python in the page load it."""
        return f"{WHEEL_FOLDER}/{self.name}"

    def build(self, config, project: Project) -> None:
        if not config.site_url:
            raise PluginError("sitebuild/steps/wheel.py: site_url is empty; the install command needs it")
        key = source_key(project.root)
        if key not in self.built:
            self.built[key] = build_wheel(project.root, project.cache("wheel"))
        self.current = self.built[key]

    def fill(self, text: str, config) -> str:
        return fill(text, config)

    def fill_page(self, markdown: str, page, config) -> str:
        if any(f"@{name}@" in markdown for name in PLACEHOLDER_NAMES):
            refuse_unpublishable(f"the page {page.file.src_uri}", config, self.command)
        return fill(markdown, config)

    def publish(self, config) -> None:
        """After every language is built: the wheel at <site>/culpa/, every placeholder left filled."""
        site = Path(config.site_dir)
        target = site / WHEEL_FOLDER / self.current.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(self.current, target)
        left = []
        for path in site.rglob("*"):
            if (not path.is_file() or path.suffix not in TEXT_SUFFIXES
                    or "assets" in path.relative_to(site).parts):
                continue
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            if not any(name in text for name in PLACEHOLDER_NAMES):
                continue
            refuse_unpublishable(path.relative_to(site).as_posix(), config, self.command)
            filled = fill(text, config)
            if filled != text:
                path.write_text(filled, encoding="utf-8", errors="surrogateescape")
            # a placeholder that highlighting split into tokens cannot be filled: it would show as code
            if any(name in filled for name in PLACEHOLDER_NAMES):
                left.append(path.relative_to(site).as_posix())
        if left:
            raise PluginError(
                "sitebuild/steps/wheel.py: a placeholder (@" + "@, @".join(PLACEHOLDER_NAMES) + "@) is left "
                f"unfilled in the built site, in {', '.join(sorted(left))}: write it whole, in a code fence "
                "or in a string"
            )
