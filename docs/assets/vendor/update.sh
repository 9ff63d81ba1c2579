#!/usr/bin/env bash
# Re-creates the vendored front-end assets from the npm registry (never a CDN).
# Versions are pinned here and recorded in VENDORED.md beside this script.
#   KaTeX   -> docs/assets/vendor/katex/   (katex.min.js typesets at build time, docs/hooks/katex_render.py;
#              the site serves its CSS, fonts and contrib/copy-tex.min.js)
#   axe-core -> tests/vendor/axe-core/     (injected by the browser tests only)
set -euo pipefail
KATEX_VERSION=0.19.1
AXE_VERSION=4.14.1
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
echo "vendored katex@$KATEX_VERSION and axe-core@$AXE_VERSION"
