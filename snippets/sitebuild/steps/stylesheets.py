"""The site's own stylesheets, served without their comments.

assets/site.css, explorers.css and run.css explain each rule to the next maintainer in comments: 3.9 of their
8.4 KiB gzipped, sent with every page (graph.css and keep.css load when a reader asks for what they style).
After every language is built, the served copies (one file each, both languages load it) keep every rule and
drop the comments; the sources keep them. Quoted strings are read as strings (a "/*" inside one stays); a
comment never closed fails the build, naming the file.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

SERVED = tuple(Path("assets") / name for name in (
    "site.css", "explorers/explorers.css", "run/run.css", "run/graph.css", "run/keep.css"))


def without_comments(css: str, name: str) -> str:
    """`css` without its /* … */ comments (strings kept whole), and without the blank lines they leave."""
    kept, i = [], 0
    while i < len(css):
        if css[i] in "\"'":  # a string, to its closing quote (an escaped quote does not close it)
            j = i + 1
            while j < len(css) and css[j] != css[i]:
                j += 2 if css[j] == "\\" else 1
            kept.append(css[i : j + 1])
            i = j + 1
        elif css.startswith("/*", i):
            end = css.find("*/", i + 2)
            if end < 0:
                raise PluginError(f"{name}: a comment opened at character {i} is never closed")
            i = end + 2
        else:
            kept.append(css[i])
            i += 1
    return "\n".join(line.rstrip() for line in "".join(kept).splitlines() if line.strip()) + "\n"


def strip_comments(site_dir: Path) -> None:
    """Rewrite each of the site's own stylesheets in <site> without its comments."""
    for served in SERVED:
        path = site_dir / served
        css = without_comments(path.read_text(encoding="utf-8"), f"docs/{served}")
        path.write_text(css, encoding="utf-8")
