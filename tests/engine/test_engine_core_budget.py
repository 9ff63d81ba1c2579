"""The core reads in one sitting (issue 22): `tensor.py` at most 350 lines, and the backward loop page 06
shows (`backpropagate`) about 15 lines of chain rule, with its guarantees in named helpers beside it.

Speed work tends to inline helpers into the hot loop; these budgets say when it has gone too far."""

import ast
import inspect
import sys
from collections import Counter
from pathlib import Path

import numpy as np

import culpa
from culpa import benchmark, tensor

TENSOR_LINES = 350
LOOP_LINES = 15


def code_lines(source):
    """Lines that hold code: not blank, not a comment alone."""
    return [line for line in source.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_tensor_module_is_at_most_350_lines():
    lines = Path(tensor.__file__).read_text(encoding="utf-8").splitlines()
    assert len(lines) <= TENSOR_LINES, (
        f"culpa/tensor.py is {len(lines)} lines, over its budget of {TENSOR_LINES}: move grad mode, losses, "
        "messages or speed paths to their own modules"
    )


def test_backward_loop_is_about_15_lines_of_chain_rule():
    source = inspect.getsource(tensor.backpropagate)
    function = ast.parse(source).body[0]
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    lines = source.splitlines()[body[0].lineno - 1 : body[-1].end_lineno]
    count = len(code_lines("\n".join(lines)))
    assert count <= LOOP_LINES, (
        f"backpropagate's body is {count} lines of code, over its budget of {LOOP_LINES}: keep the chain "
        "rule in the loop and each guarantee in a named helper of culpa/guarantees.py"
    )


# culpa's own Python calls in one training step at tiny size (issue 22: there the fixed cost of each call
# shows as much as the array work): 47 before SGD.step stamped its parameters with one version instead of
# calling the `.data` setter for each of them, 41 before cross_entropy's checks took a Tensor as it is (no
# call of as_tensor) and read the kept row numbers in place (no call of _row_numbers)
STEP_CALLS = 39


def culpa_calls(step):
    """The names of culpa's own functions called while step() runs (not NumPy's, whose count is NumPy's)."""
    package = str(Path(tensor.__file__).parent)
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(package):
            calls.append(frame.f_code.co_qualname)

    sys.setprofile(profile)
    try:
        step()
    finally:
        sys.setprofile(None)
    return calls


def test_a_tiny_training_step_makes_a_fixed_number_of_calls():
    sizes = [2, 16, 16, 2]
    x, y = benchmark.problem(sizes, 32, np.float32)
    step = benchmark.CulpaStep(culpa.nn.MLP(sizes, activation="tanh", rng=0, dtype=np.float32), x, y)
    step()  # the first step sets up what the others reuse (SGD's lr arrays, cross_entropy's row numbers)
    calls = culpa_calls(step)
    assert len(calls) <= STEP_CALLS, (
        f"one tiny training step calls culpa's functions {len(calls)} times, over its budget of {STEP_CALLS} "
        f"(at tiny size each call costs as much as the array work): {Counter(calls).most_common()}"
    )
