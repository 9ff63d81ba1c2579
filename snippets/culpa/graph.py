"""The recorded graph as plain data, for figures and visualisations.

    loss.backward(retain_graph=True)   # plain backward releases the graph as it goes
    data = culpa.graph.export(loss)    # json.dumps(data) works

`export(root)` returns {"nodes": [...], "backward_order": [...]}. Each node is a dict with "id", "op"
("leaf" for inputs), "name", "shape", "value" and "grad" (nested lists; grad None until backward reaches it),
"requires_grad" and "parents" (ids). Nodes are listed parents first (a topological order); "backward_order"
lists the ids of the nodes backward visits (those that require grad), in the order it visits them.

Where code made each tensor (the site draws the graph of a reader's own code, run in the page): a `Recorder`
notes, only while it records (`with recorder.recording(file, code):`, run around code compiled with
filename `file`), each tensor's `Origin`: the file and line that made it, the name the code assigned it to,
and, for a small op, its parents and local backward as recorded, which it keeps when backward releases them
(a big op's arrays go when backward frees them, recorded or not). Nothing of this
runs otherwise: the engine calls a watcher only while one is installed (`culpa.internals.recording`), and
a tensor's `origin` slot stays unset. `sweep(root)` walks that graph (released or not) and runs the chain
rule through it once more, from dL/dL = 1, keeping every share it hands back: backward, step by step.
"""

import ast
import contextlib
import sys

import numpy as np

from culpa import guarantees
from culpa.internals import is_released
from culpa.internals import recording as watching
from culpa.tensor import Tensor, topo_order

KEEP = 10_000  # values: an op whose result and inputs are at most this big keeps its graph drawable
RELEASED = (
    "backward has already released this graph (it frees the graph as it goes). "
    "Call loss.backward(retain_graph=True) to export it with gradients, or export before backward."
)


def export(root):
    """Nodes and backward order of the graph that produced `root`, as JSON-ready lists and dicts."""
    order = topo_order(root)
    if any(is_released(node) for node in order):
        raise RuntimeError(f"graph.export: {RELEASED}")
    ids = {node: i for i, node in enumerate(order)}
    nodes = [
        {
            "id": ids[node],
            "op": node.op,
            "name": node.name,
            "shape": list(node.data.shape),
            "value": node.data.tolist(),
            "grad": None if node.grad is None else node.grad.tolist(),
            "requires_grad": node.requires_grad,
            "parents": [ids[parent] for parent in node.parents],
        }
        for node in order
    ]
    return {"nodes": nodes, "backward_order": [ids[node] for node in reversed(order) if node.requires_grad]}


# ---- where code made each tensor ----
class Origin:
    """Where a tensor was made, noted by a Recorder: `file` and `line` of the code that made it, `name` (the
    variable that code assigned it to, or None), and `parents` and `backward` as the op recorded them (None
    for an op bigger than KEEP values: the recorder keeps no big array alive)."""

    __slots__ = ("file", "line", "name", "parents", "backward", "run")


def origin(t):
    """The Origin a Recorder noted for `t`, or None (made while nothing recorded)."""
    return getattr(t, "origin", None)


class Recorder:
    """Notes where code compiled under the files it knows made each tensor (see the module's docstring)."""

    def __init__(self):
        self.statements = {}  # file -> {line: (first line of its statement, names it assigns)}
        self.kept = {}  # file -> {name: tensor}: what the last run of that file assigned
        self.sources = {}  # file -> its lines
        self._frame = self._statement = None
        self._lasti, self._run = -1, 0

    def add(self, file, code):
        """Know `file` (code compiled with that filename): its lines, and its statements, to name what they
        assign."""
        self.sources[file] = code.splitlines()
        lines = {}
        try:
            tree = ast.parse(code)
        except SyntaxError:
            tree = ast.Module(body=[], type_ignores=[])
        for node in ast.walk(tree):  # outer statements first: an inner one on the same lines wins
            if isinstance(node, ast.stmt):
                statement = (node.lineno, tuple(assigned_names(node)))
                for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    if line not in lines or lines[line][0] <= node.lineno:
                        lines[line] = statement
        self.statements[file] = lines

    @contextlib.contextmanager
    def recording(self, file, code):
        """Within the block, every tensor culpa makes gets its origin."""
        self.add(file, code)
        try:
            with watching(self._made):
                yield
        finally:
            self._finish()
            self._frame = self._statement = None

    def _made(self, t):
        # the innermost frame of known code (held until the next tensor: never the frames of culpa's ops,
        # whose locals are the graph's arrays)
        frame, statements = sys._getframe(1), self.statements
        while frame is not None and frame.f_code.co_filename not in statements:
            frame = frame.f_back
        if frame is None:
            return
        file, line, lasti = frame.f_code.co_filename, frame.f_lineno, frame.f_lasti
        statement = statements[file].get(line)
        # a new run of a statement: another frame or statement, or an instruction at or before the last one
        # (a loop). Splitting one run in two (a forward pass, one instruction that makes many tensors) names
        # nothing wrongly: a name goes only to the tensor its variable holds once the statement is done.
        if not (frame is self._frame and statement is self._statement and lasti > self._lasti):
            self._finish()
            self._run += 1
            self._frame, self._statement = frame, statement
        self._lasti = lasti
        made = Origin()
        made.file, made.line, made.name, made.run = file, line, None, self._run
        # what backward releases, kept for a small op only: a big one's arrays are freed as the engine frees
        # them (a page that measures memory, as page 07 does, sees the same numbers recorded or not)
        small = t.data.size <= KEEP and all(p.data.size <= KEEP for p in t.parents)
        made.parents, made.backward = (t.parents, t.local_backward) if small else (None, None)
        t.origin = made

    def _finish(self):
        """The statement run that just ended: a tensor it made that its target names now is named so."""
        statement = self._statement
        if statement is None or not statement[1]:
            return
        namespace = self._frame.f_locals
        for name in statement[1]:
            value = namespace.get(name)
            made = origin(value) if isinstance(value, Tensor) else None
            if made is not None and made.run == self._run and made.name is None:
                made.name = name

    def keep(self, file, code, namespace):
        """After a run of `file`: the tensors its code assigned at its top level, kept to draw later, and
        [{"name", "scalar"}] for each, in the order the code assigns them; a tensor without a name yet takes
        the one it has in `namespace`."""
        for name, value in namespace.items():
            made = origin(value) if isinstance(value, Tensor) else None
            if made is not None and made.name is None:
                made.name = name
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return []
        names = []
        for statement in top_level(tree.body):
            for name in assigned_names(statement):
                if name in names:
                    names.remove(name)
                names.append(name)
        kept = {name: namespace[name] for name in names if isinstance(namespace.get(name), Tensor)}
        self.kept[file] = kept
        return [{"name": name, "scalar": t.data.size == 1} for name, t in kept.items()]


def assigned_names(statement):
    """The plain names an assignment statement binds: `x = ...`, `a, b = ...`, `x += ...`, `x: T = ...`."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AugAssign | ast.AnnAssign):
        targets = [statement.target]
    else:
        return []
    names = []
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                names.append(node.id)
    return names


def top_level(body):
    """The statements of a block run at its top level, in order: inside loops, ifs, withs and trys, not in
    the functions and classes it defines."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from top_level(getattr(statement, field, []))
        for handler in getattr(statement, "handlers", []):
            yield from top_level(handler.body)


# ---- the backward pass, step by step ----
class _Recorded:
    """A node as backward ran it: its parents and its local backward (kept by the origin once released)."""

    __slots__ = ("parents", "local_backward", "op")

    def __init__(self, parents, local_backward, op):
        self.parents, self.local_backward, self.op = parents, local_backward, op


def recorded(node):
    """(parents, local backward) of `node` as its op recorded them, from its origin once backward released
    them; a LookupError when they are gone (released, and made while nothing recorded)."""
    if not is_released(node):
        return node.parents, node.local_backward
    made = origin(node)
    if made is None or made.parents is None:
        raise LookupError(f"graph: {RELEASED}")
    return made.parents, made.backward


def sweep(root):
    """The graph that made `root` and one backward pass through it from dL/dL = 1, kept step by step.

    Returns {"order": nodes parents first (the order backward walks, reversed), "grads": {node: gradient},
    "shares": [(parent, child, position, share)] in the order backward hands them out, "released": whether
    backward had released part of the graph (then drawn from what the recorder kept), "seeded": False when
    root holds more than one value (backward needs a scalar; nothing flows)}. Gradients sum their shares
    in the order backward adds them, so they equal, bit for bit, what `root.backward()` writes to a fresh
    graph. A LookupError when a released part was not recorded."""
    order, seen = [], {root}
    stack = [(root, iter(recorded(root)[0]))]
    while stack:  # culpa.tensor.topo_order, through recorded parents
        node, parents = stack[-1]
        for parent in parents:
            if parent not in seen:
                seen.add(parent)
                up = recorded(parent)[0]
                if up:
                    stack.append((parent, iter(up)))
                    break
                order.append(parent)
        else:
            stack.pop()
            order.append(node)
    grads, shares = {}, []
    seeded = root.requires_grad and root.data.size == 1
    if seeded:
        grads[root] = guarantees.seed(None, root)
    with np.errstate(all="ignore"):
        for node in reversed(order):
            g = grads.get(node)
            parents, local_backward = recorded(node)
            if g is None or local_backward is None:
                continue
            position = -1
            handed = guarantees.checked_shares(_Recorded(parents, local_backward, node.op), g, True)
            for parent, share in handed:
                position = next(k for k in range(position + 1, len(parents)) if parents[k] is parent)
                shares.append((parent, node, position, share))
                grads[parent] = grads[parent] + share if parent in grads else share
    released = any(is_released(node) for node in order)
    return {"order": order, "grads": grads, "shares": shares, "released": released, "seeded": seeded}
