"""What a build reuses from the builds before it in the same process: highlighted code, compiled templates.

`mkdocs build` builds the site once per language (the i18n plugin), and `mkdocs serve` rebuilds both after
every saved edit; each of those builds highlighted every code block again with Pygments (the same lesson
code appears in both languages) and compiled Material's templates again, most of a rebuild's time. A
`Reuse` (the plugin keeps one for the life of the process) keeps both:

- Pygments' HTML for a code block, keyed on everything the highlighter's output depends on (the block's
  source, its language and options, and the highlighter's configuration), so an edited block, a changed
  option or a new mkdocs.yml setting is highlighted afresh. Blocks whose title is HTML (it goes through the
  Markdown stash, a side effect) are never cached; this site has none. pymdownx calls `Reuse.highlight`
  through sitebuild/patches.py.
- Jinja's compiled templates, in a bytecode cache that Jinja itself checks against each template's source
  (an edited override is compiled again).

Nothing is written to disk.
"""

from __future__ import annotations

import jinja2

LIMIT = 20_000  # code blocks kept; the site has ~400 (both languages)


def _configuration(highlighter) -> str:
    return repr(sorted((k, v) for k, v in vars(highlighter).items() if k != "md"))


class MemoryBytecodeCache(jinja2.BytecodeCache):
    """Jinja's compiled templates in memory; Jinja checks each entry against the template's source."""

    def __init__(self):
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.compiled.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


class Reuse:
    def __init__(self):
        self.code: dict[str, str] = {}
        self.hits = 0
        self.templates = MemoryBytecodeCache()

    def highlight(self, original, highlighter, src, language, *args, **kwargs):
        """pymdownx's Highlight.highlight(highlighter, src, language, ...), from the cache when it can be."""
        if getattr(highlighter, "auto_title", False) or getattr(highlighter, "title_mode", "text") != "text":
            return original(highlighter, src, language, *args, **kwargs)
        key = repr((_configuration(highlighter), src, language, args, sorted(kwargs.items())))
        found = self.code.get(key)
        if found is None:
            if len(self.code) >= LIMIT:
                self.code.clear()
            found = self.code[key] = original(highlighter, src, language, *args, **kwargs)
        else:
            self.hits += 1
        return found
