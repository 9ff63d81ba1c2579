"""sitebuild/steps/content_policy.py: each page's Content-Security-Policy, and what makes the build fail.

On small pages made here: the policy is written right after <meta charset>, allows the page's own inline
scripts and <style>s by hash and nothing else inline (no 'unsafe-inline' for scripts), and a data block
(<script type="application/json">) is not a script. The build fails, naming the page, for an inline
event handler, a javascript: URL, a policy <meta> already there, and (read back) an inline script that
changed after its hash was taken or a hash whose script is gone. Under `mkdocs serve` scripts are allowed
inline (its livereload script differs on every request). Then every HTML file of the session's build
holds one policy, right after its charset, that allows exactly its inline scripts.

That Chromium runs every page under it with no violation, and that Run cannot reach another host, is
tests/browser/test_content_policy_in_browser.py.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from sitebuild.steps import content_policy

SCRIPT = 'document.documentElement.classList.replace("no-js","js")'
STYLE = ".jp-Cell { margin: 0 }"
PAGE = (
    '<!doctype html>\n<html><head>\n  <meta charset="utf-8">\n  <title>t</title>\n'
    f"  <style>{STYLE}</style>\n"
    '  <script type="application/json" id="run-config">{"a": 1}</script>\n'
    '  <script src="../assets/run/run.js"></script>\n'
    "</head><body>\n"
    f"<script>{SCRIPT}</script>\n"
    '<p style="height:1em">x</p><a href="../03-worked-example/">next</a>\n'
    "</body></html>\n"
)


def hash_of(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def directives(html: str) -> dict[str, list[str]]:
    content = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html).group(1)
    return {d.split()[0]: d.split()[1:] for d in content.split(";") if d.strip()}


def test_the_policy_comes_right_after_the_charset_and_allows_only_the_page_own_inline_scripts():
    html = content_policy.with_policy(PAGE, "03-worked-example/index.html")
    assert re.search(r'<head>\n  <meta charset="utf-8"><meta http-equiv="Content-Security-Policy"', html)
    d = directives(html)
    assert d["script-src"] == ["'self'", "'wasm-unsafe-eval'", hash_of(SCRIPT)]  # not the JSON data block
    assert d["style-src-elem"] == ["'self'", hash_of(STYLE)]
    assert d["connect-src"] == ["'self'"] and d["default-src"] == ["'self'"]
    assert d["worker-src"] == ["'self'", "blob:"] and d["object-src"] == ["'none'"]
    assert d["base-uri"] == ["'self'"]
    assert "'unsafe-inline'" not in d["script-src"] and "'unsafe-eval'" not in d["script-src"]
    assert "frame-ancestors" not in d  # ignored in a <meta>
    content_policy.check(html, "03-worked-example/index.html")  # what was written is what the page has


def test_a_script_with_carriage_returns_is_hashed_as_the_browser_reads_it():
    page = PAGE.replace(SCRIPT, "a = 1;\r\nb = 2;\r")
    assert hash_of("a = 1;\nb = 2;\n") in directives(content_policy.with_policy(page, "x.html"))["script-src"]


def test_an_inline_script_changed_after_its_hash_was_taken_fails_naming_the_page():
    html = content_policy.with_policy(PAGE, "en/03-worked-example/index.html")
    edited = html.replace(SCRIPT, SCRIPT.replace('"js"', '"js-edited"'))
    with pytest.raises(PluginError, match=r"en/03-worked-example/index\.html has an inline script"):
        content_policy.check(edited, "en/03-worked-example/index.html")


def test_a_hash_whose_script_is_gone_fails_naming_the_page():
    html = content_policy.with_policy(PAGE, "labs/x/index.html")
    gone = html.replace(f"<script>{SCRIPT}</script>", "")
    with pytest.raises(PluginError, match=r"labs/x/index\.html's policy allows an inline script"):
        content_policy.check(gone, "labs/x/index.html")


@pytest.mark.parametrize(
    "broken",
    [
        '<button onclick="run()">Run</button>',
        '<img src="a.png" ONLOAD="go()">',
        '<a href="javascript:void(0)">x</a>',
        '<a href=" JavaScript:alert(1)">x</a>',
        '<a href="java&#x09;script:alert(1)">x</a>',
    ],
)
def test_an_inline_handler_or_javascript_url_fails_the_build_naming_the_page(broken):
    page = PAGE.replace("<p ", broken + "<p ")
    with pytest.raises(PluginError, match=r"en/short-path/index\.html has .*would silently block"):
        content_policy.with_policy(page, "en/short-path/index.html")


def test_words_that_only_look_like_handlers_pass():
    page = PAGE.replace("<p ", '<p data-onclick="x" title="one = javascript: ok">one = 1</p><p ')
    content_policy.with_policy(page, "x.html")


def test_a_page_that_already_has_a_policy_fails():
    page = PAGE.replace(
        "<title>", '<meta http-equiv="content-security-policy" content="default-src *"><title>'
    )
    with pytest.raises(PluginError, match="x.html already has a Content-Security-Policy"):
        content_policy.with_policy(page, "x.html")


def test_under_mkdocs_serve_scripts_may_be_inline_for_its_livereload_script():
    d = directives(content_policy.with_policy(PAGE, "x.html", serve=True))
    # a hash would switch 'unsafe-inline' off
    assert d["script-src"] == ["'self'", "'wasm-unsafe-eval'", "'unsafe-inline'"]
    assert d["connect-src"] == ["'self'"]  # livereload polls its own server


def test_write_policies_fails_naming_the_file(tmp_path: Path):
    (tmp_path / "en" / "labs").mkdir(parents=True)
    (tmp_path / "index.html").write_text(PAGE)
    (tmp_path / "en" / "labs" / "index.html").write_text(PAGE.replace("<p ", '<p onclick="x()" '))
    with pytest.raises(PluginError, match=r"en/labs/index\.html has <p onclick"):
        content_policy.write_policies(tmp_path)


def test_every_built_page_has_one_policy_right_after_its_charset(built_site: Path):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 20
    for path in pages:
        html = path.read_text(encoding="utf-8")
        where = path.relative_to(built_site).as_posix()
        assert re.search(
            r'<head>\s*<meta charset="utf-8"><meta http-equiv="Content-Security-Policy"', html
        ), f"{where}: the policy is not the first thing after <meta charset>"
        content_policy.check(html, where)
