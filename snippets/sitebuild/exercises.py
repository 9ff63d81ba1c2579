"""Checked exercises: a reader's answer, judged by culpa, the same code in the tests and in the page.

The checkers live beside the lesson code they check, one file per page: snippets/lessons/exercises/<lesson>.py
(page 03's are in worked_example.py, beside lessons/worked_example.py). Each defines EXERCISES, a dict
name -> Exercise: how many numbers the answer has, how close is right (`atol`, a reader's rounding), a
function that computes the right answer with culpa, and the recognised mistakes, each a function that
computes with culpa the answer a reader gets by making that mistake (the gradient with `W` for `Wᵀ`, with
the batch mean left out, ...). A mistake is named when the reader's answer is that answer, never because
the text looks like something: diagnoses are computed, not string-matched.

An exercise's id, as a page writes it (`data-exercise="worked_example/class-two"`), is its lesson file's
name and the exercise's name.

    check(exercise, text, lang) -> {"verdict": "right" | "wrong" | "malformed",
                                    "mistakes": [names], "message": the sentence to announce}

The message is worded from the table [exercises] of sitebuild/strings/<lang>.toml (and [exercises_more]: the
code exercises' words), every number in it written here, in the page's language (sitebuild/numbers.py).
`check_json` is the page's entry (assets/run/worker.js, message "check"): the verdict as a JSON text.

A code exercise (an Exercise with `starter`, the code the editable block starts with) is answered with a
short piece of code: `check` runs it in a fresh namespace (culpa and numpy in it, what it prints thrown
away), then the exercise's `run(namespace)`, which calls what the reader defined on the exercise's cases and
returns the numbers it produced; those are judged as a typed answer is, each number named by `labels`.
Both runs have a time limit (SECONDS, counted by a trace function: a loop that never ends raises there, in
CPython as in Pyodide; the page also ends its worker after a longer limit, for what a trace cannot stop).
Code that does not compile, raises, or runs too long gets a message naming the line and the error.

No matplotlib or MkDocs here: the page's Python (Pyodide) imports this module, the checkers and the strings
files, served with the explorers' files under assets/explorers/py/ (sitebuild/steps/explorers.py,
in_page_sources), so that the page's words are the tests' words, and none of them weighs on the page.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sitebuild import strings
from sitebuild.numbers import number, sequence

CHECKERS = Path(__file__).resolve().parent.parent / "lessons" / "exercises"
# a number as either language writes it: 0,25 or 0.25, −1 with a true minus or a hyphen, 1e-3
_NUMBER = re.compile(r"[+\-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+\-]?\d+)?")


@dataclass(frozen=True)
class Exercise:
    """One checked exercise. `answer()` and every function of `mistakes` return the numbers (a list or an
    array of `size` numbers) culpa computes: right, and under each mistake (a tuple of them where a mistake
    has several answers: the order a reader went through a sum, say)."""

    size: int
    decimals: int  # the decimal places the page asks for: a number that far from culpa's is right
    answer: Callable[[], object]
    mistakes: dict[str, Callable[[], object]] = field(default_factory=dict)
    example: float = -0.25  # how the "not a number" message shows a number
    # a code exercise: the code its editable block starts with, what runs the reader's code on the cases
    # (namespace -> the numbers; CodeProblem for what is missing), and each number's (case, name)
    starter: str | None = None
    run: Callable[[dict], object] | None = None
    labels: tuple[tuple[str, str], ...] = ()
    # where a mistake is recognised by more than a match with its answers (got -> the names): page 08's
    # finite difference, named by the side of the U culpa gets the reader's estimate on
    diagnose: Callable[[np.ndarray], list[str]] | None = None

    @property
    def kind(self) -> str:
        return "code" if self.starter is not None else "number"

    @property
    def atol(self) -> float:
        """How far each number may be from culpa's and still be right: half a unit of the last decimal
        place the page asks for (a reader's rounding), and a little more (a rounded intermediate)."""
        return 0.6 * 10.0 ** -self.decimals


def checker(lesson: str):
    """The checker module of a lesson file, imported by name: lessons.exercises.<lesson>, the file
    snippets/lessons/exercises/<lesson>.py beside the lesson it checks (pip install -e makes it importable;
    in the page, the served files are written into the page's Python's site-packages the same way)."""
    name = f"lessons.exercises.{lesson}"
    if not re.fullmatch(r"\w+", lesson):
        raise LookupError(f"no checkers for lesson {lesson!r} (a checker file is named like a lesson file)")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if missing.name != name:
            raise
        raise LookupError(f"no checkers for lesson {lesson!r} ({lesson}.py in lessons/exercises/)") from None


def exercise(exercise_id: str) -> Exercise:
    lesson, _, name = exercise_id.partition("/")
    found = checker(lesson).EXERCISES.get(name)
    if found is None:
        raise LookupError(f"lessons/exercises/{lesson}.py has no exercise {name!r} "
                          f"(it has {sorted(checker(lesson).EXERCISES)})")
    return found


def ids() -> list[str]:
    """Every checked exercise's id, from the checker files."""
    return [f"{path.stem}/{name}" for path in sorted(CHECKERS.glob("*.py"))
            for name in checker(path.stem).EXERCISES]


def numbers_of(value, size: int) -> np.ndarray:
    array = np.asarray(value, dtype=float).ravel()
    if array.size != size:
        raise ValueError(f"a checker computed {array.size} numbers where its exercise has {size}")
    return array


def read(text: str, size: int) -> tuple[np.ndarray | None, dict | None]:
    """The reader's numbers, as typed in either language: `0,659; 0,242` (pt), `0.659, 0.242` (en), or as
    NumPy prints them, `[0.659 0.242]`. (numbers, None), or (None, the problem: {"problem": "empty" |
    "number" | "count", ...}) for the page's words to say."""
    text = str(text).strip().replace("\u2212", "-").replace("\u00a0", " ")
    text = text.strip("[]() \t\n")
    if not text:
        return None, {"problem": "empty"}
    if ";" in text:  # pt's list separator: commas, if any, are decimal marks
        parts = [p.strip().strip("[]()").strip() for p in text.split(";")]
    elif "." in text:  # en: commas separate
        parts = [p for p in re.split(r"[,\s]+", text) if p]
    else:  # no dot: a comma followed by a space separates, a comma inside a number is a decimal mark
        parts = [p for p in re.split(r",\s+|\s+", text) if p]
        if len(parts) != size and all(_NUMBER.fullmatch(p) for p in text.split(",")):
            parts = text.split(",")  # 1,2,3 for three numbers
    parts = [p.strip("[]()") for p in parts]
    for part in parts:
        if not _NUMBER.fullmatch(part):
            return None, {"problem": "number", "text": part}
    if len(parts) != size:
        return None, {"problem": "count", "got": len(parts)}
    return np.array([float(p.replace(",", ".")) for p in parts]), None


def close(a: np.ndarray, b: np.ndarray, atol: float) -> bool:
    return bool(np.all(np.abs(a - b) <= atol))


def diagnose(ex: Exercise, got: np.ndarray) -> list[str]:
    """The names of the mistakes whose culpa answer is the reader's."""
    if ex.diagnose is not None:
        return ex.diagnose(got)
    found = []
    for name, compute in ex.mistakes.items():
        answers = compute()
        answers = answers if isinstance(answers, tuple) else (answers,)
        if any(close(got, numbers_of(a, ex.size), ex.atol) for a in answers):
            found.append(name)
    return found


def _fill(template: str, **values) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), m.group(0))), template)


def _write(value: float, lang: str) -> str:
    return number(float(value), ".3g", lang)


def _words(lang: str) -> dict:
    """[exercises] and [exercises_more] of the language's strings, as one table."""
    found = strings.of(lang)
    return {**found["exercises"], **found.get("exercises_more", {})}


def check(exercise_id: str, text: str, lang: str) -> dict:
    """The verdict on the reader's answer `text` to the exercise (the code, for a code exercise), worded in
    `lang`."""
    words = _words(lang)
    ex = exercise(exercise_id)
    if ex.kind == "code":
        got, problem = run_code(ex, text)
        if problem is not None:
            return _code_problem(problem, words, lang)
        return judge(ex, got, lang)
    got, problem = read(text, ex.size)
    if problem is not None:
        key = {"empty": "empty", "number": "notNumber", "count": "count"}[problem["problem"]]
        key += "One" if ex.size == 1 and key != "notNumber" else ""
        message = _fill(words[key], count=ex.size, got=problem.get("got", ""), text=problem.get("text", ""),
                        example=number(ex.example, "", lang))
        return {"verdict": "malformed", "problem": problem["problem"], "mistakes": [], "message": message}
    return judge(ex, got, lang)


def judge(ex: Exercise, got: np.ndarray, lang: str) -> dict:
    """Right, or wrong with the number that differs most, by how much, and the mistakes whose culpa answer
    the reader's numbers are."""
    words = _words(lang)
    want = numbers_of(ex.answer(), ex.size)
    if close(got, want, ex.atol):
        return {"verdict": "right", "mistakes": [], "message": words["right"]}
    off = got - want
    far = int(np.argmax(np.abs(off)))
    side = words["above"] if off[far] > 0 else words["below"]
    differ = int(np.sum(np.abs(off) > ex.atol))
    single = "Single" if differ == 1 else ""  # "1 of 5 differs" agrees with the one, in both languages
    if ex.labels:
        case, name = ex.labels[far]
        message = _fill(words["wrongCode" + single], differ=differ, count=ex.size, name=name, case=case,
                        got=_write(got[far], lang), by=_write(abs(off[far]), lang), side=side)
    elif ex.size == 1:
        message = _fill(words["wrongOne"], by=_write(abs(off[far]), lang), side=side)
    else:
        message = _fill(words["wrong" + single], differ=differ, count=ex.size, index=far,
                        by=_write(abs(off[far]), lang), side=side)
    mistakes = diagnose(ex, got)
    for name in mistakes:
        message += " " + _fill(words["named"], mistake=words[_key(name)])
    return {"verdict": "wrong", "mistakes": mistakes, "message": message}


# ---- code exercises ----
SECONDS = 3.0  # the reader's code, and the exercise's cases run on it: longer is a loop that never ends


class CodeProblem(Exception):
    """What a code exercise's `run` cannot find in the reader's code: `key` names its words in
    [exercises_more] ("noFunction": codeNoFunction), `values` fill them ({name}: the function asked for)."""

    def __init__(self, key: str, **values):
        super().__init__(key)
        self.key, self.values = key, values


class TooLong(BaseException):  # not an Exception: the reader's `except Exception` does not swallow it
    pass


def _limited(call, seconds: float, name: str = "<exercise>"):
    """call(), stopped by TooLong once it has run `seconds`: a trace function looks at the clock on every
    line Python runs, and on every instruction of the reader's code (compiled as `name`): `while True: pass`
    on one line has no line to trace."""
    deadline = time.monotonic() + seconds

    def tick(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == name:
            frame.f_trace_opcodes = True
        if time.monotonic() > deadline:
            raise TooLong
        return tick

    before = sys.gettrace()
    sys.settrace(tick)
    try:
        return call()
    finally:
        sys.settrace(before)


def _line_of(error: BaseException, name: str) -> int | None:
    """The line of the reader's code (compiled as `name`) where `error` was raised, the last one in it."""
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == name:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run_code(ex: Exercise, code: str, seconds: float | None = None) -> tuple[np.ndarray | None, dict | None]:
    """The numbers the reader's code produces on the exercise's cases, or (None, the problem)."""
    seconds = SECONDS if seconds is None else seconds
    name = "<exercise>"
    if not str(code).strip():
        return None, {"problem": "emptyCode"}
    try:
        compiled = compile(str(code), name, "exec")
    except SyntaxError as error:
        return None, {"problem": "syntax", "line": error.lineno or 1, "error": error.msg}
    import culpa  # the reader's namespace, as a page's: culpa and numpy

    namespace = {"__name__": "__exercise__", "culpa": culpa, "np": np}
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            _limited(lambda: exec(compiled, namespace), seconds)
            produced = _limited(lambda: ex.run(namespace), seconds)
    except TooLong:
        return None, {"problem": "tooLong", "seconds": seconds}
    except CodeProblem as problem:
        return None, {"problem": problem.key, **problem.values}
    except Exception as error:  # the reader's code raised: its line and its error
        line = _line_of(error, name)
        return None, {"problem": "raised" if line else "raisedCase", "line": line,
                      "error": f"{type(error).__name__}: {error}"}
    try:
        got = np.asarray(produced, dtype=float).ravel()
    except (TypeError, ValueError):
        return None, {"problem": "notNumbers"}
    if got.size != ex.size or not np.all(np.isfinite(got)):
        return None, {"problem": "notNumbers"}
    return got, None


def _code_problem(problem: dict, words: dict, lang: str) -> dict:
    values = {k: v for k, v in problem.items() if k != "problem"}
    if "seconds" in values:
        values["seconds"] = number(values["seconds"], "g", lang)
    for part in ("what", "want"):  # parts of the sentence, worded in the page's language (returnedNone: ...)
        if part in values:
            values[part] = _fill(words[values[part]], **values)
    key = problem["problem"]
    message = _fill(words["code" + key[0].upper() + key[1:]], **values)
    return {"verdict": "malformed", "problem": problem["problem"], "mistakes": [], "message": message}


def check_json(exercise_id: str, text: str, lang: str) -> str:
    """check() for the page's worker: the verdict as a JSON text."""
    return json.dumps(check(exercise_id, text, lang), ensure_ascii=False)


def _key(mistake: str) -> str:
    """"zero-grad" -> "mistakeZeroGrad", its words' key in [exercises]."""
    return "mistake" + "".join(part.capitalize() for part in mistake.split("-"))


def shown(values, lang: str, decimals: int) -> str:
    """Numbers as a reader of `lang` types them: (0,659; 0,242) in pt, (0.659, 0.242) in en."""
    return sequence([number(float(v), f".{decimals}f", lang) for v in np.ravel(values)], lang)
