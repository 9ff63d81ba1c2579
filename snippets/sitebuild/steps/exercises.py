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

A code exercise (its checker has a `starter`) gets, in place of the answer field, a text area that starts
with the checker's starter code (the same in both languages), named by the paragraph and the words
"Your code (Python; ...)"; Check sends its text, and check.js ends the worker if the code runs on past the
checker's own time limit.

Predict ("Prever"): before a key output, a page writes

    <div class="predict" markdown="block" data-answer="{{ 0,417 <- loss.item() | .3f }}">

    The question: one paragraph (what to predict).

    - an option      (a list of options: the reader picks one; data-answer is the right one's index)
    - another one

    What culpa computed, said again: one or more paragraphs (inline math allowed), shown on reveal.

    </div>

data-answer is a marker of the page (sitebuild/steps/prose_numbers.py), so the number it reveals is the page's
own, tied to the page's code and checked by its tests. The step writes the number's value and the two bands of
"how close" (the page's last decimal place, and 10%) on the root: predict.js (loaded by progress.js on the
first touch of a Predict, never with the page) only compares the reader's number with them and picks the
sentence, the number it says being the page's literal; it never computes a number.

Progress: on a page with checked exercises, a line (hidden until progress.js fills it) after the heading of
its exercises says how many the reader solved here, with the button that clears the progress; progress.js
(every page) marks each page of the navigation whose exercises the reader has solved some of ("2 de 3"). Its
words are on its script tag (on_post_page), as a11y.js's are.
"""

from __future__ import annotations

import html
import math
import re

from mkdocs.exceptions import PluginError

from sitebuild import exercises, strings
from sitebuild.numbers import number
from sitebuild.steps.explorers import _kebab

# The words check.js shows itself (Python's loading and failure are Run's, from the page's run-config); the
# verdicts are worded by Python in the page (sitebuild/exercises.py).
SCRIPT_WORDS = ("nextHint", "noMoreHints")
CODE_WORDS = ("running", "codeStopped")  # a code exercise's, from [exercises_more]
PREDICT_WORDS = ("predictSkip", "predictExact", "predictClose", "predictFar", "predictSign",
                 "predictNotNumber",
                 "pickRight", "pickWrong", "pickNone", "predictHeld")
PROGRESS_WORDS = ("progressNav", "progressNavLabel", "progressLine", "progressNone", "progressCleared",
                  "solved")
PREDICT = re.compile(r'<div class="predict" data-answer="([^"]*)">(.*?)</div>', re.S)
OPTIONS = re.compile(r"\s*<ul>(.*?)</ul>", re.S)
PARAGRAPHS = re.compile(r"(\s*<p>.*?</p>)+\s*$", re.S)
EXERCISES_HEADING = re.compile(r'<h2 id="(exercicios|exercises)">.*?</h2>', re.S)
PROGRESS_SCRIPT = re.compile(r'<script\b(?=[^>]*\bsrc="[^"]*assets/exercises/progress\.js")')
TAGS = re.compile(r"<[^>]+>")
ROOT = re.compile(r'<div class="exercise" data-exercise="([^"]*)">(.*?)</div>', re.S)
PROMPT = re.compile(r"\s*<p>(.*?)</p>", re.S)
HINTS = re.compile(r"\s*<ol>(.*?)</ol>\s*$", re.S)
ITEM = re.compile(r"<li>(.*?)</li>", re.S)

def on_page_content(html_text: str, page, lang: str) -> str:
    """Each marked exercise's div, as the controls check.js wires up."""
    words = exercises._words(lang)
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
        ex = exercises.exercise(exercise_id)
        keys = SCRIPT_WORDS + (CODE_WORDS if ex.kind == "code" else ())
        attrs = "".join(f' data-t-{_kebab(k)}="{html.escape(words[k], quote=True)}"' for k in keys)
        items = "".join(f"<li hidden>{item}</li>" for item in ITEM.findall(hints.group(1) if hints else ""))
        hint_list = (f'<ol class="ex-hints">{items}</ol>'
                     f'<button type="button" class="md-button ex-hint">{html.escape(words["hint"])}</button>'
                     if items else "")
        if ex.kind == "code":  # a text area with the starter code, named by the paragraph and "Your code"
            rows = max(4, ex.starter.count("\n") + 3)
            field = (f'<p class="ex-field-note" id="{label}-field">{html.escape(words["codeField"])}</p>'
                     f'<textarea class="ex-answer ex-code" aria-labelledby="{label}"'
                     f' aria-describedby="{label}-field"'
                     f' rows="{rows}"'
                     f' wrap="off" autocomplete="off" autocapitalize="off" spellcheck="false">'
                     f'{html.escape(ex.starter)}</textarea>')
        else:
            field = (f'<input class="ex-answer" aria-labelledby="{label}" autocomplete="off"'
                     ' spellcheck="false">')
        return (
            f'<div class="exercise" data-exercise="{html.escape(exercise_id, quote=True)}"'
            f' data-kind="{ex.kind}"{attrs} data-search-exclude>'
            f'<p class="ex-prompt" id="{label}">{prompt.group(1)}</p>'
            f'<form class="ex-form">{field}'
            f'<button type="submit" class="md-button md-button--primary ex-check">'
            f'{html.escape(words["check"])}</button></form>'
            f'<p class="ex-verdict" role="status" aria-live="polite"></p>'
            f'{hint_list}</div>'
        )

    made = ROOT.sub(controls, html_text)
    if count and 'id="run-config"' not in made:
        raise PluginError(f"exercises: {page.file.src_uri} has checked exercises but no Python block: "
                          "check.js takes culpa's wheel and Python's loading words from its run-config")
    if count:
        made = _progress_line(made, words)
    return _predictions(made, page, lang, words)


def _progress_line(html_text: str, words: dict) -> str:
    """The page's progress and the button that clears it, after the exercises' heading (hidden until
    progress.js says how many the reader solved here; it makes the line a live region after that first
    sentence, so that the page's load is not announced, and what Clear did is)."""
    line = ('<div class="ex-progress" hidden data-search-exclude>'
            '<p class="ex-progress-said"></p>'
            f'<button type="button" class="md-button ex-progress-clear">{html.escape(words["progressClear"])}'
            '</button></div>')
    made, found = EXERCISES_HEADING.subn(lambda m: m.group(0) + line, html_text, count=1)
    return made if found else html_text.replace('<div class="exercise"', line + '<div class="exercise"', 1)


def read_literal(literal: str, lang: str) -> tuple[float, int]:
    """A number as the page shows it (`0,417`, `−0,341`, `17.408` in pt; `0.417`, `17,408` in en): its value
    and how many decimals it shows."""
    text = literal.strip().replace("\u2212", "-").replace("\u2009", "").replace("\u00a0", "")
    group, mark = (".", ",") if lang == "pt" else (",", ".")
    text = text.replace(group, "").replace(mark, ".")
    value = float(text)
    return value, len(text.partition(".")[2])


def _predictions(html_text: str, page, lang: str, words: dict) -> str:
    count = 0

    def control(match: re.Match) -> str:
        nonlocal count
        answer, inner = html.unescape(match.group(1)).strip(), match.group(2)
        where = f"exercises: {page.file.src_uri}, a Predict (data-answer={answer!r})"
        question = PROMPT.match(inner)
        if question is None:
            raise PluginError(f"{where}: its div must start with a paragraph, the question")
        rest = inner[question.end():]
        options = OPTIONS.match(rest)
        if options:
            rest = rest[options.end():]
        reveal = PARAGRAPHS.fullmatch(rest)
        if reveal is None:
            raise PluginError(f"{where}: after the question (and the options), only paragraphs may follow: "
                              "what culpa computed, shown on reveal (inline math only)")
        count += 1
        label = f"pr-{count}"
        keys = PREDICT_WORDS
        attrs = "".join(f' data-t-{_kebab(k)}="{html.escape(words[k], quote=True)}"' for k in keys)
        badge = f'<strong class="pr-badge">{html.escape(words["predict"])}.</strong> '
        if options:
            items = ITEM.findall(options.group(1))
            if not re.fullmatch(r"\d+", answer) or int(answer) >= len(items):
                raise PluginError(f"{where}: with options, data-answer is the right one's index "
                                  f"(0 to {len(items) - 1})")
            radios = "".join(
                f'<label class="pr-option"><input type="radio" name="{label}" value="{k}"'
                f' data-label="{html.escape(html.unescape(TAGS.sub("", item)).strip(), quote=True)}"> {item}'
                f'</label>' for k, item in enumerate(items))
            kind = "pick"
            field = (f'<fieldset class="pr-choices"><legend class="pr-question" id="{label}">{badge}'
                     f'{question.group(1)}</legend>{radios}</fieldset>')
            head = ""
            data = f' data-answer="{int(answer)}"'
            button = words["revealPick"]
        else:
            try:
                value, decimals = read_literal(answer, lang)
            except ValueError:
                raise PluginError(f"{where}: data-answer must be a number the page shows, a marker "
                                  "{{ 0,417 <- expr | .3f }}") from None
            exact = 0.6 * 10.0 ** -decimals
            close = max(0.1 * abs(value), exact)
            kind = "number"
            head = f'<p class="pr-question" id="{label}">{badge}{question.group(1)}</p>'
            field = (f'<input class="pr-guess" aria-labelledby="{label}" aria-describedby="{label}-field"'
                     ' inputmode="decimal" autocomplete="off" spellcheck="false">'
                     f'<span class="pr-field-note" id="{label}-field" hidden>'
                     f'{html.escape(words["predictField"])}'
                     '</span>')
            data = (f' data-value="{value!r}" data-exact="{exact!r}" data-close="{close!r}"'
                    f' data-answer-text="{html.escape(answer, quote=True)}"'
                    f' data-example="{html.escape(number(0.5, "", lang))}"')
            button = words["reveal"]
            if not math.isfinite(value):
                raise PluginError(f"{where}: data-answer is not a finite number")
        return (
            f'<div class="predict" data-kind="{kind}"{data}{attrs} data-search-exclude>{head}'
            f'<form class="pr-form">{field}'
            f'<button type="submit" class="md-button md-button--primary pr-show">'
            f'{html.escape(button)}</button>'
            f'</form><p class="pr-said" role="status" aria-live="polite"></p>'
            f'<div class="pr-reveal" hidden>{reveal.group(0).strip()}</div></div>'
        )

    return PREDICT.sub(control, html_text)


def on_post_page(output: str, lang: str) -> str:
    """progress.js's words, in the page's language, on its script tag (every page: its navigation)."""
    words = strings.of(lang)["exercises_more"]
    attrs = "".join(f' data-t-{_kebab(k)}="{html.escape(words[k], quote=True)}"' for k in PROGRESS_WORDS)
    output, found = PROGRESS_SCRIPT.subn(lambda m: m.group(0) + attrs, output, count=1)
    if not found:
        raise PluginError("sitebuild/steps/exercises.py: a page without assets/exercises/progress.js: "
                          "mkdocs.yml's extra_javascript must list it")
    return output
