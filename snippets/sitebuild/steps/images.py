"""Images that cost no layout shift and no bytes before they are needed.

on_page_content, on every page (after the notebooks step has moved a lab's figures out of its HTML):
- every <img> of a page's content gets its width and height (a figure's SVG says them, in pt; an image
  output of a notebook has them already), so the browser keeps its place before it arrives;
- every image below the first screen gets loading="lazy" (and decoding="async"); one that starts within
  the first ABOVE_THE_FOLD characters of the page's text stays eager: it is likely on the first screen.
An <img> whose size cannot be found fails the build, naming the page and the image.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

ABOVE_THE_FOLD = 600  # characters of text before an image that a phone's first screen still shows
IMG = re.compile(r"<img\b[^>]*?/?>", re.I)
ATTR = re.compile(r"""\b(?P<name>[a-z-]+)\s*=\s*(?P<q>["'])(?P<value>.*?)(?P=q)""", re.I | re.S)
SVG_SIZE = re.compile(r"<svg\b[^>]*>", re.S)
LENGTH = re.compile(r"^\s*([0-9.]+)\s*(px|pt)?\s*$")
TAG = re.compile(r"<[^>]+>")
PX_PER = {"px": 1.0, "pt": 4 / 3, None: 1.0}


class ImageError(PluginError):
    pass


def _px(value: str | None) -> int | None:
    m = LENGTH.match(value or "")
    return round(float(m.group(1)) * PX_PER[m.group(2)]) if m else None


def svg_size(path: Path) -> tuple[int, int] | None:
    head = path.read_text(encoding="utf-8", errors="replace")[:4000]
    tag = SVG_SIZE.search(head)
    if tag is None:
        return None
    attrs = {a.group("name").lower(): a.group("value") for a in ATTR.finditer(tag.group(0))}
    width, height = _px(attrs.get("width")), _px(attrs.get("height"))
    if width and height:
        return width, height
    box = attrs.get("viewbox", "").split()
    return (round(float(box[2])), round(float(box[3]))) if len(box) == 4 else None


def _source(src: str, page, files) -> Path | None:
    if re.match(r"^(?:[a-z][a-z0-9+.-]*:|/)", src, re.I):
        return None
    folder = page.url if page.url.endswith("/") else posixpath.dirname(page.url)  # "" for the home page
    url = posixpath.normpath(posixpath.join(folder, src)).lstrip("/")
    for file in files:
        if file.url == url:
            return Path(file.abs_src_path)
    return None


def sized_and_lazy(html: str, page, files) -> str:
    out, last, text_before = [], 0, 0
    for m in IMG.finditer(html):
        text_before += len(TAG.sub("", html[last : m.start()]).strip())
        tag = m.group(0)
        attrs = {a.group("name").lower(): a.group("value") for a in ATTR.finditer(tag)}
        extra = []
        if not (attrs.get("width") and attrs.get("height")):
            src = attrs.get("src", "")
            path = _source(src, page, files)
            size = svg_size(path) if path is not None and path.suffix == ".svg" and path.is_file() else None
            if size is None:
                raise ImageError(f"{page.file.src_uri}: the image {src[:80]!r} has no width and height, and "
                                 "its size cannot be read (a figure is an SVG under figures/)")
            extra += [f'width="{size[0]}"', f'height="{size[1]}"']
        if "loading" not in attrs:
            below = text_before >= ABOVE_THE_FOLD
            extra.append('loading="lazy" decoding="async"' if below else 'loading="eager"')
        end = len(tag) - (2 if tag.endswith("/>") else 1)
        out += [html[last : m.start()], tag[:end].rstrip() + " " + " ".join(extra) + tag[end:]]
        last = m.end()
    out.append(html[last:])
    return "".join(out)


def on_page_content(html: str, page, files) -> str:
    return sized_and_lazy(html, page, files)
