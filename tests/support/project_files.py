"""The project's own files: what git tracks, vendored files aside (they are not ours to hold to our rules)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sitebuild.project import ROOT


def own_text_files(suffixes: set[str]) -> list[Path]:
    """Every tracked file whose suffix is in `suffixes` ("" for a file without one, such as .ci/run), in the
    order git lists them, but those under a vendor/ folder."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / name for name in listed.stdout.split()
            if Path(name).suffix in suffixes and "vendor" not in Path(name).parts]
