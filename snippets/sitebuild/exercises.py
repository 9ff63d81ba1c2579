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

The message is worded from the table [exercises] of sitebuild/strings/<lang>.toml, every number in it written
here, in the page's language (sitebuild/numbers.py). `check_json` is the page's entry (assets/run/worker.js,
message "check"): the verdict as a JSON text.

No matplotlib or MkDocs here: the page's Python (Pyodide) imports this module, the checkers and the strings
files, served with the explorers' files under assets/explorers/py/ (sitebuild/steps/explorers.py,
in_page_sources), so that the page's words are the tests' words, and none of them weighs on the page.
"""

from __future__ import annotations

import importlib
import json
import re
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


def check(exercise_id: str, text: str, lang: str) -> dict:
    """The verdict on the reader's answer `text` to the exercise, worded in `lang`."""
    words = strings.of(lang)["exercises"]
    ex = exercise(exercise_id)
    got, problem = read(text, ex.size)
    if problem is not None:
        key = {"empty": "empty", "number": "notNumber", "count": "count"}[problem["problem"]]
        key += "One" if ex.size == 1 and key != "notNumber" else ""
        message = _fill(words[key], count=ex.size, got=problem.get("got", ""), text=problem.get("text", ""),
                        example=number(ex.example, "", lang))
        return {"verdict": "malformed", "problem": problem["problem"], "mistakes": [], "message": message}
    want = numbers_of(ex.answer(), ex.size)
    if close(got, want, ex.atol):
        return {"verdict": "right", "mistakes": [], "message": words["right"]}
    off = got - want
    far = int(np.argmax(np.abs(off)))
    side = words["above"] if off[far] > 0 else words["below"]
    if ex.size == 1:
        message = _fill(words["wrongOne"], by=_write(abs(off[far]), lang), side=side)
    else:
        differ = int(np.sum(np.abs(off) > ex.atol))
        message = _fill(words["wrong"], differ=differ, count=ex.size, index=far,
                        by=_write(abs(off[far]), lang), side=side)
    mistakes = diagnose(ex, got)
    for name in mistakes:
        message += " " + _fill(words["named"], mistake=words[_key(name)])
    return {"verdict": "wrong", "mistakes": mistakes, "message": message}


def check_json(exercise_id: str, text: str, lang: str) -> str:
    """check() for the page's worker: the verdict as a JSON text."""
    return json.dumps(check(exercise_id, text, lang), ensure_ascii=False)


def _key(mistake: str) -> str:
    """"zero-grad" -> "mistakeZeroGrad", its words' key in [exercises]."""
    return "mistake" + "".join(part.capitalize() for part in mistake.split("-"))


def shown(values, lang: str, decimals: int) -> str:
    """Numbers as a reader of `lang` types them: (0,659; 0,242) in pt, (0.659, 0.242) in en."""
    return sequence([number(float(v), f".{decimals}f", lang) for v in np.ravel(values)], lang)
