"""The labs' figures on a built page: each <picture>, its phone drawing, and how large its text shows.

A lab's figure is a PNG next to its page; the build serves narrow screens its phone drawing through a
<picture> source (snippets/sitebuild/steps/notebooks.py, drawn by snippets/sitebuild/lab_phone.py). The
size a reader sees a text at, in CSS px, follows from the drawing alone and the width it is shown at:

    font size (pt) / 72 x the drawing's pixels per inch (its PNG's pHYs) x shown width / its width in pixels

The phone drawing's PNG records the size of its smallest text (lab_phone.SMALLEST_TEXT_KEY); a drawing without
that record (the desktop one, say) cannot be shown to read, and counts as unreadable.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from html import unescape

from sitebuild import lab_phone

MIN_TEXT_PX = 9.0  # CSS px: the smallest text a reader should have to read on a phone
PHONE_SCREEN = 390  # CSS px: the phone the rule is measured on (390 x 844)
# The width a lab's figure may take on that phone: Material's column (0.8 rem a side) in the notebook's output
# area. tests/browser/test_lab_figures_in_browser.py measures it and fails when the page gives less.
COLUMN_AT_390 = 358

PICTURE = re.compile(r"<picture>(?P<inner>.*?)</picture>", re.S)
IMG = re.compile(r"<img\b[^>]*>")
SOURCE = re.compile(r"<source\b[^>]*>")
ATTR = re.compile(r'(?P<name>[a-z-]+)="(?P<value>[^"]*)"')


@dataclass(frozen=True)
class LabFigure:
    desktop: str  # the <img>'s src, next to the page
    alt: str
    phone: str | None  # the phone source's file, next to the page (None: no phone source)
    media: str | None
    density: str | None  # the srcset's descriptor ("2x")
    size: tuple[int, int] | None  # the <source>'s width and height, CSS px


def _attrs(tag: str) -> dict[str, str]:
    return {m.group("name"): unescape(m.group("value")) for m in ATTR.finditer(tag)}


def lab_figures(html: str) -> list[LabFigure]:
    """Every figure of a lab page (an <img> of a PNG next to the page), with its phone source if any."""
    found = []
    pictures = {m.start("inner"): m.group("inner") for m in PICTURE.finditer(html)}
    for m in IMG.finditer(html):
        img = _attrs(m.group(0))
        if not re.fullmatch(r"figure-\d+-[0-9a-f]+\.png", img.get("src", "")):
            continue
        inner = next(
            (inner for start, inner in pictures.items() if start <= m.start() < start + len(inner)), ""
        )
        source = _attrs(SOURCE.search(inner).group(0)) if SOURCE.search(inner) else {}
        srcset = source.get("srcset", "").split()
        size = (
            (int(source["width"]), int(source["height"]))
            if "width" in source and "height" in source
            else None
        )
        found.append(
            LabFigure(
                desktop=img["src"],
                alt=img.get("alt", ""),
                phone=srcset[0] if srcset else None,
                media=source.get("media"),
                density=srcset[1] if len(srcset) > 1 else None,
                size=size,
            )
        )
    return found


@dataclass(frozen=True)
class Drawing:
    width: int  # pixels
    height: int
    dpi: float  # pixels per inch, from the PNG's pHYs
    smallest_text_pt: float | None  # lab_phone's record; None when the PNG has none

    def natural_width(self, density: float = 2.0) -> float:
        """The CSS width the browser gives it at natural size, served with that density ("2x")."""
        return self.width / density

    def text_px(self, shown_width: float) -> float:
        """The CSS px height of an em of its smallest text, shown `shown_width` CSS px wide (0 if unknown)."""
        if self.smallest_text_pt is None:
            return 0.0
        return self.smallest_text_pt / 72 * self.dpi * shown_width / self.width


def drawing(data: bytes) -> Drawing:
    from PIL import Image

    image = Image.open(io.BytesIO(data))
    record = image.info.get(lab_phone.SMALLEST_TEXT_KEY)
    dpi = image.info.get("dpi", (72.0, 72.0))[0]
    return Drawing(image.width, image.height, float(dpi), float(record) if record else None)


def text_px_on_a_phone(data: bytes, density: float = 2.0, column: float = COLUMN_AT_390) -> float:
    """How large the smallest text of a drawing shows on a 390 px phone: at natural size, or narrower when the
    column is narrower than that."""
    found = drawing(data)
    return found.text_px(min(found.natural_width(density), column))
