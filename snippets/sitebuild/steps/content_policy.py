"""Every built page carries its own Content-Security-Policy, as a <meta> right after <meta charset>.

GitHub Pages sends no headers a site can choose, so the policy travels in each page's <head>, before
anything it governs. It runs once, after every language is built and every other step has written the
site's HTML (the 404 pages, the placeholders the wheel step fills): the hashes are computed from the HTML as
it will be served, page by page, so an inline script edited later in the pipeline fails the build here
instead of being silently refused by the browser, and a script that is not in the page is not allowed.

What the policy allows, and why:

- `default-src 'self'`: everything comes from the site itself (fonts, figures, the search index, Pyodide,
  culpa's wheel); nothing is ever fetched from a third party, and the policy makes that hold in the reader's
  browser too.
- `script-src 'self' 'wasm-unsafe-eval' 'sha256-...'`: the site's script files, and exactly the inline
  scripts of this page, each by the sha256 of its text (Material's few lines in <head> and <body>, the
  override's `no-js` and colour-scheme lines, a lab's copy-button script). No 'unsafe-inline', no
  'unsafe-eval'. 'wasm-unsafe-eval' lets Pyodide compile its WebAssembly (Run in the page).
- `worker-src 'self' blob:`: Material's search worker (a file of the site), and the Run worker, which
  assets/run/run.js starts from a `blob:` bootstrap that loads assets/run/worker.js: a worker started from
  a URL of the site would get its policy from its response's headers, and Pages sends none, whereas a
  `blob:` worker inherits this page's policy. Python run in the page is so held by `connect-src 'self'`
  too: pyodide.http.pyfetch, js.fetch and js.XMLHttpRequest cannot reach another host.
- `connect-src 'self'`: fetch and XMLHttpRequest to the site only (search, Run's files, the page's own
  sitemap for the language switch).
- `style-src-elem 'self' 'sha256-...'`: the site's stylesheets and this page's own <style> elements, by
  hash (a lab's few rules). `style-src-attr 'unsafe-inline'`: style attributes, which KaTeX's typeset
  formulas (every height and offset), offscreen.py's estimated heights and the explorers' typeset
  formulas all use; a style attribute can restyle an element but not select others, so it cannot read the
  page. `style-src 'self' 'unsafe-inline'` is what a browser without the two directives above (Safari
  before 15.4) uses instead.
- `img-src 'self' data:`: the figures, and the data: images of Material's icons (its CSS) and of a lab's
  figure outputs. `font-src 'self'`: KaTeX's fonts (Material's font is the system's: `font: false`).
- `object-src 'none'`, `base-uri 'self'`, `form-action 'self'`: no plugins, no <base> pointing elsewhere,
  no form sent elsewhere.
- `frame-ancestors` is ignored in a <meta> policy (only a header can say it), so it is not written.

The hashes are per page: Material's `navigation.instant` (off in mkdocs.yml) would keep the first page's
policy while it swaps in the next page's inline scripts, and so would need every page's hashes in each.

A page with an inline event handler (`onclick=`) or a `javascript:` URL fails the build, naming the page:
the policy would silently disable it. A page that already has a policy <meta> fails too (two policies
would both apply; this step is the policy's one home).

`mkdocs serve` injects its livereload script, inline and different on every request, into every page it
serves: under serve the policy allows inline scripts ('unsafe-inline', no hashes, which would switch it
off) so that the dev server keeps reloading; every other directive is the same. The built site never gets
that.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from mkdocs.exceptions import PluginError

NAME = "sitebuild/steps/content_policy.py"

# A <script> runs if its type is empty or a JavaScript MIME type, or module; importmap and speculationrules
# are not scripts but are held by script-src too. Anything else (application/json) is data, never run.
JS_TYPES = {
    "",
    "module",
    "importmap",
    "speculationrules",
    "text/javascript",
    "application/javascript",
    "application/ecmascript",
    "application/x-ecmascript",
    "application/x-javascript",
    "text/ecmascript",
    "text/javascript1.0",
    "text/javascript1.1",
    "text/javascript1.2",
    "text/javascript1.3",
    "text/javascript1.4",
    "text/javascript1.5",
    "text/jscript",
    "text/livescript",
    "text/x-ecmascript",
    "text/x-javascript",
}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "background"}
POLICY_META = re.compile(r"<meta\b[^>]*http-equiv\s*=\s*[\"']?content-security-policy", re.I)
CHARSET_META = re.compile(r"<meta\s+charset=[\"']?[\w-]+[\"']?\s*/?>", re.I)
HEAD = re.compile(r"<head\b[^>]*>", re.I)
SHA256 = re.compile(r"'sha256-([A-Za-z0-9+/=]+)'")


@dataclass
class Inline:
    """What a page carries inline: the text of its scripts and <style>s, and what a policy would break."""

    scripts: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # inline event handlers and javascript: URLs
    policies: list[str] = field(default_factory=list)  # the content of each policy <meta> already there


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=False)  # a script's text exactly as written (no charref in it)
        self.found = Inline()
        self.inside: tuple[str, list[str]] | None = None  # ("script" | "style", text so far)

    def handle_starttag(self, tag, attrs):
        self._attributes(tag, attrs)
        values = {name: (value or "") for name, value in attrs}
        if tag == "script" and "src" not in values and values.get("type", "").strip().lower() in JS_TYPES:
            self.inside = ("script", [])
        elif tag == "style":
            self.inside = ("style", [])
        elif tag == "meta" and values.get("http-equiv", "").lower() == "content-security-policy":
            self.found.policies.append(values.get("content", ""))

    def handle_startendtag(self, tag, attrs):
        self._attributes(tag, attrs)

    def handle_data(self, data):
        if self.inside:
            self.inside[1].append(data)

    def handle_endtag(self, tag):
        if self.inside and tag == self.inside[0]:
            kind, text = self.inside
            (self.found.scripts if kind == "script" else self.found.styles).append("".join(text))
            self.inside = None

    def _attributes(self, tag, attrs):
        for name, value in attrs:
            if name.startswith("on"):
                self.found.broken.append(f"<{tag} {name}=...> (an inline event handler)")
            elif name in URL_ATTRIBUTES and value and _is_javascript_url(value):
                self.found.broken.append(f'<{tag} {name}="{value[:40]}"> (a javascript: URL)')


def _is_javascript_url(value: str) -> bool:
    # as a browser reads a URL: leading spaces and controls dropped, tabs and newlines anywhere ignored
    cleaned = re.sub(r"[\t\n\r]", "", value).lstrip(
        "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e"
        "\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a"
        "\x1b\x1c\x1d\x1e\x1f "
    )
    return cleaned.lower().startswith("javascript:")


def inline_parts(html: str) -> Inline:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.found


def sha256(text: str) -> str:
    """A CSP source for this inline text, hashed as the browser hashes it: UTF-8, after the HTML parser
    turned every CR LF and lone CR into LF."""
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    return "'sha256-" + base64.b64encode(hashlib.sha256(normalized.encode("utf-8")).digest()).decode() + "'"


def policy(found: Inline, serve: bool = False) -> str:
    scripts = ["'unsafe-inline'"] if serve else sorted({sha256(s) for s in found.scripts})
    styles = sorted({sha256(s) for s in found.styles})
    directives = [
        "default-src 'self'",
        " ".join(["script-src 'self' 'wasm-unsafe-eval'", *scripts]),
        "worker-src 'self' blob:",
        "connect-src 'self'",
        " ".join(["style-src-elem 'self'", *styles]),
        "style-src-attr 'unsafe-inline'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ]
    return "; ".join(directives)


def with_policy(html: str, where: str, serve: bool = False) -> str:
    """The page with its policy <meta> right after <meta charset> (or <head>); raises, naming the page,
    for what a policy would silently break."""
    found = inline_parts(html)
    _refuse(found, where)
    if found.policies or POLICY_META.search(html):
        raise PluginError(
            f"{NAME}: {where} already has a Content-Security-Policy <meta>; the policy is "
            "written by this step only (two policies would both apply)"
        )
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(found, serve)}">'
    head = HEAD.search(html)
    if head is None:
        raise PluginError(f"{NAME}: {where} has no <head> to put its Content-Security-Policy in")
    charset = CHARSET_META.match(html, _skip_space(html, head.end()))
    at = charset.end() if charset else head.end()
    return html[:at] + meta + html[at:]


def check(html: str, where: str) -> None:
    """The page's policy allows exactly the inline scripts and <style>s it has: one missing (an inline
    script edited after its hash was taken) or one left over (a hash of a script no longer there) fails,
    naming the page."""
    found = inline_parts(html)
    _refuse(found, where)
    if len(found.policies) != 1:
        raise PluginError(
            f"{NAME}: {where} has {len(found.policies)} Content-Security-Policy <meta>, not one"
        )
    written = {
        directive.split()[0]: set(SHA256.findall(directive))
        for directive in found.policies[0].split(";")
        if directive.strip()
    }
    for name, texts, kind in (
        ("script-src", found.scripts, "script"),
        ("style-src-elem", found.styles, "<style>"),
    ):
        needed = {sha256(text)[len("'sha256-") : -1] for text in texts}
        allowed = written.get(name, set())
        if needed - allowed:
            raise PluginError(
                f"{NAME}: {where} has an inline {kind} that its policy's {name} does not "
                f"allow (changed after the policy was written?); the browser would refuse it"
            )
        if allowed - needed:
            raise PluginError(
                f"{NAME}: {where}'s policy allows an inline {kind} the page no longer has "
                f"({name}); a stale hash would let that text run if it came back"
            )


def _refuse(found: Inline, where: str) -> None:
    if found.broken:
        raise PluginError(
            f"{NAME}: {where} has " + "; ".join(sorted(set(found.broken))) + ", which the "
            "page's Content-Security-Policy would silently block: attach the handler from a "
            "script file (addEventListener) instead"
        )


def _skip_space(html: str, at: int) -> int:
    while at < len(html) and html[at].isspace():
        at += 1
    return at


def write_policies(site_dir: Path, serve: bool = False) -> None:
    """Once every language is built: every HTML file of the site gets its policy, then is read back and
    checked as served."""
    for path in sorted(site_dir.rglob("*.html")):
        where = path.relative_to(site_dir).as_posix()
        html = with_policy(path.read_bytes().decode("utf-8"), where, serve)  # bytes: line ends kept
        path.write_bytes(html.encode("utf-8"))
        if not serve:
            check(path.read_bytes().decode("utf-8"), where)
