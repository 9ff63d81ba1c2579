"""Checked exercises (sitebuild/exercises.py, the checkers in snippets/lessons/exercises/), in CPython.

The page runs the same checkers in Pyodide (tests/browser/test_exercises_in_browser.py). Here, for every
checked exercise, in both languages:
- culpa's answer, typed as a reader of either language types it (decimal comma or point, `;` or `,` between
  numbers, NumPy's brackets, a true minus), is right;
- each recognised mistake, planted as a reader who makes it would type it (culpa's answer under that mistake,
  rounded to the decimals the page asks for), is named, and no other;
- a wrong answer that is no known mistake gets the element that differs most and by how much, and no name;
- what is not an answer (empty, text, too few or too many numbers) gets a message naming the problem;
- culpa's answer is what the exercise's solution on the page computes, and no two answers of an exercise
  (right, mistakes) are close enough to be taken for one another;
- the files the build serves for the page's Python are all the checkers need (no matplotlib, no MkDocs);
- the build step turns a marked exercise into its controls, and refuses an exercise without a checker.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from sitebuild import exercises, strings
from sitebuild.numbers import number
from sitebuild.project import LANGS, Project
from sitebuild.steps import exercises as step
from sitebuild.steps import explorers as explorers_step
from support.pages import ROOT, load_page

IDS = [i for i in exercises.ids() if exercises.exercise(i).kind == "number"]  # code: test_code_exercises.py
PAGES = {"worked_example": "03-worked-example.md", "through_a_network": "04-through-a-network.md",
         "honest_habits": "08-honest-habits.md", "branching": "05-branching.md",
         "a_billion_knobs": "01-a-billion-knobs.md", "chain_rule": "02-chain-rule.md",
         "inside_culpa": "06-inside-culpa.md"}
# what each exercise's solution on its page computes: culpa's answer must be it
SOLUTIONS = {
    "worked_example/class-two": "z3.grad",
    "worked_example/batch-row": "batch.grad[0]",
    "through_a_network/tanh-delta": "delta_t[2]",
    "through_a_network/batch-bias": "batch_net.layers[2].bias.grad",
    "honest_habits/cube-slope": "x_fd.grad",
    "branching/w-squared": "w.grad",
    "branching/square-layer": "h_sq.grad",
    "a_billion_knobs/hidden-biases": "model.layers[0].bias.grad",
    "a_billion_knobs/wider-passes": "[wide_passes['forward'], wide_passes['central']]",
    "chain_rule/log-sigmoid": "s.grad",
    "chain_rule/ten-tanh": "u.grad",
    "inside_culpa/power": "x.grad",
    "inside_culpa/unbroadcast": "shrunk.ravel()[:1]",
    "honest_habits/zero-output-bias": "zeros.layers[1].bias.grad",
}
# exercises on 07, 09, 10
PAGES |= {"memory": "07-memory.md", "training": "09-training.md", "looking_back": "10-looking-back.md"}
SOLUTIONS |= {
    "memory/segments": "[best_cost, layers - layers // best_k]",
    "memory/graph-kb": "small_held[20] / 1e3",
    "training/one-step": "bias.data",
    "training/two-steps": "jumps[3.0]",
    "looking_back/one-step": "after",
    "looking_back/hidden-delta": "delta1[0]",
}


def typed(values, lang: str, decimals: int, style: int = 0) -> str:
    """Numbers as a reader of `lang` types them; `style` picks one of the ways each language is written."""
    texts = [f"{v:.{decimals}f}" for v in np.ravel(values)]
    if lang == "pt":
        texts = [t.replace(".", ",") for t in texts]
        ways = ["; ".join(texts), " ".join(texts).replace("-", "\u2212"), "(" + ";".join(texts) + ")"]
        return ways[style % 3]
    return [", ".join(texts), "[" + "  ".join(texts) + "]", " ".join(texts)][style % 3]


def verdict(exercise_id: str, text: str, lang: str) -> dict:
    return exercises.check(exercise_id, text, lang)


def answers(compute) -> list[np.ndarray]:
    found = compute()
    return [np.ravel(a) for a in (found if isinstance(found, tuple) else (found,))]


def test_every_page_exercise_has_a_solution_to_compare_with():
    assert sorted(SOLUTIONS) == sorted(IDS)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("exercise_id", IDS)
def test_culpas_answer_typed_either_way_is_right(exercise_id, lang):
    ex = exercises.exercise(exercise_id)
    right = np.ravel(ex.answer())
    for style in range(3):
        text = typed(right, lang, ex.decimals, style)
        said = verdict(exercise_id, text, lang)
        assert said["verdict"] == "right", (text, said)
        assert said["message"] == strings.of(lang)["exercises"]["right"]
    # the other language's decimal mark is read too (a reader with an en keyboard on a pt page)
    other = "en" if lang == "pt" else "pt"
    assert verdict(exercise_id, typed(right, other, ex.decimals), lang)["verdict"] == "right"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("exercise_id", IDS)
def test_each_planted_mistake_is_named(exercise_id, lang):
    ex = exercises.exercise(exercise_id)
    words = strings.of(lang)["exercises"]
    assert ex.mistakes, f"{exercise_id}: no mistake to recognise"
    for k, (name, compute) in enumerate(ex.mistakes.items()):
        for wrong in answers(compute):
            text = typed(wrong, lang, ex.decimals, style=k)
            said = verdict(exercise_id, text, lang)
            assert said["verdict"] == "wrong" and said["mistakes"] == [name], (name, text, said)
            assert words[exercises._key(name)] in said["message"], said["message"]
            assert said["message"].startswith(words["wrong"].split("{")[0].rstrip()[:8]), said["message"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("exercise_id", IDS)
def test_an_unrelated_wrong_answer_gets_the_element_and_no_name(exercise_id, lang):
    ex = exercises.exercise(exercise_id)
    words = strings.of(lang)["exercises"]
    wrong = np.round(np.ravel(ex.answer()).astype(float), ex.decimals)  # a count of passes is an int
    index = ex.size - 1
    off = round(0.37, ex.decimals) or 3.0  # far from the answer, and from every mistake's (3: whole numbers)
    wrong[index] -= off
    said = verdict(exercise_id, typed(wrong, lang, ex.decimals), lang)
    assert said["verdict"] == "wrong" and said["mistakes"] == [], said
    # one number of several off: "1 of 5 numbers differs", the verb agreeing with the one
    expected = (words["wrongSingle" if ex.size > 1 else "wrongOne"].replace("{differ}", "1")
                .replace("{count}", str(ex.size)).replace("{index}", str(index))
                .replace("{side}", words["below"]))
    by = re.escape(expected).replace(re.escape("{by}"), r"(\S+)")
    found = re.fullmatch(by, said["message"])
    assert found, (said["message"], expected)
    # how far from culpa's unrounded answer (33.608 rounded to 33.6, then 0.4 off, is 0.408 off)
    exact = np.ravel(ex.answer())[index]
    assert found.group(1) == number(abs(exact - wrong[index]), ".3g", lang), found.group(1)
    assert not any(words[exercises._key(name)] in said["message"] for name in ex.mistakes)


@pytest.mark.parametrize("lang", LANGS)
def test_two_numbers_off_are_counted_in_the_plural(lang):
    exercise_id = next(i for i in IDS if exercises.exercise(i).size > 2)
    ex = exercises.exercise(exercise_id)
    words = strings.of(lang)["exercises"]
    wrong = np.round(np.ravel(ex.answer()).astype(float), ex.decimals)
    wrong[0] -= round(0.37, ex.decimals) or 3.0
    wrong[1] -= round(0.53, ex.decimals) or 5.0  # the farther one
    said = verdict(exercise_id, typed(wrong, lang, ex.decimals), lang)
    assert said["verdict"] == "wrong", said
    plural = words["wrong"].replace("{differ}", "2").replace("{count}", str(ex.size)).split("{")[0]
    assert said["message"].startswith(plural), (said["message"], plural)


@pytest.mark.parametrize("lang", LANGS)
def test_what_is_not_an_answer_is_named(lang):
    exercise_id = "worked_example/class-two"
    words = strings.of(lang)["exercises"]
    cases = {
        "": ("empty", words["empty"].replace("{count}", "3")),
        "   ": ("empty", words["empty"].replace("{count}", "3")),
        "abc": ("number", None),
        "0,5; x; 1": ("number", None),
        "p - y": ("number", None),
        "0.5, 0.2": ("count", words["count"].replace("{count}", "3").replace("{got}", "2")),
        "1; 2; 3; 4": ("count", words["count"].replace("{count}", "3").replace("{got}", "4")),
    }
    for text, (problem, message) in cases.items():
        said = verdict(exercise_id, text, lang)
        assert said["verdict"] == "malformed" and said["problem"] == problem, (text, said)
        assert said["mistakes"] == []
        if message is not None:
            assert said["message"] == message, (text, said["message"])
        else:
            bad = {"abc": "abc", "0,5; x; 1": "x", "p - y": "p"}[text]
            assert said["message"].startswith(words["notNumber"].split("{text}")[0] + bad), said["message"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_one_number_answer_says_one_number(lang):
    words = strings.of(lang)["exercises"]
    assert verdict("honest_habits/cube-slope", "", lang)["message"] == words["emptyOne"]
    said = verdict("honest_habits/cube-slope", "3,6; 3,7" if lang == "pt" else "3.6, 3.7", lang)
    assert said["problem"] == "count" and said["message"] == words["countOne"].replace("{got}", "2")
    said = verdict("honest_habits/cube-slope", "3,5" if lang == "pt" else "3.5", lang)
    assert said["message"].startswith(words["wrongOne"].split("{")[0]), said["message"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_finite_difference_is_told_which_side_of_the_u_its_step_is_on(lang):
    """Page 08's estimate, made by culpa with each step a reader may choose: with a step well left of the
    bottom of that precision's and formula's U (rounding rules: the error grows as the step shrinks; the
    page's own bound, u^(1/3) two-sided and u^(1/2) one-sided, over ten), a wrong estimate is named too small
    for the precision; well right of it (truncation rules), too large for the formula; where culpa gets the
    same estimate both ways, the diagnosis says either; never the other side alone, and never nothing."""
    import culpa

    said_of = {}
    steps = (1e-1, 3e-2, 1e-2, 1e-3, 1e-4, 1e-5, 3e-6, 1e-6, 1e-7, 1e-9, 1e-11, 1e-13, 1e-14, 1e-15)
    for dtype in (np.float64, np.float32):
        u = float(np.finfo(dtype).eps)
        for method, power in (("central", 1 / 3), ("forward", 1 / 2)):
            bottom = u**power
            for eps in steps:
                side = "small" if eps < bottom / 10 else "large" if eps > bottom * 10 else None
                try:
                    (est,) = culpa.check.finite_difference(
                        lambda x: (x * x * x).sum(), [culpa.Tensor(np.array([1.1], dtype=dtype))],
                        eps=eps, method=method)
                except ValueError:  # culpa refuses a step lost in x + eps
                    continue
                said = verdict("honest_habits/cube-slope", typed(est, lang, 3), lang)
                said_of[np.dtype(dtype).name, method, eps] = said["mistakes"]
                if side is None or said["verdict"] == "right":
                    continue
                allowed = [["fd-rounding" if side == "small" else "fd-truncation"], ["fd-step"]]
                assert said["mistakes"] in allowed, (np.dtype(dtype).name, method, eps, float(est[0]), said)
    # the audit's cases: float64 with 1e-14 is the estimate of a one-sided 1e-3 too (either); float32's
    # rounding noise with the steps float64 wants is too small, named alone
    assert said_of["float64", "central", 1e-14] == ["fd-step"]
    for eps in (1e-6, 1e-7):
        assert said_of["float32", "central", eps] == said_of["float32", "forward", eps] == ["fd-rounding"]
    assert said_of["float64", "forward", 1e-14] == ["fd-rounding"]
    assert said_of["float64", "forward", 1e-2] == said_of["float32", "forward", 1e-1] == ["fd-truncation"]


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_two_answers_of_an_exercise_can_be_taken_for_one_another(exercise_id):
    """A diagnosis names one mistake: every mistake's answer is more than twice the tolerance away from the
    right answer and from every other mistake's, in at least one number."""
    ex = exercises.exercise(exercise_id)
    found = [("right", np.ravel(ex.answer()))]
    found += [(name, a) for name, compute in ex.mistakes.items() for a in answers(compute)]
    for i, (a_name, a) in enumerate(found):
        assert a.size == ex.size, a_name
        for b_name, b in found[i + 1:]:
            if a_name != b_name:
                assert np.max(np.abs(a - b)) > 2 * ex.atol, f"{exercise_id}: {a_name} ~ {b_name}"


def page_namespace(lesson: str) -> dict:
    """Every Python block of the page (en), run in order in one namespace, as a reader pasting them."""
    page = load_page("en", PAGES[lesson])
    namespace = {"__name__": "__main__"}
    printing = np.get_printoptions()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for block in page.python_blocks:
                if not any("skip" in str(mark) for mark in block.marks):
                    exec(compile(block.code, str(page.path), "exec"), namespace)
    finally:
        np.set_printoptions(**printing)
    return namespace


@pytest.mark.parametrize("lesson", sorted(PAGES))
def test_culpas_answer_is_what_the_pages_solution_computes(lesson):
    namespace = page_namespace(lesson)
    for exercise_id in [i for i in IDS if i.startswith(lesson + "/")]:
        solution = np.ravel(eval(SOLUTIONS[exercise_id], namespace))
        answer = np.ravel(exercises.exercise(exercise_id).answer())
        assert np.allclose(answer, solution, atol=1e-12), exercise_id


def test_a_planted_difference_from_the_solution_is_caught():
    namespace = page_namespace("worked_example")
    solution = np.ravel(eval(SOLUTIONS["worked_example/class-two"], namespace)) + 1e-9
    assert not np.allclose(np.ravel(exercises.exercise("worked_example/class-two").answer()), solution,
                           atol=1e-12, rtol=0)


def test_the_served_files_are_all_the_checkers_need(tmp_path):
    served = explorers_step.in_page_sources(Project(ROOT))
    assert {"sitebuild/exercises.py", "lessons/exercises/worked_example.py",
            "lessons/exercises/through_a_network.py"} <= set(served)
    for path, source in served.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(source)
    (tmp_path / "culpa").symlink_to(ROOT / "snippets" / "culpa")  # culpa, as its wheel installs it
    asked = [(i, "1; 2; 3; 4"[: 3 * exercises.exercise(i).size - 2]) for i in IDS]
    script = textwrap.dedent(f"""
        import json, sys
        sys.path[:0] = [{str(tmp_path)!r}]
        sys.modules["matplotlib"] = None  # not in the page's Python: importing it fails
        sys.modules["mkdocs"] = None
        from sitebuild.exercises import check_json
        import sitebuild
        assert sitebuild.__file__.startswith({str(tmp_path)!r}), sitebuild.__file__
        print(json.dumps([json.loads(check_json(i, text, "pt")) for i, text in {asked!r}]))
    """)
    ran = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert json.loads(ran.stdout) == [verdict(i, text, "pt") for i, text in asked]


class FakePage:
    class file:  # noqa: N801 (MkDocs' page.file.src_uri)
        src_uri = "pt/03-worked-example.md"

    url = "03-worked-example/"


def test_the_build_step_makes_the_controls_and_refuses_an_unknown_exercise():
    marked = ('<div class="exercise" data-exercise="worked_example/class-two">\n<p>Type it</p>\n'
              "<ol>\n<li>First</li>\n<li>Second</li>\n</ol>\n</div>")
    config = '<script type="application/json" id="run-config">{}</script>'
    made = step.on_page_content(marked + config, FakePage, "pt")
    assert made.count("<li hidden>") == 2 and 'aria-labelledby="ex-1"' in made and 'role="status"' in made
    assert 'data-t-next-hint="Outra dica"' in made
    assert "data-t-mistake" not in made  # the verdicts' words come with the checkers, not in the page
    assert 'data-exercise="worked_example/class-two"' in made
    with pytest.raises(Exception, match="no exercise 'nope'"):
        step.on_page_content(marked.replace("class-two", "nope") + config, FakePage, "pt")
    with pytest.raises(Exception, match="must start with a paragraph"):
        step.on_page_content(marked.replace("<p>Type it</p>", "") + config, FakePage, "pt")
    with pytest.raises(Exception, match="no Python block"):
        step.on_page_content(marked, FakePage, "pt")
