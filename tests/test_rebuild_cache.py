"""sitebuild/steps/rebuild_cache.py: what a build reuses from the one before never makes a page stale.

- a code block highlighted before is served from the cache with the same HTML, and an edited block, another
  language or another option is highlighted afresh;
- a template compiled before is reused, and an edited template is compiled again (Jinja's checksum).
"""

from __future__ import annotations

import jinja2
import markdown
import pytest

from sitebuild import patches
from sitebuild.steps import rebuild_cache


@pytest.fixture(scope="module")
def reuse():
    made = rebuild_cache.Reuse()
    patches.highlight_with(made.highlight)  # as the plugin's on_config does
    yield made
    patches.highlight_with(lambda original, *args, **kwargs: original(*args, **kwargs))


def render(text: str, **highlight) -> str:
    return markdown.markdown(text, extensions=["pymdownx.superfences", "pymdownx.highlight"],
                             extension_configs={"pymdownx.highlight": highlight})


def test_a_code_block_seen_before_comes_from_the_cache_and_an_edited_one_does_not(reuse):
    state = reuse
    block = "```python\nloss = -log(p[c])  # rebuild-cache-test\n```\n"
    first = render(block)
    hits = state.hits
    assert render(block) == first and state.hits == hits + 1, "the same block was highlighted again"
    edited = render(block.replace("p[c]", "q[c]"))
    assert "q" in edited and edited != first, "an edited block was served stale"
    other = render(block.replace("```python", "```text"))
    assert other != first, "a block in another language was served as Python"
    numbered = render(block, linenums=True)
    assert numbered != first and "linenos" in numbered, "a change of option was served stale"


def test_a_template_compiled_before_is_reused_and_an_edited_one_compiled_again():
    cache = rebuild_cache.MemoryBytecodeCache()
    sources = {"page.html": "<p>{{ title }}</p>"}
    compiled = []

    class Counting(jinja2.Environment):
        def compile(self, source, *args, **kwargs):
            compiled.append(source)
            return super().compile(source, *args, **kwargs)

    def env():  # a new environment for every build, as mkdocs makes
        made = Counting(loader=jinja2.FunctionLoader(lambda name: (sources[name], name, lambda: False)))
        made.bytecode_cache = cache
        return made

    assert env().get_template("page.html").render(title="a") == "<p>a</p>"
    assert env().get_template("page.html").render(title="b") == "<p>b</p>"
    assert len(compiled) == 1, "a template was compiled again although its source did not change"
    sources["page.html"] = "<h1>{{ title }}</h1>"
    assert env().get_template("page.html").render(title="c") == "<h1>c</h1>", "an edited template ran stale"
    assert len(compiled) == 2
