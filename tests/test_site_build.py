"""The site builds strictly, and nothing it makes a browser load comes from another host."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

URL_IN_HTML = re.compile(r"""(?:src|href|srcset|data|poster|action)\s*=\s*["']([^"']+)["']""", re.I)
URL_IN_CSS = re.compile(r"""url\(\s*["']?([^"')]+)""", re.I)
LOADS = re.compile(r"<(script|link|img|iframe|source|video|audio|embed|object)\b[^>]*>", re.I)


def loaded_urls(html: str) -> list[str]:
    """URLs of what the browser fetches by itself: scripts, styles, images, frames (not plain links)."""
    urls = []
    for tag in LOADS.finditer(html):
        element = tag.group(0)
        fetched_rel = re.search(r"rel=[\"']?(stylesheet|icon|preload|modulepreload|manifest)", element, re.I)
        if tag.group(1).lower() == "link" and not fetched_rel:
            continue
        urls += URL_IN_HTML.findall(element)
    urls += URL_IN_CSS.findall(html)
    return urls


def is_foreign(url: str) -> bool:
    return bool(re.match(r"^(?:[a-z][a-z0-9+.-]*:)?//", url, re.I)) and not url.startswith(("data:",))


def test_site_builds_strictly(built_site: Path):
    assert (built_site / "index.html").is_file()
    assert (built_site / "en" / "index.html").is_file()


def test_nothing_is_loaded_from_another_host(built_site: Path):
    offenders = []
    for path in sorted(built_site.rglob("*")):
        if path.suffix not in (".html", ".css", ".js") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".html":
            urls = loaded_urls(text)
        elif path.suffix == ".css":
            urls = URL_IN_CSS.findall(text)
        else:
            continue  # scripts are checked in the browser tests, where requests are observed
        offenders += [f"{path.relative_to(built_site)}: {u}" for u in urls if is_foreign(u)]
    assert not offenders, "the built site loads from other hosts:\n" + "\n".join(offenders)


@pytest.mark.parametrize("lang_prefix", ["", "en/"])
def test_every_page_has_its_translation_linked(built_site: Path, lang_prefix):
    for page in sorted((built_site / lang_prefix).glob("*/index.html")):
        if page.parent.name in ("en", "search", "assets"):
            continue
        html = page.read_text(encoding="utf-8")
        assert 'hreflang="pt"' in html and 'hreflang="en"' in html, f"{page}: no language switcher"


TOGGLE = {"": ("Modo escuro", "Modo claro"), "en/": ("Dark mode", "Light mode")}


@pytest.mark.parametrize("lang_prefix", list(TOGGLE))
def test_palette_toggle_speaks_the_page_language(built_site: Path, lang_prefix):
    own, other = TOGGLE[lang_prefix], TOGGLE["en/" if lang_prefix == "" else ""]
    root = built_site / lang_prefix
    pages = [root / "index.html", *sorted(root.glob("0*/index.html"))]
    for page in pages:
        html = page.read_text("utf-8")
        labels = re.findall(r'<label class="md-header__button md-icon" title="([^"]+)"', html)
        assert sorted(labels) == sorted(own), f"{page}: the palette toggle reads {labels}, expected {own}"
        assert not set(labels) & set(other)


NOTE_WORD = {"": "Nota {n}", "en/": "Note {n}"}


@pytest.mark.parametrize("lang_prefix", list(NOTE_WORD))
def test_a11y_script_gets_its_words_in_the_page_language(built_site: Path, lang_prefix):
    """assets/a11y.js names code annotations' markers, and hands assets/drawer.js the phone drawer button's
    name, with words from strings/[a11y], written on its tag on every page (the 404 page too, rendered apart
    from the others); neither script holds a word of either language."""
    from sitebuild import strings

    for name in ("a11y.js", "drawer.js"):
        script = (built_site / "assets" / name).read_text("utf-8")
        assert not re.search(r'"(?:Nota|Note|Buscar|Search|Navegação|Navigation)\b', script), (
            f"assets/{name} hard-codes a word")
    words = strings.of("pt" if lang_prefix == "" else "en")["a11y"]
    assert words["note"] == NOTE_WORD[lang_prefix]
    root = built_site / lang_prefix
    pages = [root / "index.html", root / "404.html", *sorted(root.glob("0*/index.html")),
             *sorted(root.glob("labs/*/index.html"))]
    for page in pages:
        tags = re.findall(r'<script\b[^>]*assets/a11y\.js[^>]*>', page.read_text("utf-8"))
        assert len(tags) == 1, f"{page}: {len(tags)} a11y.js tags"
        for key, word in words.items():
            assert f'data-{key}="{word}"' in tags[0], f"{page}: no data-{key} in {tags[0]}"


THEME_ENGLISH = ("Permanent link", "Copy to Clipboard", "Copied!")


def test_theme_words_are_in_the_page_language(built_site: Path):
    """The ¶ link's title (Python-Markdown's toc) and a lab cell's copy button (mkdocs-jupyter's template)
    are written in English by their templates; every pt page, labs included, says them in Portuguese."""
    from sitebuild import strings

    pt_pages = [p for p in built_site.rglob("index.html") if p.relative_to(built_site).parts[0] != "en"]
    assert len(pt_pages) > 10
    for page in pt_pages:
        text = page.read_text("utf-8")
        left = [english for english in THEME_ENGLISH if english in text]
        assert not left, f"{page.relative_to(built_site)} says {left} in English"
    words = strings.of("pt")["theme"]
    chapter = (built_site / "03-worked-example" / "index.html").read_text("utf-8")
    assert f'title="{words["permalink"]}"' in chapter, "pt page 03's ¶ links lack their title"
    lab = (built_site / "labs" / "build-check-train" / "index.html").read_text("utf-8")
    for key in ("copy", "copied"):
        assert words[key] in lab, f"the pt lab lacks the theme word {words[key]!r}"


def test_theme_words_fail_the_build_when_a_template_changes():
    """A pt page whose template wrote its English words in a markup the step does not know is refused."""
    from mkdocs.exceptions import PluginError

    from sitebuild.steps import theme_words

    known = '<h2 id="a">A<a class="headerlink" href="#a" title="Permanent link">&para;</a></h2>'
    assert "Link permanente" in theme_words.on_post_page(known, "pt", "pt/x.md")
    changed = '<h2 id="a">A<a href="#a" class="headerlink" title="Permanent link">&para;</a></h2>'
    with pytest.raises(PluginError, match="pt/x.md"):
        theme_words.on_post_page(changed, "pt", "pt/x.md")
    assert theme_words.on_post_page(changed, "en", "en/x.md") == changed


@pytest.mark.slow
def test_changing_culpa_or_a_lesson_redoes_what_depends_on_it(rebuilds):
    """The caches that make a rebuild quick stay correct: on a copy of the project (with its caches), an edit
    to a lesson file redraws the figure that reads it and nothing else, and an edit to culpa's source
    executes every lab again and redraws every figure; the labs' rendered HTML follows their notebooks
    (support/rebuilds.py makes the builds)."""
    before, lesson, culpa = rebuilds.again, rebuilds.lesson_edited, rebuilds.culpa_edited
    assert before.figure_keys and before.lab_keys and before.render_keys, (
        "the build left no figure, lab or rendered-lab cache to check")

    changed = {name for name, key in lesson.figure_keys.items() if before.figure_keys[name] != key}
    assert changed == {"training"}, f"editing lessons/training.py redrew {sorted(changed)}, not just training"
    assert "labs: executed" not in lesson.log, "editing a lesson no lab reads executed labs"
    assert lesson.lab_keys == before.lab_keys

    labs = before.lab_keys
    executed = set(re.findall(r"labs: executed docs/(\S+)\.md", culpa.log))
    given = dict(re.findall(r"labs: docs/(\S+)\.md has docs/(\S+)\.md's code cells", culpa.log))
    assert executed | set(given) == {f"{lang}/labs/{name}" for lang, name in (k.split("/") for k in labs)}, (
        f"editing culpa executed only {sorted(executed)} (and gave outputs to {sorted(given)}) of the labs "
        f"{sorted(labs)}"
    )
    # a lab's pt and en pages have the same code cells (test_labs.py): one of them runs, the other is given
    # its outputs
    assert len(executed) == len(labs) // 2 and set(given.values()) == executed, (executed, given)
    stale = [name for name, key in culpa.figure_keys.items() if lesson.figure_keys[name] == key]
    assert not stale, f"editing culpa did not redraw the figures {stale}"
    assert all(culpa.lab_keys[k] != labs[k] for k in labs), "editing culpa left a lab's cache key unchanged"
    assert set(culpa.render_keys) == set(before.render_keys), "a lab lost its rendered-HTML cache"
    for lab in labs:
        notebook_changed = culpa.notebooks[lab] != lesson.notebooks[lab]
        render_changed = culpa.render_keys[f"{lab}.html.json"] != lesson.render_keys[f"{lab}.html.json"]
        assert notebook_changed == render_changed, (
            f"{lab}: its executed notebook {'changed' if notebook_changed else 'did not change'} but its "
            f"rendered HTML's cache key {'did' if render_changed else 'did not'}"
        )


@pytest.mark.slow
def test_a_published_build_with_a_loopback_install_url_fails_naming_the_page(tmp_path):
    """CI=true, mkdocs.yml's default site_url and no repository URL: what the Pages workflow must never
    publish. The strict build stops at the first page that shows the install or clone command."""
    import os
    import subprocess
    import sys

    from support.site import copy_project

    project = copy_project(tmp_path / "project")
    env = {k: v for k, v in os.environ.items()
           if k not in ("CULPA_LOCAL_BUILD", "SITE_URL", "CULPA_REPOSITORY_URL", "GITHUB_REPOSITORY")}
    env.update(CI="true", NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=project, env=env, capture_output=True, text=True,
                          timeout=1200)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"a CI build for 127.0.0.1 was allowed:\n{out[-3000:]}"
    assert re.search(r"the page \S+\.md would be published", out), out[-3000:]
    assert "127.0.0.1" in out and "SITE_URL" in out and "CULPA_REPOSITORY_URL" in out, out[-3000:]
