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
(role=status, announced), the hints are hidden and the button "Dica"/"Hint" reveals them one at a time. The
root gets the two words check.js shows itself (the hint button's), from [exercises] in the page's language, as
data-t-* attributes (as an explorer's root does). The verdicts' words come with the checkers, not in the page;
culpa's wheel and Python's loading words are Run's, in the page's run-config (a page with checked exercises
has Python blocks, or the build fails naming it). Without JavaScript, and in print, the whole div is hidden
(site.css: `.no-js .exercise`), and the solution below it is the page as before. Search leaves the controls,
the label and the hints out (data-search-exclude): the statement and the solution are what it finds.

Nothing of the check loads with the page: Run's script (assets/run/run.js, on every page with Python blocks)
waits for the reader, and the first focus, press or submit inside an exercise loads
assets/exercises/check.js, which starts Pyodide in a Web Worker (assets/run/worker.js, as Run and the
explorers do) and asks it "check": sitebuild/exercises.check_json with the reader's text and the page's
language. A submit or a hint press that comes before check.js has loaded is kept and replayed by it.

An exercise id without a checker, or a div without its paragraph, fails the build naming the page.
"""

from __future__ import annotations

import html
import re

from mkdocs.exceptions import PluginError

from sitebuild import exercises, strings
from sitebuild.steps.explorers import _kebab

# The words check.js shows itself (Python's loading and failure are Run's, from the page's run-config); the
# verdicts are worded by Python in the page (sitebuild/exercises.py).
SCRIPT_WORDS = ("nextHint", "noMoreHints")
ROOT = re.compile(r'<div class="exercise" data-exercise="([^"]*)">(.*?)</div>', re.S)
PROMPT = re.compile(r"\s*<p>(.*?)</p>", re.S)
HINTS = re.compile(r"\s*<ol>(.*?)</ol>\s*$", re.S)
ITEM = re.compile(r"<li>(.*?)</li>", re.S)

def on_page_content(html_text: str, page, lang: str) -> str:
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
        attrs = "".join(f' data-t-{_kebab(k)}="{html.escape(words[k], quote=True)}"' for k in SCRIPT_WORDS)
        items = "".join(f"<li hidden>{item}</li>" for item in ITEM.findall(hints.group(1) if hints else ""))
        hint_list = (f'<ol class="ex-hints">{items}</ol>'
                     f'<button type="button" class="md-button ex-hint">{html.escape(words["hint"])}</button>'
                     if items else "")
        return (
            f'<div class="exercise" data-exercise="{html.escape(exercise_id, quote=True)}"'
            f'{attrs} data-search-exclude>'
            f'<p class="ex-prompt" id="{label}">{prompt.group(1)}</p>'
            f'<form class="ex-form">'
            f'<input class="ex-answer" aria-labelledby="{label}" autocomplete="off" spellcheck="false">'
            f'<button type="submit" class="md-button md-button--primary ex-check">'
            f'{html.escape(words["check"])}</button></form>'
            f'<p class="ex-verdict" role="status" aria-live="polite"></p>'
            f'{hint_list}</div>'
        )

    made = ROOT.sub(controls, html_text)
    if count and 'id="run-config"' not in made:
        raise PluginError(f"exercises: {page.file.src_uri} has checked exercises but no Python block: "
                          "check.js takes culpa's wheel and Python's loading words from its run-config")
    return made
