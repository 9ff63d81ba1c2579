"""The third-party code the build patches is pinned to the version each patch was written for, the same in
snippets/sitebuild/patches.py, pyproject.toml and .github/constraints.txt. (Each patch's effect is tested
where it shows: tests/test_rebuild_cache.py, tests/test_budgets.py, tests/browser/test_material_start.py.)"""

from __future__ import annotations

import re
import tomllib

from sitebuild import patches
from support.pages import ROOT


def test_the_patched_packages_are_pinned_alike_everywhere():
    docs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = dict(re.fullmatch(r"([\w-]+)==(\S+)", r).groups() for r in docs["optional-dependencies"]["docs"]
                  if "==" in r)
    constraints = dict(line.split("==") for line in (ROOT / ".github" / "constraints.txt").read_text(
        encoding="utf-8").splitlines() if "==" in line and not line.startswith("#"))
    for package, version in patches.PINNED.items():
        assert pinned.get(package) == version, f"pyproject.toml pins {package} {pinned.get(package)}"
        assert constraints.get(package) == version, f"constraints.txt: {package} {constraints.get(package)}"


def test_the_installed_versions_are_the_pinned_ones():
    patches.check_versions()  # raises, naming the package, otherwise
