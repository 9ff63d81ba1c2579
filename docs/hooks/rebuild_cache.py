"""What a build reuses from the builds before it in the same process: highlighted code, compiled templates.

`mkdocs build` builds the site once per language (the i18n plugin), and `mkdocs serve` rebuilds both after
every saved edit; each of those builds highlighted every code block again with Pygments (the same lesson
code appears in both languages) and compiled Material's templates again, most of a rebuild's time. This hook
keeps both for the life of the process:

- Pygments' HTML for a code block, keyed on everything the highlighter's output depends on (the block's
  source, its language and options, and the highlighter's configuration), so an edited block, a changed
  option or a new mkdocs.yml setting is highlighted afresh. Blocks whose title is HTML (it goes through the
  Markdown stash, a side effect) are never cached; this site has none.
- Jinja's compiled templates, in a bytecode cache that Jinja itself checks against each template's source
  (an edited override is compiled again).

The caches live in a module of their own that survives `mkdocs serve` reloading this hook (as
docs/hooks/katex_render.py keeps its V8 context), and nothing is written to disk.
"""

from __future__ import annotations

import sys
import types

import jinja2
from pymdownx import highlight as pymdownx_highlight

_state = sys.modules.setdefault("_rebuild_cache_state", types.ModuleType("_rebuild_cache_state"))
if not hasattr(_state, "original"):
    _state.original = pymdownx_highlight.Highlight.highlight  # the real one, whatever reloads come after
    _state.code = {}
    _state.hits = 0
    _state.templates = {}

LIMIT = 20_000  # code blocks kept; the site has ~400 (both languages)


def _configuration(highlighter) -> str:
    return repr(sorted((k, v) for k, v in vars(highlighter).items() if k != "md"))


def highlight(self, src, language, *args, **kwargs):
    if getattr(self, "auto_title", False) or getattr(self, "title_mode", "text") != "text":
        return _state.original(self, src, language, *args, **kwargs)
    key = repr((_configuration(self), src, language, args, sorted(kwargs.items())))
    found = _state.code.get(key)
    if found is None:
        if len(_state.code) >= LIMIT:
            _state.code.clear()
        found = _state.code[key] = _state.original(self, src, language, *args, **kwargs)
    else:
        _state.hits += 1
    return found


class MemoryBytecodeCache(jinja2.BytecodeCache):
    """Jinja's compiled templates in memory; Jinja checks each entry against the template's source."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = _state.templates.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        _state.templates[bucket.key] = bucket.bytecode_to_string()


def on_config(config):
    pymdownx_highlight.Highlight.highlight = highlight  # every build: mkdocs serve reloads this hook
    return config


def on_env(env, config, files):
    env.bytecode_cache = MemoryBytecodeCache()
    return env
