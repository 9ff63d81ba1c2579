"""The facts every part of the build shares, each written once.

- Where things are: the project's root (the folder of mkdocs.yml), its caches, culpa's source.
- What "culpa's source" is: every .py file under snippets/culpa/ (no __pycache__); the wheel is made of it,
  and every cache of something that runs culpa (figures, explorers, labs) is keyed on it.
- How a cache key is made: `content_key` hashes named files and texts, each length-prefixed.
- The pinned environment of anything that measures time: one thread for every BLAS, glibc's allocator told
  to keep big temporaries (figures measured in a fresh process, the labs' kernel).
- Where the site serves culpa's wheel: WHEEL_FOLDER (run_blocks hands the whole path to assets/run/run.js
  and worker.js, which hold no copy of it).

A build works on the project whose mkdocs.yml it reads (`Project.of(config)`): the test suite builds copies
of the repository, with the copy's snippets/ first on PYTHONPATH (tests/support/site.py).
"""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # this repository: snippets/sitebuild/project.py
LANGS = ("pt", "en")  # pt first: the site's default language, at its root
WHEEL_FOLDER = "culpa"  # <site>/culpa/<culpa's wheel>


def page_language(page) -> str:
    """The language of a page: the folder of docs/ it lives in (docs/pt/..., docs/en/...)."""
    lang = page.file.src_uri.split("/", 1)[0]
    if lang not in LANGS:
        from mkdocs.exceptions import PluginError  # here: the explorers import this module in Pyodide too

        raise PluginError(f"{page.file.src_uri} is in no language folder of docs/ ({', '.join(LANGS)}), so "
                          "the build has none of its words for it")
    return lang


@dataclass(frozen=True)
class Project:
    """The project a build works on: paths below its root."""

    root: Path = ROOT

    @classmethod
    def of(cls, config) -> Project:
        return cls(Path(config.config_file_path).resolve().parent)

    @property
    def snippets(self) -> Path:
        return self.root / "snippets"

    @property
    def culpa(self) -> Path:
        return self.snippets / "culpa"

    def cache(self, name: str) -> Path:
        """.cache/<name>: what a build keeps for the next one (never committed, never under docs/)."""
        return self.root / ".cache" / name

    def culpa_sources(self) -> list[Path]:
        return culpa_sources(self.culpa)


def culpa_sources(package: Path | None = None) -> list[Path]:
    """culpa's source: every module of the package, in a fixed order."""
    package = package or ROOT / "snippets" / "culpa"
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def versions(*packages: str) -> dict[str, str]:
    """Python's version and those of `packages` (a cache key's part: another numpy can draw otherwise)."""
    import importlib.metadata  # here, not at the top: the explorers import this module in the reader's page

    found = {"python": platform.python_version()}
    for package in packages:
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = "-"
    return found


def content_key(files: Iterable[Path], *texts: str) -> str:
    """The hash of files (by name and content) and texts: a cache entry made from them is current while it
    is the same. Each part is length-prefixed, so no two different inputs run together alike."""
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(label.encode() + b"\0" + len(data).to_bytes(8, "big") + data)

    for path in files:
        add(Path(path).name, Path(path).read_bytes())
    for text in texts:
        add("text", text.encode())
    return digest.hexdigest()


def __getattr__(name: str):
    """PINNED_ENV: anything that measures time (figures marked TIMING, the labs' kernel) runs in culpa's
    pinned environment (one BLAS thread, glibc keeping freed memory), whose one home is culpa.benchmark.
    Imported when asked for: culpa.benchmark needs an OS thread clock, which the explorers' Python in the
    reader's browser (Pyodide) has not, and they import this module for its paths and languages."""
    if name == "PINNED_ENV":
        from culpa.benchmark import PINNED_ENV

        return PINNED_ENV
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
