"""The core reads in one sitting (issue 22): `tensor.py` at most 350 lines, and the backward loop page 06
shows (`backpropagate`) about 15 lines of chain rule, with its guarantees in named helpers beside it.

Speed work tends to inline helpers into the hot loop; these budgets say when it has gone too far."""

import ast
import inspect
from pathlib import Path

from culpa import tensor

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
