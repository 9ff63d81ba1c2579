"""Code exercises, Predict and progress (sitebuild/exercises.py, sitebuild/steps/exercises.py), in CPython.

A code exercise is answered with code: the checker runs it on the exercise's cases and judges the numbers it
produced with culpa. Here, in both languages:
- the solution the page shows (and other right code) is right;
- each recognised mistake, planted in code as a reader would write it, is named, and no other; each of the
  exercise's mistakes is planted at least once;
- wrong code that is no known mistake gets the gradient that differs most, by how much, and no name;
- code that does not compile, raises, runs too long, defines nothing or leaves no numbers gets a message
  naming the problem (the line, the error, the time limit);
- culpa's answer is what the page's solution computes, and no two answers can be taken for one another;
- the build step makes the text area with the starter code, the Predict controls (a number and a pick) with
  the page's own number and its bands, the progress line, and refuses what it cannot make.
The page runs the same checker in Pyodide: tests/browser/test_code_exercises_in_browser.py.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from test_exercises import FakePage, answers, page_namespace

from sitebuild import exercises, strings
from sitebuild.numbers import number
from sitebuild.project import LANGS
from sitebuild.steps import exercises as step
from support.pages import load_page

CODE_IDS = [i for i in exercises.ids() if exercises.exercise(i).kind == "code"]
MUL = "branching/mul-backward"
RIGHT = "def mul_backward(a, b, out):\n    a.grad += out.grad * b.data\n    b.grad += out.grad * a.data\n"
# each mistake as a reader writes it: the code, and the one name the check must give
PLANTED = {
    MUL: [
        (RIGHT.replace("+=", "="), "mul-overwrite"),  # = on both lines
        (RIGHT.replace("a.grad +=", "a.grad ="), "mul-overwrite"),  # on a.grad only
        ("def mul_backward(a, b, out):\n    a.grad += out.grad * b.data\n"
         "    b.grad = b.grad * 0 + out.grad * a.data\n", "mul-overwrite"),  # b.grad only, another way
        ("def mul_backward(a, b, out):\n    a.grad += out.grad * a.data\n    b.grad += out.grad * b.data\n",
         "mul-swap"),
        (RIGHT.replace("+=", "-="), "mul-sign"),
        ("def mul_backward(a, b, out):\n    g = -out.grad\n    a.grad += g * b.data\n"
         "    b.grad += g * a.data\n",
         "mul-sign"),
    ],
}
LOGITS = "worked_example/logits-grad"
LOGITS_RIGHT = ("def logits_grad(z, c):\n    shifted = z - z.max()\n"
                "    p = np.exp(shifted) / np.exp(shifted).sum()\n"
                "    y = np.zeros_like(z)\n    y[c] = 1.0\n    return p - y\n")
PLANTED[LOGITS] = [
    (LOGITS_RIGHT.replace("return p - y", "return p"), "delta"),
    (LOGITS_RIGHT.replace("return p - y", "return y - p"), "sign"),
    (LOGITS_RIGHT.replace("y[c] = 1.0", "y[0] = 1.0"), "class-fixed"),
    ("def logits_grad(z, c):\n    e = np.exp(z - z.max())\n    return e / e.sum() - np.eye(len(z))[0]\n",
     "class-fixed"),  # the page's class, written another way
    (LOGITS_RIGHT.replace("return p - y", "return -(p - y)"), "sign"),
]
STEP = "training/train-step"
STEP_RIGHT = ("def train_step(model, X, y, lr):\n    model.zero_grad()\n"
              "    loss = culpa.cross_entropy(model(X), y)\n    loss.backward()\n"
              "    for p in model.parameters():\n        p.data -= lr * p.grad\n    return loss.item()\n")
PLANTED[STEP] = [
    (STEP_RIGHT.replace("    model.zero_grad()\n", ""), "zero-grad"),
    (STEP_RIGHT.replace("p.data -= lr", "p.data += lr"), "ascent"),
    ("def train_step(model, X, y, lr):\n    optimizer = culpa.nn.SGD(model.parameters(), lr=-lr)\n"
     "    optimizer.zero_grad()\n    loss = culpa.cross_entropy(model(X), y)\n    loss.backward()\n"
     "    optimizer.step()\n    return loss.item()\n", "ascent"),
]
# other right code: written another way, the same gradients
ALSO_RIGHT = {
    MUL: [
        "def mul_backward(a, b, out):\n    a.grad = a.grad + b.data * out.grad\n"
        "    b.grad = b.grad + a.data * out.grad\n",
        "import numpy as np\n\ndef mul_backward(a, b, out):\n    for x, y in ((a, b), (b, a)):\n"
        "        x.grad += np.float64(out.grad) * y.data\n",
    ],
}
# what each exercise's solution on its page computes, in the page's namespace
ALSO_RIGHT[LOGITS] = [
    "def logits_grad(z, c):\n    m = np.max(z)\n    log_total = m + np.log(np.sum(np.exp(z - m)))\n"
    "    grad = np.exp(z - log_total)\n    grad[c] -= 1\n    return grad\n",
    "import culpa\n\ndef logits_grad(z, c):\n    t = culpa.Tensor(z, requires_grad=True)\n"
    "    culpa.cross_entropy(t, c).backward()\n    return t.grad.tolist()\n",
]
ALSO_RIGHT[STEP] = [
    "def train_step(model, X, y, lr):\n    optimizer = culpa.nn.SGD(model.parameters(), lr=lr)\n"
    "    loss = culpa.cross_entropy(model(X), y)\n    loss.backward()\n    optimizer.step()\n"
    "    optimizer.zero_grad()\n    return loss\n",  # zeroed after the step, the loss tensor returned
]
SOLUTIONS = {MUL: ("05-branching.md", "[va.grad, vb.grad, vw.grad, vx.grad, vy.grad]", "def mul_backward"),
             LOGITS: ("03-worked-example.md", "mine", "def logits_grad"),
             STEP: ("09-training.md", "step_losses + list(stepped.layers[2].bias.data)", "def train_step")}
# right code for each code exercise, as the browser tests type it
RIGHTS = {MUL: RIGHT, LOGITS: LOGITS_RIGHT, STEP: STEP_RIGHT}
# wrong code that is no known mistake, for each code exercise (tests/browser/test_exercises_in_browser.py too)
UNRELATED = {MUL: "def mul_backward(a, b, out):\n    a.grad += b.data\n    b.grad += a.data\n",
             LOGITS: LOGITS_RIGHT.replace("return p - y", "return (p - y) / 2"),
             STEP: STEP_RIGHT.replace("lr * p.grad", "lr * p.grad / 2")}


def words(lang: str) -> dict:
    return exercises._words(lang)


def solution_code(exercise_id: str) -> str:
    """The block of the page's solution that defines the function the exercise asks for (en; pt is the same
    code, tests/test_parity.py)."""
    page, _, marker = SOLUTIONS[exercise_id]
    found = [b.code for b in load_page("en", page).python_blocks if marker in b.code]
    assert len(found) == 1, (exercise_id, len(found))
    return found[0]


def test_every_code_exercise_is_tested():
    assert CODE_IDS and sorted(CODE_IDS) == sorted(PLANTED) == sorted(ALSO_RIGHT) == sorted(SOLUTIONS) \
        == sorted(UNRELATED) == sorted(RIGHTS)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("exercise_id", CODE_IDS)
def test_the_pages_solution_and_other_right_code_are_right(exercise_id, lang):
    for code in [solution_code(exercise_id), *ALSO_RIGHT[exercise_id]]:
        said = exercises.check(exercise_id, code, lang)
        assert said == {"verdict": "right", "mistakes": [], "message": words(lang)["right"]}, (code, said)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("exercise_id", CODE_IDS)
def test_each_planted_mistake_is_named_and_no_other(exercise_id, lang):
    ex = exercises.exercise(exercise_id)
    w = words(lang)
    for code, name in PLANTED[exercise_id]:
        said = exercises.check(exercise_id, code, lang)
        assert said["verdict"] == "wrong" and said["mistakes"] == [name], (code, said)
        assert said["message"].endswith(w["named"].replace("{mistake}", w[exercises._key(name)])), said
        assert said["message"].startswith(w["wrongCode"].split("{")[0]), said["message"]
    assert {name for _, name in PLANTED[exercise_id]} == set(ex.mistakes), "a mistake is never planted"


@pytest.mark.parametrize("lang", LANGS)
def test_unrelated_wrong_code_gets_the_gradient_and_no_name(lang):
    w = words(lang)
    ex = exercises.exercise(MUL)
    # the downstream gradient left out: a.grad += b.data (no mistake the checker knows)
    code = "def mul_backward(a, b, out):\n    a.grad += b.data\n    b.grad += a.data\n"
    said = exercises.check(MUL, code, lang)
    assert said["verdict"] == "wrong" and said["mistakes"] == [], said
    got, _ = exercises.run_code(ex, code)
    want = np.ravel(ex.answer()).astype(float)
    far = int(np.argmax(np.abs(got - want)))
    case, name = ex.labels[far]
    differ = int(np.sum(np.abs(got - want) > ex.atol))
    assert differ > 1  # several gradients off: the plural words
    expected = (w["wrongCode"].replace("{differ}", str(differ))
                .replace("{count}", "5").replace("{name}", name).replace("{case}", case)
                .replace("{got}", number(got[far], ".3g", lang))
                .replace("{by}", number(abs(got[far] - want[far]), ".3g", lang))
                .replace("{side}", w["below"] if got[far] < want[far] else w["above"]))
    assert said["message"] == expected
    assert (name, case, got[far]) == ("a.grad", "a * b", -5.0)  # the element that differs most, named
    assert not any(w[exercises._key(m)] in said["message"] for m in ex.mistakes)


@pytest.mark.parametrize("lang", LANGS)
def test_code_that_is_no_answer_gets_a_message_naming_the_problem(lang, monkeypatch):
    w = words(lang)
    monkeypatch.setattr(exercises, "SECONDS", 0.5)  # what a page would wait, shortened
    cases = {
        "": ("emptyCode", w["codeEmptyCode"]),
        "def mul_backward(a, b, out:\n    pass\n": ("syntax", None),
        "x = 1\ny = 1 / 0\n": ("raised", w["codeRaised"].replace("{line}", "2")
                               .replace("{error}", "ZeroDivisionError: division by zero")),
        "def mul_backward(a, b, out):\n    a.grad += out.grad * b.value\n": ("raised", None),
        "def mul_backward(a, b):\n    pass\n": ("raisedCase", None),
        "def mul_backward(a, b, out):\n    while True: pass\n": ("tooLong", None),
        "while True:\n    pass\n": ("tooLong", None),
        "def mul_backward(a, b, out):\n    while True:\n        try:\n            pass\n"
        "        except Exception:\n            pass\n": ("tooLong", None),
        "def mul_backward(a, b, out):\n    a.grad = 'blame'\n": ("notNumbers", w["codeNotNumbers"]),
        "def mul_backward(a, b, out):\n    a.grad += float('nan')\n": ("notNumbers", w["codeNotNumbers"]),
        "def backward(a, b, out):\n    pass\n": ("noFunction",
                                                w["codeNoFunction"].replace("{name}", "mul_backward")),
    }
    for code, (problem, message) in cases.items():
        said = exercises.check(MUL, code, lang)
        assert said["verdict"] == "malformed" and said["problem"] == problem, (code, said)
        assert said["mistakes"] == []
        if message is not None:
            assert said["message"] == message, (code, said["message"])
    syntax = exercises.check(MUL, "def mul_backward(a, b, out:\n    pass\n", lang)["message"]
    assert syntax.startswith(w["codeSyntax"].split("{line}")[0] + "1"), syntax
    raised = exercises.check(MUL, "def mul_backward(a, b, out):\n    a.grad += out.grad * b.value\n", lang)
    assert raised["message"] == (w["codeRaised"].replace("{line}", "2").replace(
        "{error}", "AttributeError: 'Value' object has no attribute 'value'")), raised["message"]
    looped = exercises.check(MUL, "while True:\n    pass\n", lang)["message"]
    assert looped == w["codeTooLong"].replace("{seconds}", number(0.5, "g", lang)), looped


@pytest.mark.parametrize("lang", LANGS)
def test_what_logits_grad_returns_is_checked_before_its_numbers(lang):
    """Nothing returned, another shape, not numbers, and e^1000's inf or nan each get their own sentence,
    naming the case; no mistake is named for them."""
    w = words(lang)
    case0, big = "logits_grad(z, 0)", "logits_grad(big, 0)"

    def returned(what, **values):
        text = w[what]
        for key, value in values.items():
            text = text.replace("{" + key + "}", value)
        return (w["codeReturn"].replace("{case}", case0).replace("{name}", "logits_grad")
                .replace("{what}", text).replace("{want}", w["wantLogitsGrad"]))

    cases = {
        "def logits_grad(z, c):\n    ...\n": ("return", returned("returnedNone")),
        LOGITS_RIGHT.replace("return p - y", "return (p - y)[:2]"):
            ("return", returned("returnedShape", shape="(2,)")),
        LOGITS_RIGHT.replace("return p - y", "return [p, y]"):
            ("return", returned("returnedShape", shape="(2, 3)")),
        LOGITS_RIGHT.replace("return p - y", "return 'p - y'"): ("return", returned("returnedOther")),
        LOGITS_RIGHT.replace("shifted = z - z.max()", "shifted = z"):
            ("overflow", w["codeOverflow"].replace("{case}", big).replace("{name}", "logits_grad")),
    }
    for code, (problem, message) in cases.items():
        said = exercises.check(LOGITS, code, lang)
        assert said == {"verdict": "malformed", "problem": problem, "mistakes": [], "message": message}, (
            code, said)


def test_code_that_changes_its_batch_in_place_leaves_the_pages_data_alone():
    """train_step is handed copies: a reader's X -= 1 spoils that run only, not the data every later check
    (in the page's one Python) computes with."""
    from lessons.exercises import training

    before = [a.copy() for a in training.moons()]
    exercises.check(STEP, STEP_RIGHT.replace("    model.zero_grad()\n", "    X -= 1.0\n    y[:] = 0\n"), "en")
    assert all(np.array_equal(a, b) for a, b in zip(training.moons(), before, strict=True))
    assert exercises.check(STEP, STEP_RIGHT, "en")["verdict"] == "right"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("exercise_id", CODE_IDS)
def test_unrelated_wrong_code_of_every_code_exercise_is_named_nothing(exercise_id, lang):
    said = exercises.check(exercise_id, UNRELATED[exercise_id], lang)
    assert said["verdict"] == "wrong" and said["mistakes"] == [], said


def test_the_time_limit_stops_a_loop_and_only_a_loop():
    ex = exercises.exercise(MUL)
    got, problem = exercises.run_code(ex, "while True: pass\n", seconds=0.2)
    assert got is None and problem == {"problem": "tooLong", "seconds": 0.2}
    slow = "import time\ntime.sleep(0.3)\n" + RIGHT  # slow, but ends within the limit
    got, problem = exercises.run_code(ex, slow, seconds=2)
    assert problem is None and np.allclose(got, np.ravel(ex.answer()).astype(float))


@pytest.mark.parametrize("exercise_id", CODE_IDS)
def test_culpas_answer_is_what_the_pages_solution_computes(exercise_id):
    page, expression, _ = SOLUTIONS[exercise_id]
    lesson = exercise_id.partition("/")[0]
    solution = np.ravel(np.asarray(eval(expression, page_namespace(lesson)), dtype=float))
    assert np.allclose(np.ravel(np.asarray(exercises.exercise(exercise_id).answer(), dtype=float)), solution,
                       atol=1e-12)


@pytest.mark.parametrize("exercise_id", CODE_IDS)
def test_no_two_answers_of_a_code_exercise_can_be_taken_for_one_another(exercise_id):
    ex = exercises.exercise(exercise_id)
    found = [("right", np.ravel(np.asarray(ex.answer(), dtype=float)))]
    found += [(name, np.asarray(a, dtype=float)) for name, compute in ex.mistakes.items()
              for a in answers(compute)]
    for i, (a_name, a) in enumerate(found):
        assert a.size == ex.size == len(ex.labels), a_name
        for b_name, b in found[i + 1:]:
            if a_name != b_name:
                assert np.max(np.abs(a - b)) > 2 * ex.atol, f"{exercise_id}: {a_name} ~ {b_name}"


# ---- the build step ----


CONFIG = '<script type="application/json" id="run-config">{}</script>'


def test_a_code_exercise_gets_a_text_area_with_its_starter():
    marked = (f'<h2 id="exercicios">Exercícios</h2><div class="exercise" data-exercise="{MUL}">\n'
              '<p>Write it</p>\n</div>')
    made = step.on_page_content(marked + CONFIG, FakePage, "pt")
    ex = exercises.exercise(MUL)
    area = re.search(r'<textarea class="ex-answer ex-code" aria-labelledby="ex-1"'
                     r' aria-describedby="ex-1-field"'
                     r'[^>]*>(.*?)</textarea>', made, re.S)
    assert area and html.unescape(area.group(1)) == ex.starter
    assert 'data-kind="code"' in made and f'data-t-code-stopped="{words("pt")["codeStopped"]}"' in made
    assert f'id="ex-1-field">{words("pt")["codeField"]}</p>' in made
    # the progress line, after the exercises' heading
    assert re.search(r'</h2><div class="ex-progress" hidden data-search-exclude><p class="ex-progress-said">'
                     r'</p><button type="button"', made)
    number_exercise = marked.replace(MUL, "branching/w-squared")
    assert "<textarea" not in step.on_page_content(number_exercise + CONFIG, FakePage, "pt")


@pytest.mark.parametrize("lang", LANGS)
def test_a_predict_reveals_the_pages_own_number_with_its_bands(lang):
    literal = "0,417" if lang == "pt" else "0.417"
    marked = (f'<div class="predict" data-answer="{literal}">\n<p>What is L?</p>\n'
              f'<p>culpa computes {literal}.</p>\n</div>')
    made = step.on_page_content(marked, FakePage, lang)
    assert 'data-kind="number"' in made and 'data-value="0.417"' in made
    assert f'data-answer-text="{literal}"' in made
    exact = float(re.search(r'data-exact="([^"]+)"', made).group(1))
    close = float(re.search(r'data-close="([^"]+)"', made).group(1))
    assert exact == pytest.approx(0.0006) and close == pytest.approx(0.0417)
    assert re.search(r'<div class="pr-reveal" hidden><p>culpa computes [0-9.,]+\.</p></div>', made)
    assert 'aria-labelledby="pr-1"' in made and 'role="status" aria-live="polite"' in made
    assert words(lang)["predict"] in made and f'data-t-predict-exact="{words(lang)["predictExact"]}"' in made


@pytest.mark.parametrize(("literal", "lang", "value", "decimals"), [
    ("0,417", "pt", 0.417, 3), ("\u22120,341", "pt", -0.341, 3), ("17.408", "pt", 17408, 0),
    ("20,5", "pt", 20.5, 1), ("0.417", "en", 0.417, 3), ("\u22120.341", "en", -0.341, 3),
    ("17,408", "en", 17408, 0), ("72", "en", 72, 0)])
def test_the_pages_literal_is_read_in_its_language(literal, lang, value, decimals):
    assert step.read_literal(literal, lang) == (pytest.approx(value), decimals)


def test_a_pick_predict_and_what_the_step_refuses():
    marked = ('<div class="predict" data-answer="1">\n<p>Which one?</p>\n<ul>\n<li>z₀</li>\n<li>z₁</li>\n'
              '<li>z₂</li>\n</ul>\n<p>culpa says z₁.</p>\n</div>')
    made = step.on_page_content(marked, FakePage, "en")
    assert 'data-kind="pick"' in made and 'data-answer="1"' in made
    assert made.count('type="radio" name="pr-1"') == 3 and 'data-label="z₁"' in made
    assert '<legend class="pr-question" id="pr-1">' in made
    with pytest.raises(Exception, match="index"):
        step.on_page_content(marked.replace('data-answer="1"', 'data-answer="3"'), FakePage, "en")
    with pytest.raises(Exception, match="must be a number"):
        step.on_page_content(marked.replace("<ul>\n<li>z₀</li>\n<li>z₁</li>\n<li>z₂</li>\n</ul>\n", "")
                             .replace('data-answer="1"', 'data-answer="one"'), FakePage, "en")
    with pytest.raises(Exception, match="must start with a paragraph"):
        step.on_page_content('<div class="predict" data-answer="1">\n<ul><li>a</li></ul></div>', FakePage,
                             "en")


def test_progress_words_go_on_the_scripts_tag():
    page = ('<html><head><script src="../assets/exercises/progress.js" defer></script></head>'
            '<body>{}</body></html>')
    made = step.on_post_page(page.format(""), "pt")
    assert f'data-t-progress-nav="{strings.of("pt")["exercises_more"]["progressNav"]}"' in made
    with pytest.raises(Exception, match="progress.js"):
        step.on_post_page("<html><head></head></html>", "pt")
