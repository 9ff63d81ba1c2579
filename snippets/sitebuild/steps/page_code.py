"""A page's code as one .py to download: its Python blocks in page order, what they print as comments.

on_page_content, before run_blocks marks the blocks, reads the page's HTML as Markdown made it, the way
run_blocks finds blocks (its TOKEN): each ```python block in page order (the order tests/test_pages.py runs
them in one interpreter), and the ```text block after `<!--pytest-codeblocks:expected-output-->`, which is
what the block before it prints. It writes `<name>.py` beside the page's index.html (`home.py` for the home
page) and links it under the page's title, as a lab links its notebook. Labs are left alone (they offer the
executed notebook), and so is a page without a Python block.

The file runs with `python <name>.py` wherever culpa is installed (its header says how), and prints what the
page shows: a block's shown output follows it as `#` comments under "Saída:"/"Output:". A block the page
does not run (`<!--pytest.mark.skip(reason=...)-->`: a fragment of culpa's source, say) is in the file too,
commented out, with the page's reason above it. Material's annotation markers (`# (1)!`) are left out: they
point at notes the file does not have. Every word is the page's language (strings' [reader]);
tests/test_page_code.py runs every file and checks that no block is missing.
"""

from __future__ import annotations

import html
import re
import textwrap
from pathlib import Path

from sitebuild import strings
from sitebuild.steps import run_blocks
from sitebuild.steps.wheel import wheel_url

ANNOTATION = re.compile(r"[ \t]*# \(\d+\)!?[ \t]*$", re.M)  # Material's `# (1)!` at a line's end


def file_name(src_uri: str) -> str:
    """pt/03-worked-example.md -> 03-worked-example.py; pt/index.md -> home.py."""
    stem = Path(src_uri).stem
    return f"{'home' if stem == 'index' else stem}.py"


def without_annotations(code: str) -> str:
    return ANNOTATION.sub("", code)


def blocks_of(content: str) -> list[dict]:
    """The page's Python blocks in order: {"code", "skip" (the reason, or None), "output" (or None)}."""
    blocks: list[dict] = []
    mark = None
    for m in run_blocks.TOKEN.finditer(content):
        if m.group("mark"):
            mark = m.group("mark")
            continue
        if m.group("lang") == "python":
            reason = None
            if mark and "skip" in mark:
                found = run_blocks.SKIP_REASON.search(mark)
                reason = found.group("reason") if found else "pytest.mark.skip"
            blocks.append({"code": run_blocks._code(m.group("body")), "skip": reason, "output": None})
        elif mark and "expected-output" in mark and blocks:
            blocks[-1]["output"] = run_blocks._code(m.group("body"))
        mark = None
    return blocks


def _commented(text: str) -> list[str]:
    return [f"# {line}".rstrip() for line in text.rstrip("\n").split("\n")]


def _wrapped(sentence: str) -> list[str]:
    """A sentence of the file's own as comment lines of at most 79 columns (a URL is never cut)."""
    return textwrap.wrap(sentence, width=79, break_long_words=False, break_on_hyphens=False,
                         initial_indent="# ", subsequent_indent="# ")


def script(blocks: list[dict], lang: str, *, title: str, page_url: str, install: str, name: str) -> str:
    """The .py of a page: a header (what it is, where from, how to install culpa and run it), then each
    block with its number, its code (commented out if the page does not run it) and its shown output."""
    s = strings.of(lang)["reader"]
    lines = [
        *_wrapped(s["code_header"].format(page=title)),
        *_wrapped(s["code_source"].format(url=page_url)),
        *_wrapped(s["code_install"]),
        f"#   pip install {install}",
        *_wrapped(s["code_run"].format(file=name)),
    ]
    for n, block in enumerate(blocks, start=1):
        code = without_annotations(block["code"]).rstrip("\n")
        lines += ["", "", f"# --- {s['code_block'].format(n=n)} ---"]
        if block["skip"]:
            lines += _wrapped(s["code_skipped"].format(reason=block["skip"]))
            lines += [f"# {line}".rstrip() if line.strip() else "#" for line in code.split("\n")]
        else:
            lines += code.split("\n")
        if block["output"] is not None:
            lines += [f"# {s['code_output']}", *_commented(block["output"])]
    return "\n".join(lines) + "\n"


def download_link(content: str, name: str, lang: str) -> str:
    """The link to the page's .py, right under its title (a lab has its notebook's in the same place)."""
    words = html.escape(strings.of(lang)["reader"]["code_download"])
    link = f'<a class="md-button" href="{name}" download>{words}</a>'
    return under_title(content, f'<p class="page-code" data-search-exclude>{link}</p>')


def under_title(content: str, fragment: str) -> str:
    """content with fragment right after its <h1> (at its start if it has none): where a page's download
    link goes, a lab's notebook's as a page's code's (steps/notebooks.py)."""
    end_of_title = content.find("</h1>")
    if end_of_title < 0:
        return fragment + content
    cut = end_of_title + len("</h1>")
    return content[:cut] + fragment + content[cut:]


def on_page_content(content: str, page, config, lang: str) -> str:
    """Write the page's .py beside its HTML and link it; a lab, or a page with no Python block, is left as
    it is. The header's install command names the wheel this site serves."""
    if page.file.src_uri.split("/")[1:2] == ["labs"]:
        return content
    blocks = blocks_of(content)
    if not blocks:
        return content
    name = file_name(page.file.src_uri)
    text = script(blocks, lang, title=page.title or name, page_url=page.canonical_url or page.abs_url or "",
                  install=wheel_url(config), name=name)
    target = Path(page.file.abs_dest_path).parent / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return download_link(content, name, lang)
