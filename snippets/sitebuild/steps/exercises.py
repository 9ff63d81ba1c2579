"""Checked exercises: an answer field, Check and hints, under an exercise the page marks as checked.

A page marks a checked exercise, between the exercise's statement and its collapsed solution, with

    <div class="exercise" markdown="block" data-exercise="worked_example/class-two">

    What to type: one paragraph (the field's label; math allowed).

    1.  The first hint.
    2.  The next one.

    </div>

`worked_example/class-two` names the checker: EXERCISES["class-two"] of snippets/lessons/exercises/
worked_example.py (sitebuild/exercises.py). on_page_content turns the div into the exercise's controls: the
paragraph becomes the label of a text field, Check ("Verificar") submits it, the verdict goes to a status line
(role=status, announced), the hints are hidden, each titled "Dica 1:", "Dica 2:", ..., and the button
"Dica"/"Hint" reveals them one at a time. The root gets
the words of [exercises] in the page's language as data-t-* attributes (as an explorer's root does), culpa's
wheel's path (data-wheel) and the checker script's address (data-script). Without JavaScript, and in print,
the whole div is hidden (site.css: `.no-js .exercise`), and the solution below it is the page as before.

Nothing of the check loads with the page: on_post_page adds one small inline script to a page that has
exercises, which waits for the reader. The first focus, press or submit inside an exercise loads
assets/exercises/check.js, which starts Pyodide in a Web Worker (assets/run/worker.js, as Run and the
explorers do) and asks it "check": sitebuild/exercises.check_json with the reader's text, the page's language
and its words. A submit or a hint press that comes before check.js has loaded is kept and replayed by it.

An exercise id without a checker, or a div without its paragraph, fails the build naming the page.
"""

from __future__ import annotations

import html
import re

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from sitebuild import exercises, strings
from sitebuild.steps.explorers import _kebab

ROOT = re.compile(r'<div class="exercise" data-exercise="([^"]*)">(.*?)</div>', re.S)
PROMPT = re.compile(r"\s*<p>(.*?)</p>", re.S)
HINTS = re.compile(r"\s*<ol>(.*?)</ol>\s*$", re.S)
ITEM = re.compile(r"<li>(.*?)</li>", re.S)

# Waits for the reader: the first focus, press or submit inside an exercise loads check.js; a submit or a
# hint press before it is there is kept for it (window.culpaExercisesPending).
BOOTSTRAP = """<script>(function () {
  var first = document.querySelector(".exercise[data-script]"), asked = false;
  if (!first) return;
  var pending = window.culpaExercisesPending = [];
  function early(event) {
    if (window.culpaExercises || !event.target.closest) return;
    var root = event.target.closest(".exercise");
    if (!root) return;
    var hint = event.type === "click" && event.target.closest(".ex-hint");
    if (event.type === "submit" || hint) { event.preventDefault(); pending.push(hint || event.target); }
    if (asked) return;
    asked = true;
    var script = document.createElement("script");
    script.src = first.dataset.script;
    document.head.append(script);
  }
  ["focusin", "pointerdown", "submit", "click"].forEach(function (type) {
    document.addEventListener(type, early, true);
  });
})();</script>"""


def on_page_content(html_text: str, page, lang: str, wheel: str) -> str:
    """Each marked exercise's div, as the controls check.js wires up."""
    words = strings.of(lang)["exercises"]
    count = 0

    def controls(match: re.Match) -> str:
        nonlocal count
        exercise_id, inner = match.group(1), match.group(2)
        try:
            exercises.exercise(exercise_id)
        except LookupError as error:
            raise PluginError(f"exercises: {page.file.src_uri} asks for data-exercise={exercise_id!r}: "
                              f"{error}") from None
        prompt = PROMPT.match(inner)
        if prompt is None:
            raise PluginError(f"exercises: {page.file.src_uri}, exercise {exercise_id!r}: its div must start "
                              "with a paragraph saying what to type (the answer field's label)")
        rest = inner[prompt.end():]
        hints = HINTS.match(rest) if rest.strip() else None
        if rest.strip() and hints is None:
            raise PluginError(f"exercises: {page.file.src_uri}, exercise {exercise_id!r}: after its "
                              "paragraph, only a numbered list of hints may follow")
        count += 1
        label = f"ex-{count}"
        attrs = "".join(f' data-t-{_kebab(k)}="{html.escape(v, quote=True)}"' for k, v in words.items())
        script = get_relative_url("assets/exercises/check.js", page.url)
        items = "".join(f'<li hidden><strong>{html.escape(words["hint"])} {n}:</strong> {item}</li>'
                        for n, item in enumerate(ITEM.findall(hints.group(1) if hints else ""), start=1))
        hint_list = (f'<ol class="ex-hints">{items}</ol>'
                     f'<button type="button" class="md-button ex-hint">{html.escape(words["hint"])}</button>'
                     if items else "")
        return (
            f'<div class="exercise" data-exercise="{html.escape(exercise_id, quote=True)}"'
            f' data-wheel="{html.escape(wheel, quote=True)}" data-script="{html.escape(script, quote=True)}"'
            f'{attrs} data-search-exclude>'
            f'<p class="ex-prompt" id="{label}">{prompt.group(1)}</p>'
            f'<form class="ex-form" novalidate>'
            f'<input class="ex-answer" type="text" name="answer" aria-labelledby="{label}"'
            f' autocomplete="off" autocapitalize="off" spellcheck="false">'
            f'<button type="submit" class="md-button md-button--primary ex-check">'
            f'{html.escape(words["check"])}</button></form>'
            f'<p class="ex-verdict" role="status" aria-live="polite"></p>'
            f'{hint_list}</div>'
        )

    return ROOT.sub(controls, html_text)


def on_post_page(output: str) -> str:
    """The script that waits for the reader, on a page with checked exercises."""
    if 'class="exercise"' not in output or "data-script=" not in output:
        return output
    return output.replace("</body>", BOOTSTRAP + "</body>", 1)
